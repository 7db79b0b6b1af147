#!/usr/bin/env python3
"""Makes a varied corpus for scripts/agree-mutagen.py in OUTDIR (which must be empty or new).

    scripts/agree-corpus.py [--seed N] OUTDIR

Real encoders where they are installed (wavpack incl. hybrid with a correction
file, float and DSD input; mpcenc SV8; ffmpeg for WMA v1/v2, WMV, AC-3,
E-AC-3, ADTS, TrueAudio and WavPack, and for Ogg: Theora + Vorbis with
different tags per stream, Theora + Opus, Theora alone, Vorbis, Opus, FLAC and
Speex alone, a chained file, audio-first files with Theora after Vorbis,
Opus or Speex; Vorbis and Opus tags and pictures by mutagen), hand-built streams where Debian has no
encoder (Monkey's Audio, OptimFROG, TAK, Musepack SV7, DSF, DSDIFF), then
tags written by mutagen (APEv2 with binary and external items, several
values and case variants, APEv1 by hand; ASF with every attribute type,
Metadata Library values, language indexes and stream numbers, WM/Picture;
ID3v2 on DSF, DSDIFF and TrueAudio), by ffmpeg (-metadata) and by wvtag; and
damaged copies (truncations, lying item counts, header sizes past the end, a
damaged APE header with a good footer, a bad WavPack block in the middle, a
DSF tag pointer past the end) in OUTDIR/damaged. Tools that are missing are
skipped with a line on stderr (with --strict they are an error); exit status 1
if a tool that is present fails.
The damage is seeded (--seed, printed).
"""

import argparse
import os
import random
import shutil
import struct
import subprocess
import sys

import mutagen
import mutagen.apev2
import mutagen.asf
import mutagen.dsdiff
import mutagen.dsf
import mutagen.id3
from mutagen.apev2 import APEValue, BINARY, EXTERNAL, TEXT

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005fe02fea7d6a0a40000000049454e44ae426082")
JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 3 + b"\xff\xd9"


def have(tool):
    return shutil.which(tool) is not None


def run(*command):
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def ffmpeg(*args):
    run("ffmpeg", "-nostdin", "-v", "error", "-y", *args)


def sine(path, seconds=1.0, channels=2, rate=44100, codec="pcm_s16le"):
    ffmpeg("-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}:sample_rate={rate}",
           "-ac", str(channels), "-c:a", codec, path)


# MARK: hand-built streams (the layouts of Tests/.../APEBuilder.swift and DSDBuilder.swift)

def le16(v): return struct.pack("<H", v)
def le32(v): return struct.pack("<I", v & 0xFFFFFFFF)
def le64(v): return struct.pack("<Q", v)
def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v)
def be64(v): return struct.pack(">Q", v)


def payload(count, seed=1):
    return bytes((i * 31 + seed) & 0xFF for i in range(count))


def monkeys_audio(frames=2, last=10000, bits=16, channels=2, rate=44100):
    header = b"MAC " + le16(3990) + le16(0) + le32(52) + le32(24) + le32(8) + le32(0) + le32(400) + le32(0) + le32(0)
    header += b"\xab" * 16
    header += le16(2000) + le16(0) + le32(73728) + le32(last) + le32(frames) + le16(bits) + le16(channels) + le32(rate)
    return header + le32(0) + le32(200) + payload(400)


def monkeys_audio_old():
    header = b"MAC " + le16(3970) + le16(2000) + le16(8) + le16(1) + le32(22050) + le32(0) + le32(0) + le32(1) + le32(11025)
    return header + payload(300)


def optimfrog(samples=176400, channels=2, rate=44100):
    header = b"OFR " + le32(15) + le32(samples) + le16(0) + bytes([2, channels - 1]) + le32(rate) + le16(0x0123) + b"\0"
    return header + payload(300)


def tak(samples=96000, rate=48000, bits=24, channels=6):
    field = 2 | samples << 14 | (rate - 6000) << 52 | (bits - 8) << 70 | (channels - 1) << 75
    info = field.to_bytes(10, "little")
    return b"tBaK" + bytes([1, 13, 0, 0]) + info + b"\x11\x22\x33" + bytes(4) + payload(300)


def musepack_sv7(frames=100, rate_index=1):
    return b"MP+" + bytes([0x17]) + le32(frames) + le32(rate_index << 16) + bytes(20) + payload(500)


def dsf(channels=2, rate=2822400, blocks=2, tag=b"", pointer=None):
    data = b"\x69" * (4096 * blocks * channels)
    fmt = b"fmt " + le64(52) + le32(1) + le32(0) + le32(1 if channels == 1 else 2) + le32(channels) + le32(rate)
    fmt += le32(1) + le64(4096 * blocks * 8) + le32(4096) + le32(0)
    chunk = b"data" + le64(12 + len(data)) + data
    offset = 28 + len(fmt) + len(chunk)
    if pointer is None:
        pointer = offset if tag else 0
    return b"DSD " + le64(28) + le64(offset + len(tag)) + le64(pointer) + fmt + chunk + tag


