#!/usr/bin/env python3
"""Writes small tracker modules, one per format, built from the format
descriptions (no tracker writes them here):

- MOD: ProTracker's 31-instrument layout (title 20 bytes; 31 instruments of
  30 bytes: name 22, length in words BE16, finetune, volume, loop start and
  length BE16; song length at 950, restart 951, order table 952..1079, the
  tag "M.K." at 1080; 64-row patterns of 4 bytes per channel; sample data).
- S3M: the Scream Tracker 3 file format (title 28 bytes, 0x1A, type 16,
  OrdNum/InsNum/PatNum/Flags/Cwt-v/Ffi LE16 at 32..43, "SCRM" at 44, 32
  channel settings at 64; orders, then instrument and pattern parapointers
  (offset / 16); instruments of 80 bytes with the sample name at 48 and
  "SCRS" at 76; packed patterns with a LE16 length).
- XM: "Extended Module: " (17), module name 20, 0x1A, tracker name 20,
  version LE16 0x0104, header size LE32 at 60 (counted from 60), song
  length, restart, channels, patterns, instruments, flags, tempo, BPM (LE16
  at 64..79), order table 256; patterns (header length 9, packing 0, rows,
  packed size); instruments (header size, name 22, type, sample count, and
  when it has samples: sample header size 40, keymap, envelopes, …, 263
  bytes), then 40-byte sample headers (name 22 at 18) and delta samples.
- IT: ITTECH.TXT ("IMPM", song name 26, OrdNum/InsNum/SmpNum/PatNum LE16 at
  32..39, Cwt/v and Cmwt at 40/42, Flags 44, Special 46 (bit 0: message),
  MsgLgth LE16 at 54, message offset LE32 at 56, channel pan at 64 (>= 128:
  disabled), channel volume at 128, orders at 192, then LE32 offsets of the
  instruments, samples and patterns; "IMPI" instruments of 554 bytes with
  the name at 32; "IMPS" samples of 80 bytes with the name at 20; the
  message's lines end with CR and it ends with NUL).

Usage: make-tracker-fixtures.py OUTDIR
"""
import struct
import sys
import os


def pad(text, size):
    data = text.encode("latin-1")
    assert len(data) <= size
    return data + b"\0" * (size - len(data))


def mod():
    out = pad("mdkit mod", 20)
    names = ["lead sample", "bass", ""] + [""] * 28
    samples = []
    for index, name in enumerate(names):
        words = 16 if index < 2 else 0
        out += pad(name, 22) + struct.pack(">H", words) + bytes([0, 64]) + struct.pack(">HH", 0, 1)
        samples.append(bytes((i * 8) & 0xFF for i in range(words * 2)))
    orders = [0, 1, 0]
    out += bytes([len(orders), 127]) + bytes(orders + [0] * (128 - len(orders)))
    out += b"M.K."
    assert len(out) == 1084
    for pattern in range(2):
        rows = bytearray(64 * 4 * 4)
        # Row 0, channel 0: sample 1 at period 428 (C-2).
        rows[0:4] = bytes([0x01, 0xAC, 0x10, 0x00]) if pattern == 0 else bytes([0x01, 0xAC, 0x20, 0x00])
        out += bytes(rows)
    return out + b"".join(samples)


