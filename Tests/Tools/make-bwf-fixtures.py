#!/usr/bin/env python3
"""Makes the Broadcast Wave fixtures of Tests/Fixtures (run from the package root).

valid/bwf-ffmpeg.wav          ffmpeg -write_bext 1 (bext version 1)
valid/bwf-field-recorder.wav  hand-built: bext v2 (UMID, loudness), Sound Devices style
                              iXML (NUL-padded), AES46 cart, before `data`
valid/bwf-field-recorder.flac flac --keep-foreign-metadata of the previous file
hostile/wav-bext-short.wav    a bext chunk of 100 bytes (shorter than its 602-byte fixed part)
hostile/wav-ixml-unclosed.wav an iXML document whose root is never closed
"""
import struct, subprocess

def chunk(cid, payload):
    return cid + struct.pack('<I', len(payload)) + payload + (b'\0' if len(payload) % 2 else b'')

def text(value, length):
    raw = value.encode('utf-8')
    assert len(raw) <= length
    return raw + b'\0' * (length - len(raw))

def wave(chunks):
    body = b'WAVE' + b''.join(chunks)
    return b'RIFF' + struct.pack('<I', len(body)) + body

RATE, CHANNELS, BITS = 96000, 2, 24
fmt = chunk(b'fmt ', struct.pack('<HHIIHH', 1, CHANNELS, RATE, RATE * CHANNELS * BITS // 8, CHANNELS * BITS // 8, BITS))
data = chunk(b'data', bytes((i * 7) & 0xFF for i in range(100 * CHANNELS * BITS // 8)))

def bext(description, reference, version=2, history='A=PCM,F=96000,W=24,M=stereo,T=MixPre-6 II\r\n'):
    umid = bytes.fromhex('060A2B340101010501010D4313000000') + bytes(range(1, 17)) + b'\0' * 32
    payload = (text(description, 256) + text('Sound Devices', 32) + text('USSDVKL0123456789', 32)
               + text('2026-11-30', 10) + text('14:05:09', 8) + struct.pack('<Q', reference)
               + struct.pack('<H', version) + umid
               + struct.pack('<hhhhh', -2300, 540, -150, -1820, -2010) + b'\0' * 180 + history.encode())
    return chunk(b'bext', payload)

IXML = """<?xml version="1.0" encoding="UTF-8"?>
<BWFXML>
\t<IXML_VERSION>1.61</IXML_VERSION>
\t<PROJECT>NightShoot</PROJECT>
\t<SCENE>12A</SCENE>
\t<TAKE>3</TAKE>
\t<TAPE>DAY04</TAPE>
\t<CIRCLED>TRUE</CIRCLED>
\t<NOTE>Plane overhead &amp; wind</NOTE>
\t<SPEED>
\t\t<NOTE>Timecode rate 25</NOTE>
\t\t<MASTER_SPEED>25/1</MASTER_SPEED>
\t\t<TIMECODE_RATE>25/1</TIMECODE_RATE>
\t\t<TIMECODE_FLAG>NDF</TIMECODE_FLAG>
\t</SPEED>
\t<TRACK_LIST>
\t\t<TRACK_COUNT>2</TRACK_COUNT>
\t\t<TRACK>
\t\t\t<CHANNEL_INDEX>1</CHANNEL_INDEX>
\t\t\t<INTERLEAVE_INDEX>1</INTERLEAVE_INDEX>
\t\t\t<NAME>Boom</NAME>
\t\t</TRACK>
\t\t<TRACK>
\t\t\t<CHANNEL_INDEX>2</CHANNEL_INDEX>
\t\t\t<INTERLEAVE_INDEX>2</INTERLEAVE_INDEX>
\t\t\t<NAME>Lav 1</NAME>
\t\t</TRACK>
\t</TRACK_LIST>
</BWFXML>
"""

def cart():
    payload = text('0101', 4)
    for value in ['Morning Promo', 'Station Voice', 'CUT123', 'ACME', 'PROMO', '', '...and now the news']:
        payload += text(value, 64)
    payload += text('2026-12-01', 10) + text('06:00:00', 8) + text('2026-12-31', 10) + text('23:59:59', 8)
    payload += text('MetadataKit tests', 64) + text('1.0', 64) + text('', 64)
    payload += struct.pack('<i', 32768)
    timers = [(b'SEGs', 441000), (b'INTs', 48000)] + [(b'\0\0\0\0', 0)] * 6
    payload += b''.join(usage + struct.pack('<I', value) for usage, value in timers)
    payload += b'\0' * 276 + text('https://example.com/cut123', 1024) + b'<cue>promo</cue>\r\n'
    assert len(payload) == 2048 + 18
    return chunk(b'cart', payload)

recorder = wave([fmt, bext('sSPEED=025.000-ND\r\nsTAKE=3\r\n', 50709 * RATE),
                 chunk(b'iXML', IXML.encode() + b'\0' * 200), cart(), data])
open('Tests/Fixtures/valid/bwf-field-recorder.wav', 'wb').write(recorder)
subprocess.run(['flac', '-s', '-f', '--no-padding', '--keep-foreign-metadata', '-o', 'Tests/Fixtures/valid/bwf-field-recorder.flac',
                'Tests/Fixtures/valid/bwf-field-recorder.wav'], check=True)
subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.01',
                '-ar', '48000', '-c:a', 'pcm_s16le', '-fflags', '+bitexact', '-write_bext', '1',
                '-metadata', 'description=Scene 12 take 3', '-metadata', 'originator=MetadataKit',
                '-metadata', 'originator_reference=USMKT0000000001', '-metadata', 'origination_date=2026-12-05',
                '-metadata', 'origination_time=01:02:03', '-metadata', 'time_reference=172800000',
                '-metadata', 'coding_history=A=PCM,F=48000,W=16,M=mono,T=ffmpeg',
                '-y', 'Tests/Fixtures/valid/bwf-ffmpeg.wav'], check=True)

open('Tests/Fixtures/hostile/wav-bext-short.wav', 'wb').write(
    wave([fmt, chunk(b'bext', text('Short chunk', 100)), data]))
open('Tests/Fixtures/hostile/wav-ixml-unclosed.wav', 'wb').write(
    wave([fmt, chunk(b'iXML', b'<?xml version="1.0"?>\n<BWFXML><SCENE>1</SCENE><TAKE>2'), data]))