def iff_chunk(name, data):
    return name + be64(len(data)) + data + (b"\0" if len(data) & 1 else b"")


def dff(channels=2, rate=2822400, size=16384, after=b""):
    ids = [b"SLFT", b"SRGT", b"C   ", b"LFE ", b"LS  ", b"RS  "]
    chnl = be16(channels) + b"".join(ids[i % 6] for i in range(channels))
    cmpr = b"DSD " + bytes([14]) + b"not compressed"
    prop = iff_chunk(b"PROP", b"SND " + iff_chunk(b"FS  ", be32(rate)) + iff_chunk(b"CHNL", chnl) + iff_chunk(b"CMPR", cmpr))
    body = iff_chunk(b"FVER", be32(0x01050000)) + prop + iff_chunk(b"DSD ", b"\x69" * size) + after
    return b"FRM8" + be64(len(body) + 4) + b"DSD " + body


def ape_item(key, value, flags=0):
    return le32(len(value)) + le32(flags) + key.encode() + b"\0" + value


def ape_tag(items, version=2000, header=True, count=None, size=None):
    body = b"".join(items)
    size = len(body) + 32 if size is None else size
    count = len(items) if count is None else count
    head = b"APETAGEX" + le32(version) + le32(size) + le32(count) + le32(0xA0000000) + bytes(8) if header else b""
    foot = b"APETAGEX" + le32(version) + le32(size) + le32(count) + le32(0x80000000 if header else 0) + bytes(8)
    return head + body + foot


def write(path, data):
    with open(path, "wb") as out:
        out.write(data)


# MARK: tags

def tag_ape_rich(path, cover=PNG):
    tag = mutagen.apev2.APEv2()
    tag["Title"] = "Tïtle ✓ 日本"
    tag["Artist"] = ["Ärtist One", "Artist Two"]
    tag["Album"] = "Album"
    tag["Album Artist"] = "Various"
    tag["Composer"] = "Cömposer"
    tag["Comment"] = "a comment\nwith two lines"
    tag["Track"] = "3/12"
    tag["Disc"] = "1/2"
    tag["Year"] = "2021-05-03"
    tag["Genre"] = "Shoegaze"
    tag["Custom"] = "keep me"
    tag["Cover Art (Front)"] = APEValue(b"cover.png\0" + cover, BINARY)
    tag["Cover Art (Back)"] = APEValue(b"back.jpg\0" + JPEG, BINARY)
    tag["Blob"] = APEValue(b"\x00\x01\xff", BINARY)
    tag["Link"] = APEValue("http://example.com/ü", EXTERNAL)
    tag.save(path)


def tag_ape_plain(path):
    tag = mutagen.apev2.APEv2()
    tag["TITLE"] = "upper case keys"
    tag["ARTIST"] = "Artist"
    tag["TRACK"] = "7"
    tag["YEAR"] = "1999"
    tag["GENRE"] = "Rock"
    tag.save(path)


def tag_ape_odd(path):
    """Odd but legal values: a track with no total, '/N', empty values, a
    text item with an empty value among others, a lower-case key, a huge item."""
    tag = mutagen.apev2.APEv2()
    tag["title"] = "lower-case key"
    tag["artist"] = ["", "second after empty"]
    tag["track"] = "04/"
    tag["disc"] = "2"
    tag["comment"] = "x" * 70000
    tag["genre"] = ["Rock", "Pop"]
    tag.save(path)


def append_raw_ape(path, items, version=2000, header=True):
    with open(path, "ab") as out:
        out.write(ape_tag(items, version=version, header=header))


def tag_id3(tags, version=4):
    tags.add(mutagen.id3.TIT2(encoding=3, text="Tïtle ✓"))
    tags.add(mutagen.id3.TPE1(encoding=1, text=["Ärtist", "Second"]))
    tags.add(mutagen.id3.TALB(encoding=0, text="Album"))
    tags.add(mutagen.id3.TPE2(encoding=3, text="Album Artist"))
    tags.add(mutagen.id3.TCOM(encoding=3, text="Composer"))
    tags.add(mutagen.id3.TRCK(encoding=3, text="5/9"))
    tags.add(mutagen.id3.TPOS(encoding=3, text="1/1"))
    tags.add(mutagen.id3.TDRC(encoding=3, text="2020-02-29"))
    tags.add(mutagen.id3.TCON(encoding=3, text="(17)"))
    tags.add(mutagen.id3.COMM(encoding=3, lang="eng", desc="", text="comment ✓"))
    tags.add(mutagen.id3.COMM(encoding=3, lang="eng", desc="other", text="not this"))
    tags.add(mutagen.id3.APIC(encoding=3, mime="image/png", type=3, desc="front", data=PNG))
    tags.add(mutagen.id3.TXXX(encoding=3, desc="CUSTOM", text="keep"))