def s3m():
    orders = [0, 1, 0xFF, 0xFF]
    instruments = 2
    patterns = 2
    header = pad("mdkit s3m", 28) + bytes([0x1A, 16, 0, 0])
    header += struct.pack("<HHHHHH", len(orders), instruments, patterns, 0, 0x1320, 2)
    header += b"SCRM" + bytes([64, 6, 125, 0x80 | 48, 0, 0xFC]) + bytes(8) + struct.pack("<H", 0)
    header += bytes([0, 8, 1, 9] + [255] * 28)
    assert len(header) == 96
    body = header + bytes(orders)
    table_end = len(body) + 2 * (instruments + patterns)
    first = (table_end + 15) // 16 * 16
    instrument_offsets = [first + 80 * i for i in range(instruments)]
    pattern_start = first + 80 * instruments
    empty = struct.pack("<H", 2 + 64) + bytes(64)
    pattern_offsets = [pattern_start + len(empty) * i for i in range(patterns)]
    sample_start = (pattern_offsets[-1] + len(empty) + 15) // 16 * 16
    body += b"".join(struct.pack("<H", o // 16) for o in instrument_offsets)
    body += b"".join(struct.pack("<H", o // 16) for o in pattern_offsets)
    body += bytes(first - len(body))
    sample = bytes(0x80 + ((i * 8) & 0x3F) for i in range(32))
    for index, name in enumerate(["lead sample", "bass line"]):
        at = sample_start + 32 * index
        inst = bytes([1]) + pad("LEAD%d.SMP" % index, 12) + bytes([(at >> 20) & 0xFF]) + struct.pack("<H", (at >> 4) & 0xFFFF)
        inst += struct.pack("<III", len(sample), 0, 0) + bytes([64, 0, 0, 0]) + struct.pack("<I", 8363) + bytes(12)
        inst += pad(name, 28) + b"SCRS"
        assert len(inst) == 80
        body += inst
    for _ in range(patterns):
        body += empty
    body += bytes(sample_start - len(body))
    return body + sample + sample


def xm():
    orders = [0, 1]
    channels = 4
    patterns = 2
    header = b"Extended Module: " + pad("mdkit xm", 20) + b"\x1a" + pad("FastTracker v2.00", 20)
    header += struct.pack("<HI", 0x0104, 276)
    header += struct.pack("<HHHHHHHH", len(orders), 0, channels, patterns, 2, 1, 6, 125)
    header += bytes(orders + [0] * (256 - len(orders)))
    assert len(header) == 336
    out = header
    for _ in range(patterns):
        data = bytes([0x80]) * (channels * 64)
        out += struct.pack("<IBHH", 9, 0, 64, len(data)) + data
    sample = bytes([0] + [8] * 31)
    # Instrument 1: one sample.
    inst = pad("Lead", 22) + bytes([0]) + struct.pack("<H", 1) + struct.pack("<I", 40)
    inst += bytes(96) + bytes(48) + bytes(48) + bytes(14) + struct.pack("<H", 0) + bytes(22)
    inst = struct.pack("<I", 4 + len(inst)) + inst
    assert len(inst) == 263
    out += inst
    out += struct.pack("<III", len(sample), 0, 0) + bytes([64, 0, 0, 128, 0, 0]) + pad("lead sample", 22)
    out += sample
    # Instrument 2: two samples.
    inst = pad("Pad", 22) + bytes([0]) + struct.pack("<H", 2) + struct.pack("<I", 40)
    inst += bytes(96) + bytes(48) + bytes(48) + bytes(14) + struct.pack("<H", 0) + bytes(22)
    out += struct.pack("<I", 4 + len(inst)) + inst
    for name in ["pad low", "pad high"]:
        out += struct.pack("<III", len(sample), 0, 0) + bytes([64, 0, 0, 128, 0, 0]) + pad(name, 22)
    out += sample + sample
    return out


def it():
    orders = [0, 1, 255]
    instruments, samples, patterns = 1, 2, 2
    message = b"Hello\rfrom mdkit\0"
    header = b"IMPM" + pad("mdkit it", 26) + struct.pack("<H", 0x1004)
    header += struct.pack("<HHHHHHHH", len(orders), instruments, samples, patterns, 0x0214, 0x0214, 0x000D, 0x0001)
    header += bytes([128, 48, 6, 125, 128, 0])
    tables = 192 + len(orders) + 4 * (instruments + samples + patterns)
    message_offset = tables
    instrument_offset = message_offset + len(message)
    sample_offsets = [instrument_offset + 554 + 80 * i for i in range(samples)]
    pattern_data = bytes(64)
    pattern = struct.pack("<HH", len(pattern_data), 64) + bytes(4) + pattern_data
    pattern_offsets = [sample_offsets[-1] + 80 + len(pattern) * i for i in range(patterns)]
    sample_data_offset = pattern_offsets[-1] + len(pattern)
    header += struct.pack("<HI", len(message), message_offset) + bytes(4)
    header += bytes([32] * 4 + [160] * 60) + bytes([64] * 64)
    assert len(header) == 192
    out = header + bytes(orders)
    out += struct.pack("<I", instrument_offset)
    out += b"".join(struct.pack("<I", o) for o in sample_offsets)
    out += b"".join(struct.pack("<I", o) for o in pattern_offsets)
    out += message
    inst = b"IMPI" + pad("LEAD.ITI", 12) + bytes([0, 0, 0, 0]) + struct.pack("<H", 0) + bytes([0, 60, 128, 32 | 0x80, 0, 0])
    inst += struct.pack("<H", 0x0214) + bytes([2, 0]) + pad("Lead instrument", 26) + bytes([0, 0, 0, 0]) + struct.pack("<H", 0)
    inst += b"".join(bytes([note, 1]) for note in range(120))
    inst += bytes(82 * 3) + bytes(4)
    assert len(inst) == 554, len(inst)
    out += inst
    sample = bytes((i * 8) & 0x7F for i in range(32))
    for index, name in enumerate(["lead sample", "lead high"]):
        smp = b"IMPS" + pad("LEAD%d.ITS" % index, 12) + bytes([0, 64, 0x01, 64]) + pad(name, 26) + bytes([1, 32])
        smp += struct.pack("<IIIIIII", len(sample), 0, 0, 8363, 0, 0, sample_data_offset + 32 * index) + bytes(4)
        assert len(smp) == 80
        out += smp
    for _ in range(patterns):
        out += pattern
    return out + sample + sample


def main():
    outdir = sys.argv[1]
    for name, make in [("module.mod", mod), ("module.s3m", s3m), ("module.xm", xm), ("module.it", it)]:
        with open(os.path.join(outdir, name), "wb") as handle:
            handle.write(make())


if __name__ == "__main__":
    main()
