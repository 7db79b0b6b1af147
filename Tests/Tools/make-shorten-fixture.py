#!/usr/bin/env python3
"""Writes a small Shorten (.shn) file: no Shorten encoder is packaged, so
this encodes one from the format's description (Tony Robinson's shorten
2.x, as ffmpeg's decoder reads it).

The stream: "ajkg", the version byte (2), then a big-endian bit stream of
Rice codes. uvar(n) is the value's high part in unary (that many 0 bits,
then a 1) followed by its low n bits; ulong is uvar(2) giving n, then
uvar(n) giving the value; svar(n) is uvar(n + 1) of the zig-zagged value.
Header: ulong filetype (5: signed 16-bit little-endian), channels,
blocksize, maxnlpc, nmean, nskip. Then commands, uvar(2) each: VERBATIM (9:
uvar(5) length, then uvar(8) per byte) holding the WAV header; per block
and channel DIFF0 (0: uvar(3) energy k, then svar(k) per sample) or ZERO
(8); BLOCKSIZE (5: ulong) before a shorter last block; QUIT (4). The bits
are padded to a 32-bit word.

Usage: make-shorten-fixture.py OUT.shn
"""
import math
import struct
import sys


class Bits:
    def __init__(self):
        self.bits = []

    def put(self, value, count):
        for shift in range(count - 1, -1, -1):
            self.bits.append((value >> shift) & 1)

    def uvar(self, value, count):
        self.bits.extend([0] * (value >> count) + [1])
        self.put(value & ((1 << count) - 1), count)

    def ulong(self, value):
        count = value.bit_length()
        self.uvar(count, 2)
        self.uvar(value, count)

    def svar(self, value, count):
        self.uvar(2 * value if value >= 0 else -2 * value - 1, count + 1)

    def bytes(self):
        bits = self.bits + [0] * (-len(self.bits) % 32)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def main():
    rate, channels, frames, blocksize = 44100, 2, 4410, 256
    samples = [[int(3000 * math.sin(2 * math.pi * 440 * (c + 1) * n / rate)) for n in range(frames)] for c in range(channels)]
    # The second block of each channel is silence (a ZERO command).
    for c in range(channels):
        samples[c][blocksize:2 * blocksize] = [0] * blocksize
    data_size = frames * channels * 2
    wav = b"RIFF" + struct.pack("<I", 36 + data_size) + b"WAVE"
    wav += b"fmt " + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16)
    wav += b"data" + struct.pack("<I", data_size)
    bits = Bits()
    for value in (5, channels, blocksize, 0, 0, 0):
        bits.ulong(value)
    bits.uvar(9, 2)
    bits.uvar(len(wav), 5)
    for byte in wav:
        bits.uvar(byte, 8)
    size = blocksize
    for start in range(0, frames, blocksize):
        if frames - start < size:
            size = frames - start
            bits.uvar(5, 2)
            bits.ulong(size)
        for c in range(channels):
            block = samples[c][start:start + size]
            if not any(block):
                bits.uvar(8, 2)
                continue
            k = max(0, int(math.log2(max(1, sum(abs(v) for v in block) / len(block)))))
            bits.uvar(0, 2)
            bits.uvar(k, 3)
            for value in block:
                bits.svar(value, k)
    bits.uvar(4, 2)
    with open(sys.argv[1], "wb") as handle:
        handle.write(b"ajkg\x02" + bits.bytes())


if __name__ == "__main__":
    main()