def asf_picture(data, mime="image/jpeg", kind=3, description=""):
    return (bytes([kind]) + le32(len(data)) + (mime + "\0").encode("utf-16-le")
            + (description + "\0").encode("utf-16-le") + data)


def tag_asf_rich(path):
    f = mutagen.asf.ASF(path)
    f["Title"] = "Tïtle ✓ 日本"
    f["Author"] = ["Ärtist", "Second Artist"]
    f["Description"] = "comment ✓"
    f["Copyright"] = "(c) me"
    f["WM/AlbumTitle"] = "Album"
    f["WM/AlbumArtist"] = "Album Artist"
    f["WM/Composer"] = "Composer"
    f["WM/Genre"] = ["Rock", "Pop"]
    f["WM/Year"] = "2019"
    f["WM/TrackNumber"] = [mutagen.asf.ASFDWordAttribute(4)]
    f["WM/PartOfSet"] = "2/3"
    f["WM/IsCompilation"] = [mutagen.asf.ASFBoolAttribute(True)]
    f["WM/Mood"] = "calm"
    f["WM/SharedUserRating"] = [mutagen.asf.ASFDWordAttribute(99)]
    f["Custom/QWord"] = [mutagen.asf.ASFQWordAttribute(2 ** 40)]
    f["Custom/Word"] = [mutagen.asf.ASFWordAttribute(65535)]
    f["Custom/GUID"] = [mutagen.asf.ASFGUIDAttribute(bytes(range(16)))]
    f["Custom/Bytes"] = [mutagen.asf.ASFByteArrayAttribute(b"\0\1\2\3")]
    f["Custom/Language"] = [mutagen.asf.ASFUnicodeAttribute("Deutsch", language=1)]
    f["Custom/Stream"] = [mutagen.asf.ASFUnicodeAttribute("on stream 1", stream=1)]
    f["Custom/Large"] = [mutagen.asf.ASFByteArrayAttribute(b"L" * 70000)]
    f["WM/Picture"] = [mutagen.asf.ASFByteArrayAttribute(asf_picture(JPEG)),
                       mutagen.asf.ASFByteArrayAttribute(asf_picture(PNG, "image/png", 4, "back ✓"))]
    f.save()


def tag_asf_track_string(path):
    f = mutagen.asf.ASF(path)
    f["Title"] = "Only the content description"
    f["WM/TrackNumber"] = "7/10"
    f["WM/Track"] = [mutagen.asf.ASFDWordAttribute(6)]
    f.save()


def tag_asf_zero_based(path):
    f = mutagen.asf.ASF(path)
    f["WM/Track"] = [mutagen.asf.ASFDWordAttribute(2)]
    f["WM/AlbumTitle"] = "zero-based track"
    f.save()


# MARK: the corpus

STRICT = False


class MissingTool(Exception):
    pass


def make(out, rng):
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, ".work")
    os.makedirs(work, exist_ok=True)
    made = []

    def path(name):
        made.append(os.path.join(out, name))
        return made[-1]

    def missing(tool):
        if STRICT:
            raise MissingTool(tool)
        print(f"agree-corpus: {tool} not installed, its files skipped", file=sys.stderr)

    wav = os.path.join(work, "a.wav")
    wav_mono24 = os.path.join(work, "m24.wav")
    wav_6 = os.path.join(work, "six.wav")
    wav_float = os.path.join(work, "float.wav")
    wav_short = os.path.join(work, "short.wav")
    wav_48 = os.path.join(work, "a48.wav")
    if not have("ffmpeg"):
        missing("ffmpeg")
        return made
    sine(wav, 1.5)
    sine(wav_mono24, 0.7, channels=1, rate=96000, codec="pcm_s24le")
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1.2", "-af", "pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0",
           "-c:a", "pcm_s16le", wav_6)
    sine(wav_float, 0.5, codec="pcm_f32le")
    sine(wav_short, 0.01)
    sine(wav_48, 2.0, rate=48000)

    # WavPack
    if have("wavpack"):
        for name, source, options in [("wv-plain.wv", wav, []), ("wv-24-96-mono.wv", wav_mono24, []),
                                      ("wv-6ch.wv", wav_6, ["-h"]), ("wv-float.wv", wav_float, []),
                                      ("wv-short.wv", wav_short, []), ("wv-hybrid.wv", wav, ["-b3"]),
                                      ("wv-hybrid-c.wv", wav, ["-b2.5", "-c"]), ("wv-fast.wv", wav_48, ["-f"])]:
            run("wavpack", "-q", "-y", *options, source, "-o", path(name))
        tag_ape_rich(os.path.join(out, "wv-plain.wv"))
        tag_ape_plain(os.path.join(out, "wv-24-96-mono.wv"))
        tag_ape_odd(os.path.join(out, "wv-6ch.wv"))
        tag_ape_rich(os.path.join(out, "wv-hybrid-c.wv"), cover=JPEG)
        dsd_source = os.path.join(work, "src.dsf")
        write(dsd_source, dsf(blocks=3))
        try:
            run("wavpack", "-q", "-y", dsd_source, "-o", path("wv-dsd.wv"))
            tag_ape_plain(os.path.join(out, "wv-dsd.wv"))
        except subprocess.CalledProcessError:
            made.pop()
            if STRICT:
                raise
            print("agree-corpus: this wavpack takes no DSD input, skipped", file=sys.stderr)
        if have("wvtag"):
            target = path("wv-wvtag.wv")
            shutil.copy(os.path.join(out, "wv-fast.wv"), target)
            cover = os.path.join(work, "cover.jpg")
            write(cover, JPEG)
            run("wvtag", "-q", "-w", "Title=wvtag title", "-w", "Artist=wvtag ärtist", "-w", "Track=2/5",
                "-w", "Year=2001", "--write-binary-tag", f"Cover Art (Front)=@{cover}", target)
        else:
            missing("wvtag")
    else:
        missing("wavpack")
    ffmpeg("-i", wav, "-c:a", "wavpack", "-metadata", "title=ffmpeg title", "-metadata", "artist=ffmpeg artist",
           "-metadata", "track=3/4", "-metadata", "date=2011", "-metadata", "album_artist=AA", path("wv-ffmpeg.wv"))

    # Musepack
    if have("mpcenc"):
        run("mpcenc", "--silent", "--overwrite", wav, path("mpc-sv8.mpc"))
        run("mpcenc", "--silent", "--overwrite", "--quality", "3", wav_48, path("mpc-sv8-48k.mpc"))
        tag_ape_rich(os.path.join(out, "mpc-sv8.mpc"))
    else:
        missing("mpcenc")
    write(path("mpc-sv7.mpc"), musepack_sv7())
    write(path("mpc-sv7-tag.mpc"), musepack_sv7(frames=333, rate_index=0))
    tag_ape_plain(os.path.join(out, "mpc-sv7-tag.mpc"))

    # TrueAudio
    ffmpeg("-i", wav, "-c:a", "tta", "-f", "tta", path("tta-plain.tta"))
    ffmpeg("-i", wav_mono24, "-c:a", "tta", "-sample_fmt", "s32", "-f", "tta", path("tta-24.tta"))
    ffmpeg("-i", wav_48, "-c:a", "tta", "-metadata", "title=ffmpeg tta", "-metadata", "artist=someone", "-f", "tta",
           path("tta-ffmpeg-tag.tta"))
    id3 = mutagen.id3.ID3()
    tag_id3(id3)
    id3.save(os.path.join(out, "tta-plain.tta"))
    append_raw_ape(os.path.join(out, "tta-24.tta"), [ape_item("Title", "ape on tta".encode()),
                                                    ape_item("Track", b"9/10")])

    # Monkey's Audio, OptimFROG, TAK (hand-built)
    write(path("ape-3990.ape"), monkeys_audio())
    write(path("ape-3970.ape"), monkeys_audio_old())
    write(path("ape-mono8.ape"), monkeys_audio(frames=1, last=4410, bits=8, channels=1, rate=8000))
    tag_ape_rich(os.path.join(out, "ape-3990.ape"))
    append_raw_ape(os.path.join(out, "ape-3970.ape"),
                   [ape_item("Title", b"APEv1 title"), ape_item("Artist", b"v1 artist"), ape_item("Year", b"1990")],
                   version=1000, header=False)
    append_raw_ape(os.path.join(out, "ape-mono8.ape"),
                   [ape_item("TITLE", b"upper"), ape_item("title", b"lower"), ape_item("Track", b"1/2")])
    write(path("ofr-plain.ofr"), optimfrog())
    write(path("ofr-tag.ofs"), optimfrog(samples=48000, channels=1, rate=48000))
    tag_ape_rich(os.path.join(out, "ofr-tag.ofs"))
    write(path("tak-plain.tak"), tak())
    write(path("tak-tag.tak"), tak(samples=44100 * 3, rate=44100, bits=16, channels=2))
    tag_ape_plain(os.path.join(out, "tak-tag.tak"))

    # ASF
    for name, options in [("wma-v1.wma", ["-c:a", "wmav1"]), ("wma-v2.wma", ["-c:a", "wmav2"]),
                          ("wma-v2-mono.wma", ["-ac", "1", "-c:a", "wmav2", "-b:a", "32k"])]:
        ffmpeg("-i", wav, *options, path(name))
    ffmpeg("-i", wav_48, "-c:a", "wmav2", "-metadata", "title=ffmpeg wma", "-metadata", "author=ffmpeg author",
           "-metadata", "album=ffmpeg album", "-metadata", "genre=Jazz", "-metadata", "track=6",
           "-metadata", "comment=ffmpeg comment", "-metadata", "date=2005", path("wma-ffmpeg-tags.wma"))
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-i", wav, "-shortest",
           "-c:v", "wmv2", "-c:a", "wmav2", "-metadata", "title=video", path("wmv-video.wmv"))
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=32x32:rate=5:duration=1", "-c:v", "wmv1", path("asf-video-only.asf"))
    tag_asf_rich(os.path.join(out, "wma-v2.wma"))
    tag_asf_rich(os.path.join(out, "wmv-video.wmv"))
    tag_asf_track_string(os.path.join(out, "wma-v1.wma"))
    tag_asf_zero_based(os.path.join(out, "wma-v2-mono.wma"))

    # AC-3, E-AC-3, ADTS
    ffmpeg("-i", wav_48, "-c:a", "ac3", path("ac3-stereo.ac3"))
    ffmpeg("-i", wav_6, "-c:a", "ac3", "-b:a", "384k", path("ac3-51.ac3"))
    ffmpeg("-i", wav_48, "-c:a", "eac3", path("eac3-stereo.eac3"))
    ffmpeg("-i", wav, "-c:a", "aac", "-f", "adts", path("aac-lc.aac"))
    ffmpeg("-i", wav_48, "-ac", "1", "-c:a", "aac", "-b:a", "48k", "-f", "adts", path("aac-mono.aac"))
    ffmpeg("-i", wav, "-c:a", "aac", "-f", "adts", "-write_id3v2", "1", "-metadata", "title=adts id3",
           path("aac-id3.aac"))

    # DSF, DSDIFF (hand-built, tagged by mutagen)
    write(path("dsf-plain.dsf"), dsf())
    write(path("dsf-id3.dsf"), dsf(channels=1, rate=5644800, blocks=3))
    f = mutagen.dsf.DSF(os.path.join(out, "dsf-id3.dsf"))
    f.add_tags()
    tag_id3(f.tags)
    f.save()
    write(path("dsf-id3v3.dsf"), dsf(blocks=1))
    f = mutagen.dsf.DSF(os.path.join(out, "dsf-id3v3.dsf"))
    f.add_tags()
    tag_id3(f.tags)
    f.save(v2_version=3)
    write(path("dff-plain.dff"), dff())
    write(path("dff-id3.dff"), dff(channels=6, size=6 * 4096))
    f = mutagen.dsdiff.DSDIFF(os.path.join(out, "dff-id3.dff"))
    f.add_tags()
    tag_id3(f.tags)
    f.save()

    ogg(work, path, missing)
    variants(out, work, wav, path)
    damaged(out, made, rng)
    shutil.rmtree(work)
    return made


def ffmpeg_encodes(name):
    if not have("ffmpeg"):
        return False
    listing = subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True, text=True).stdout
    return any(line.split()[1:2] == [name] for line in listing.splitlines() if line.strip())


def ogg(work, path, missing):
    """Ogg files of about a second each: every codec mutagen reads, multiplexed video, chained links."""
    for encoder in ("libtheora", "libvorbis", "libopus", "libspeex"):
        if not ffmpeg_encodes(encoder):
            missing(f"ffmpeg's {encoder} encoder")
            return
    video = ["-f", "lavfi", "-i", "testsrc=size=32x24:rate=5:duration=1"]

    def audio(seconds=1.0, rate=16000):
        return ["-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}:sample_rate={rate}"]

    tags = ["-metadata", "title=ffmpeg tïtle", "-metadata", "artist=ffmpeg artist", "-metadata", "album=ffmpeg album",
            "-metadata", "date=2004", "-metadata", "genre=Jazz", "-metadata", "comment=by ffmpeg",
            "-metadata", "track=3/9"]
    # Theora + Vorbis: the global tags in both comments, and a title of each stream's own (mutagen: OggTheora).
    ffmpeg(*video, *audio(), "-c:v", "libtheora", "-c:a", "libvorbis", "-ac", "1", *tags,
           "-metadata:s:v", "title=Vïdeo title", "-metadata:s:a", "title=Äudio title", "-metadata:s:a", "composer=audio only",
           path("ogv-theora-vorbis.ogv"))
    ffmpeg(*video, *audio(1.2, 48000), "-c:v", "libtheora", "-c:a", "libopus", "-metadata", "title=theora opus",
           "-metadata:s:a", "artist=opus artist", path("ogv-theora-opus.ogv"))
    ffmpeg(*video, "-c:v", "libtheora", *tags, path("ogv-theora-only.ogv"))
    # Audio first: after a Vorbis or Opus first page the Theora header is still in the first 128 bytes
    # (mutagen: OggTheora); after Speex's it is not (mutagen: OggSpeex).
    ffmpeg(*audio(), *video, "-map", "0:a", "-map", "1:v", "-c:v", "libtheora", "-c:a", "libvorbis", "-ac", "1",
           "-metadata:s:a", "title=vorbis first", "-metadata:s:v", "title=theora second", path("ogv-vorbis-first.ogv"))
    ffmpeg(*audio(1.0, 48000), *video, "-map", "0:a", "-map", "1:v", "-c:v", "libtheora", "-c:a", "libopus",
           "-metadata:s:a", "title=opus first", "-metadata:s:v", "title=theora second", "-f", "ogg",
           path("ogx-opus-first.ogx"))
    ffmpeg(*audio(), *video, "-map", "0:a", "-map", "1:v", "-c:v", "libtheora", "-c:a", "libspeex",
           "-metadata:s:a", "title=speex first", "-metadata:s:v", "title=theora second", path("ogv-speex-first.ogv"))
    # Audio only.
    vorbis = path("oga-vorbis.ogg")
    ffmpeg(*audio(1.0, 22050), "-c:a", "libvorbis", "-ac", "2", vorbis)
    f = mutagen.File(vorbis)
    f.tags.update({"TITLE": ["mutagen vörbis"], "ARTIST": ["one", "two"], "ALBUM": ["an album"], "DATE": ["1999-05-01"],
                   "GENRE": ["Rock"], "DESCRIPTION": ["a description"], "COMPOSER": ["a composer"],
                   "ALBUMARTIST": ["album artist"], "TRACKNUMBER": ["4"], "TRACKTOTAL": ["12"], "DISCNUMBER": ["1/2"]})
    f.tags["METADATA_BLOCK_PICTURE"] = [vorbis_picture(PNG, 3), vorbis_picture(JPEG, 4)]
    f.save()
    opus = path("opus-tagged.opus")
    ffmpeg(*audio(0.8, 48000), "-c:a", "libopus", opus)
    f = mutagen.File(opus)
    f.tags.update({"TITLE": ["mutagen opus"], "ALBUM ARTIST": ["spaced album artist"], "COMMENT": ["opus comment"],
                   "TRACKNUMBER": ["2/5"], "DISCNUMBER": ["2"], "TOTALDISCS": ["3"], "YEAR": ["2011"]})
    f.tags["METADATA_BLOCK_PICTURE"] = [vorbis_picture(JPEG, 3)]
    f.save()
    ffmpeg(*audio(), "-c:a", "flac", "-f", "ogg", *tags, path("oga-flac.oga"))
    ffmpeg(*audio(), "-c:a", "libspeex", *tags, path("spx-speex.spx"))
    # A chained file: two links one after the other (the first link's tags, the last page's granule).
    first, second = os.path.join(work, "link1.ogg"), os.path.join(work, "link2.ogg")
    ffmpeg(*audio(0.7), "-c:a", "libvorbis", "-metadata", "title=first link", first)
    ffmpeg(*audio(0.5), "-c:a", "libvorbis", "-metadata", "title=second link", second)
    with open(path("ogg-chained.ogg"), "wb") as out:
        for link in (first, second):
            with open(link, "rb") as data:
                out.write(data.read())


def vorbis_picture(data, kind):
    """A METADATA_BLOCK_PICTURE value: a FLAC PICTURE block, base64."""
    import base64
    import mutagen.flac
    picture = mutagen.flac.Picture()
    picture.data, picture.type = data, kind
    picture.mime = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
    picture.desc = "cover"
    return base64.b64encode(picture.write()).decode("ascii")


def variants(out, work, wav, path):
    """Tags as other writers leave them, and odd values."""
    if have("wavpack"):
        run("wavpack", "-q", "-y", "-w", "Title=encoder tag", "-w", "Artist=wavpack -w", "-w", "Track=11",
            "-w", "Genre=17", wav, "-o", path("wv-encoder-tags.wv"))
        # APEv2 and ID3v1 both: mutagen reads the APE tag; the ID3v1 tag holds the same title.
        target = path("wv-ape-id3v1.wv")
        run("wavpack", "-q", "-y", wav, "-o", target)
        tag = mutagen.apev2.APEv2()
        tag["Title"] = "ape title"
        tag["Artist"] = "ape artist"
        tag.save(target)
        with open(target, "ab") as f:
            v1 = bytearray(b"TAG" + bytes(125))
            v1[3:3 + 9] = b"ape title"
            v1[33:33 + 10] = b"ape artist"
            v1[127] = 17
            f.write(bytes(v1))
    if have("mpcenc"):
        run("mpcenc", "--silent", "--overwrite", "--title", "mpcenc tïtle", "--artist", "mpcenc artist",
            "--album", "mpcenc album", "--year", "1998", "--track", "4", "--genre", "Ambient", "--comment", "via mpcenc",
            wav, path("mpc-encoder-tags.mpc"))
        # A leading ID3v2 tag (some taggers put one before a Musepack stream) and an APE tag.
        target = path("mpc-id3v2-ape.mpc")
        run("mpcenc", "--silent", "--overwrite", wav, target)
        tag = mutagen.apev2.APEv2()
        tag["Title"] = "after an ID3 tag"
        tag.save(target)
        id3 = mutagen.id3.ID3()
        id3.add(mutagen.id3.TIT2(encoding=3, text="id3 title"))
        id3.save(target)
    # Odd values: numbers as genres, spaces and zeros in track numbers, vinyl sides, several years.
    for index, (track, disc, genre, year) in enumerate([
            ("  3 / 12 ", "01/02", "(17)", "2001"), ("03", "1", "17", "1999-12-31T23:59"),
            ("A1", "2/", "Rock;Pop", "  2005 "), ("0/0", "0", "", "MMXX")]):
        target = path(f"ape-odd-{index}.ape")
        write(target, monkeys_audio())
        tag = mutagen.apev2.APEv2()
        tag["Track"], tag["Disc"], tag["Year"] = track, disc, year
        if genre:
            tag["Genre"] = genre
        tag["Title"] = f"odd {index}"
        tag.save(target)
    # TrueAudio with an ID3v2 and an APE tag: mutagen reads the ID3 tag.
    target = path("tta-id3-and-ape.tta")
    ffmpeg("-i", wav, "-c:a", "tta", "-f", "tta", target)
    id3 = mutagen.id3.ID3()
    id3.add(mutagen.id3.TIT2(encoding=3, text="id3 wins"))
    id3.add(mutagen.id3.TRCK(encoding=3, text="2"))
    id3.save(target)
    append_raw_ape(target, [ape_item("Title", b"ape loses"), ape_item("Album", b"only in ape")])
    # ADTS with an APE tag at the end (ffmpeg's adts muxer option).
    ffmpeg("-i", wav, "-c:a", "aac", "-f", "adts", "-write_apetag", "1", "-metadata", "title=adts ape",
           path("aac-ape.aac"))
    # ASF: a picture too large for the Extended Content Description (mutagen puts it in the
    # Metadata Library), year and track as WM/Year and WM/TrackNumber strings, values in every object.
    target = path("wma-large-picture.wma")
    ffmpeg("-i", wav, "-c:a", "wmav2", target)
    f = mutagen.asf.ASF(target)
    big = b"\xff\xd8\xff\xe0" + bytes(random.Random(7).randrange(256) for _ in range(80000))
    f["WM/Picture"] = [mutagen.asf.ASFByteArrayAttribute(asf_picture(big))]
    f["Title"] = "large picture"
    f["WM/TrackNumber"] = "08"
    f["WM/Year"] = [mutagen.asf.ASFUnicodeAttribute("2010", stream=1)]
    f["WM/AlbumArtist"] = [mutagen.asf.ASFUnicodeAttribute("in the library", language=2)]
    f.save()
    # DSF with an ID3v2.3 tag, a TYER year and a TCON with a number and a name.
    target = path("dsf-id3-odd.dsf")
    write(target, dsf(blocks=1))
    f = mutagen.dsf.DSF(target)
    f.add_tags()
    f.tags.add(mutagen.id3.TIT2(encoding=1, text="v2.3 tïtle"))
    f.tags.add(mutagen.id3.TCON(encoding=0, text="(17)Rock"))
    f.tags.add(mutagen.id3.TRCK(encoding=0, text="7"))
    f.tags.add(mutagen.id3.TYER(encoding=0, text="1987"))
    f.tags.add(mutagen.id3.COMM(encoding=1, lang="deu", desc="", text="Kommentar"))
    f.save(v2_version=3)


def damaged(out, made, rng):
    """Damaged copies in OUT/damaged: each read by mutagen or not, the harness says."""
    folder = os.path.join(out, "damaged")
    os.makedirs(folder, exist_ok=True)

    def read(name):
        with open(os.path.join(out, name), "rb") as source:
            return source.read()

    def put(name, data):
        write(os.path.join(folder, name), data)

    for name in sorted(os.listdir(out)):
        if name.startswith(".") or os.path.isdir(os.path.join(out, name)):
            continue
        data = read(name)
        base, ext = os.path.splitext(name)
        # Truncations: the header only, a seeded point, the last byte gone, 32 bytes gone (an APE footer).
        for label, cut in (("head", min(len(data), 64)), ("cut", rng.randrange(1, len(data))),
                           ("less1", len(data) - 1), ("less32", max(1, len(data) - 32))):
            put(f"{base}-trunc-{label}{ext}", data[:cut])
        # A seeded run of bytes overwritten in the second half.
        start = rng.randrange(len(data) // 2, len(data))
        garbled = bytearray(data)
        for index in range(start, min(len(data), start + 16)):
            garbled[index] = rng.randrange(256)
        put(f"{base}-garbled{ext}", bytes(garbled))

    # APE tag whose item count lies (more items than there are) and whose header is damaged.
    for name in ("wv-plain.wv", "mpc-sv8.mpc", "ape-3990.ape"):
        if not os.path.exists(os.path.join(out, name)):
            continue
        data = read(name)
        base, ext = os.path.splitext(name)
        footer = data.rfind(b"APETAGEX")
        if footer > 0:
            lying = bytearray(data)
            struct.pack_into("<I", lying, footer + 16, 1000)
            put(f"{base}-ape-count-lies{ext}", bytes(lying))
            fewer = bytearray(data)
            struct.pack_into("<I", fewer, footer + 16, 2)
            put(f"{base}-ape-count-fewer{ext}", bytes(fewer))
            size = struct.unpack_from("<I", data, footer + 12)[0]
            header = footer + 32 - size - 32
            if header >= 0 and data[header:header + 8] == b"APETAGEX":
                broken = bytearray(data)
                broken[header:header + 8] = b"XXXXXXXX"
                put(f"{base}-ape-header-damaged{ext}", bytes(broken))
            broken = bytearray(data)
            struct.pack_into("<I", broken, footer + 12, len(data) * 2)
            put(f"{base}-ape-size-past-start{ext}", bytes(broken))
    # ASF header objects with sizes past the end.
    for name in ("wma-v2.wma", "wmv-video.wmv"):
        data = read(name)
        base, ext = os.path.splitext(name)
        header = bytearray(data)
        struct.pack_into("<Q", header, 16, len(data) * 4)
        put(f"{base}-header-size-past-end{ext}", bytes(header))
        for guid, label in ((mutagen.asf._objects.ExtendedContentDescriptionObject.GUID, "ext-content"),
                            (mutagen.asf._objects.ContentDescriptionObject.GUID, "content"),
                            (mutagen.asf._objects.HeaderExtensionObject.GUID, "header-ext")):
            at = data.find(guid)
            if at > 0:
                broken = bytearray(data)
                struct.pack_into("<Q", broken, at + 16, len(data) * 8)
                put(f"{base}-{label}-size-past-end{ext}", bytes(broken))
                count = bytearray(data)
                if label == "ext-content":
                    struct.pack_into("<H", count, at + 24, 60000)
                    put(f"{base}-{label}-count-lies{ext}", bytes(count))
    # A WavPack block in the middle with a bad header.
    for name in ("wv-plain.wv", "wv-6ch.wv"):
        data = read(name)
        base, ext = os.path.splitext(name)
        blocks = [i for i in range(len(data)) if data[i:i + 4] == b"wvpk"]
        if len(blocks) >= 3:
            broken = bytearray(data)
            middle = blocks[len(blocks) // 2]
            broken[middle:middle + 4] = b"wvXX"
            put(f"{base}-bad-middle-block{ext}", bytes(broken))
            size = bytearray(data)
            struct.pack_into("<I", size, middle + 4, 0x7FFFFFF0)
            put(f"{base}-huge-middle-block{ext}", bytes(size))
    # A DSF whose ID3 pointer is past the end, or into the samples.
    data = read("dsf-id3.dsf")
    for label, pointer in (("past-end", len(data) + 1000), ("into-data", 200), ("huge", 2 ** 63)):
        broken = bytearray(data)
        struct.pack_into("<Q", broken, 20, pointer)
        put(f"dsf-id3-pointer-{label}.dsf", bytes(broken))
    # A DSDIFF with an ID3 chunk size past the end.
    data = read("dff-id3.dff")
    at = data.find(b"ID3 ")
    if at > 0:
        broken = bytearray(data)
        struct.pack_into(">Q", broken, at + 4, 2 ** 40)
        put("dff-id3-size-past-end.dff", bytes(broken))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", metavar="OUTDIR")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--strict", action="store_true", help="a missing tool is an error (the tests)")
    args = parser.parse_args()
    global STRICT
    STRICT = args.strict
    seed = args.seed if args.seed is not None else random.randrange(2 ** 32)
    print(f"agree-corpus: seed {seed}", file=sys.stderr)
    try:
        made = make(args.out, random.Random(seed))
    except MissingTool as error:
        print(f"agree-corpus: {error} is not installed", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:
        print(f"agree-corpus: {' '.join(error.cmd)} failed: {error.stderr.decode(errors='replace')}", file=sys.stderr)
        return 1
    print(f"agree-corpus: {len(made)} files, damaged copies in {os.path.join(args.out, 'damaged')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
