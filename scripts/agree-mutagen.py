#!/usr/bin/env python3
"""Agreement of `mdkit read` with mutagen over a folder of files.

    scripts/agree-mutagen.py [--mdkit PATH] [--json OUT] [--min PERCENT]
                             [--timeout SECONDS] [--all-files] DIR...

For every file under each DIR (by default only the extensions of the formats
below; --all-files takes every file), runs `mdkit read --jsonl --items` and
mutagen, and reports per format:
  - files mutagen reads that mdkit refuses ("refused": the issue's "none
    refused" rule), files mdkit reads that mutagen refuses (for information),
  - crashes and hangs of mdkit (a signal, an exit status above 1, or no answer
    within --timeout seconds per file),
  - per field, how many files agree, in %, over the files where either side
    has a value: title, artist, album, year, trackNumber, trackCount,
    discNumber, discCount, genre, comments, composer, albumArtist, artwork
    (count and byte size of each picture), duration (within 1 ms + 0.5 %),
    sampleRate, channels, bitsPerSample; for Ogg also codec (the main
    stream's codec against mutagen.File's choice of class).
Three kinds of difference are listed apart and left out of the agreement:
  - a property where mutagen differs from mdkit and ffprobe reads what mdkit
    reads (mutagen's WavPack channel count is 1 or 2 from the mono flag; its
    AC-3 LFE bit is read at a fixed place; an ASF file without audio gets the
    video stream's numbers); for a cut AC-3 file ffprobe can't open or
    has no value for, the
    first frame's header read here decides the channels, and a duration
    within the tolerance plus 128 bytes at its bitrate is mutagen's guess
    (its length skips the header fields it read); for a WavPack file, where
    ffprobe does not side with mdkit, WavPack's own decoder (`wvunpack -s`)
    decides the channels and sample rate, and for an ASF file ffprobe can't
    open, exiftool's reading of the stream properties; for a raw AAC or AC-3 stream,
    the duration of its frames walked here decides the duration (mutagen's
    is the bytes after the header at the bitrate, tags at the end included);
  - on a file mdkit reports damage in, a field mdkit reads past the damage
    where mutagen has no value (an APE tag whose item count is smaller than
    its items: mutagen and TagLib stop at the count, mdkit reads the items);
  - a negative length from mutagen (a cut Opus file whose last granule
    position is below the pre-skip) where mdkit has no duration.
With --write, every file mdkit calls editable is copied, its title set with
`mdkit write`, and the copy read by mutagen: the new title must be there and
every other field as mutagen or mdkit read it before ("WRITE" lines
otherwise; a save mdkit refuses, writing nothing, is listed apart).
Exit status: 0 when nothing was refused, no write lost anything, nothing crashed or hung and the
agreement of every format is at least --min (default 99) %; 1 otherwise.

mutagen's side, per format: the APEv2 tag for Monkey's Audio, WavPack,
Musepack, OptimFROG and TAK (mutagen.apev2 keys, case-insensitive); the ID3v2
tag for DSF, DSDIFF and TrueAudio; where a file has several tags, a field
the first lacks is taken from the next (ID3v2, APEv2, ID3v1 at the end, each
as mutagen parses it), as TagLib merges them and mdkit reads them; ASF attributes (Content Description, Extended Content
Description, Metadata and Metadata Library objects, which mutagen merges) for
WMA/WMV/ASF. mutagen's AAC and AC3 classes read no tags: for raw .aac/.ac3
streams the tags are read with mutagen.id3 and mutagen.apev2, and mutagen.ac3 does not skip a
leading ID3 tag, so it is skipped here (as Benchmarks/mutagen-read.py does).
mutagen.File takes a raw AAC/AC-3 stream behind an ID3 tag for MP3: those are
opened with the AAC/AC3 classes by their extension.
Ogg (.ogg .oga .ogv .opus .spx .ogx): mutagen.File's class (OggVorbis,
OggOpus, OggSpeex, OggFLAC, OggTheora: it scores the first 128 bytes, so a
Theora stream whose header starts there wins) and its Vorbis comment: TITLE,
ARTIST, ALBUM, DATE (YEAR), GENRE, COMMENT (DESCRIPTION), COMPOSER,
ALBUMARTIST (ALBUM ARTIST), TRACKNUMBER/DISCNUMBER ("n/N") with
TRACKTOTAL/TOTALTRACKS and DISCTOTAL/TOTALDISCS, METADATA_BLOCK_PICTURE
(count and picture sizes); info.length, sample_rate and channels where the
class has them (OggOpus has no sample rate, OggTheora neither nor channels).
"""

import argparse
import io
import json
import os
import re
import struct
import shutil
import subprocess
import sys

import mutagen
import mutagen.aac
import mutagen.ac3
import mutagen.apev2
import mutagen.asf
import mutagen.id3

EXTENSIONS = {
    ".ape": "ape", ".wv": "wavpack", ".mpc": "musepack", ".mp+": "musepack", ".mpp": "musepack",
    ".tta": "tta", ".ofr": "optimfrog", ".ofs": "optimfrog", ".tak": "tak",
    ".wma": "asf", ".wmv": "asf", ".asf": "asf", ".dsf": "dsf", ".dff": "dsdiff",
    ".aac": "aac", ".adts": "aac", ".ac3": "ac3", ".eac3": "ac3", ".ec3": "ac3",
    ".ogg": "ogg", ".oga": "ogg", ".ogv": "ogg", ".opus": "ogg", ".spx": "ogg", ".ogx": "ogg",
}
TEXT_FIELDS = ["title", "artist", "album", "year", "genre", "comments", "composer", "albumArtist"]
NUMBER_FIELDS = ["trackNumber", "trackCount", "discNumber", "discCount"]
PROPERTY_FIELDS = ["duration", "sampleRate", "channels", "bitsPerSample"]
FIELDS = TEXT_FIELDS + NUMBER_FIELDS + ["artwork"] + PROPERTY_FIELDS + ["codec"]

APE_KEYS = {
    # DATE as well as YEAR: foobar2000 and ffmpeg write the year as DATE.
    "title": ["title"], "artist": ["artist"], "album": ["album"], "year": ["year", "date"],
    "genre": ["genre"], "comments": ["comment"], "composer": ["composer"],
    "albumArtist": ["album artist", "albumartist"],
}
ASF_KEYS = {
    "title": ["Title"], "artist": ["Author"], "album": ["WM/AlbumTitle"], "year": ["WM/Year", "date"],
    "genre": ["WM/Genre"], "comments": ["Description"], "composer": ["WM/Composer"],
    "albumArtist": ["WM/AlbumArtist"],
}
VORBIS_KEYS = {
    "title": ["title"], "artist": ["artist"], "album": ["album"], "year": ["date", "year"],
    "genre": ["genre"], "comments": ["comment", "description"], "composer": ["composer"],
    "albumArtist": ["albumartist", "album artist"],
}
# mutagen.File's Ogg classes and the codec mdkit names for the main stream.
OGG_CLASSES = {"OggVorbis": "Vorbis", "OggOpus": "Opus", "OggSpeex": "Speex", "OggFLAC": "FLAC", "OggTheora": "Theora"}
ID3_KEYS = {
    "title": "TIT2", "artist": "TPE1", "album": "TALB", "composer": "TCOM", "albumArtist": "TPE2",
}


def pair(text):
    """'3/12' -> (3, 12); '3' -> (3, None); anything else -> (None, None), as our model reads it."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:/\s*(\d*)\s*)?", text or "")
    if not match:
        return None, None
    number = int(match.group(1))
    total = int(match.group(2)) if match.group(2) else None
    return (number or None), (total or None)


def ape_fields(tag):
    """Fields from a mutagen.apev2.APEv2 (keys are case-insensitive there)."""
    out = {}
    for field, keys in APE_KEYS.items():
        for key in keys:
            value = tag.get(key)
            if isinstance(value, mutagen.apev2.APETextValue):
                out[field] = list(value)
                break
    for field, key in (("track", "track"), ("disc", "disc")):
        value = tag.get(key)
        if isinstance(value, mutagen.apev2.APETextValue):
            number, total = pair(str(value))
            out[field + "Number"], out[field + "Count"] = number, total
    covers = []
    for key, value in tag.items():
        if key.lower().startswith("cover art (") and isinstance(value, mutagen.apev2.APEBinaryValue):
            data = value.value
            covers.append(len(data) - data.index(b"\0") - 1 if b"\0" in data else len(data))
    out["artwork"] = covers
    return out


def vorbis_fields(tags):
    """Fields from a mutagen Vorbis comment (keys are case-insensitive there)."""
    out = {}
    if tags is None:
        return {"artwork": []}
    for field, keys in VORBIS_KEYS.items():
        for key in keys:
            if tags.get(key):
                out[field] = list(tags.get(key))
                break
    for field, totals in (("track", ("tracktotal", "totaltracks")), ("disc", ("disctotal", "totaldiscs"))):
        values = tags.get(field + "number")
        if values:
            out[field + "Number"], out[field + "Count"] = pair(values[0])
        for key in totals:
            if not out.get(field + "Count") and tags.get(key):
                out[field + "Count"] = pair(tags.get(key)[0])[0]
    covers = []
    for value in tags.get("metadata_block_picture") or []:
        try:
            import base64
            import mutagen.flac
            covers.append(len(mutagen.flac.Picture(base64.b64decode(value)).data))
        except Exception:  # noqa: BLE001 - a picture that doesn't parse is not counted (as mdkit)
            pass
    out["artwork"] = covers
    return out


def asf_values(tags, key):
    return [value for name, value in tags.items() if name == key] if hasattr(tags, "items") else []


def asf_text(values):
    texts = []
    for value in values:
        if isinstance(value, mutagen.asf.ASFUnicodeAttribute):
            texts.append(value.value)
        elif isinstance(value, (mutagen.asf.ASFDWordAttribute, mutagen.asf.ASFQWordAttribute, mutagen.asf.ASFWordAttribute)):
            texts.append(str(value.value))
    return texts


def asf_picture_size(data):
    """WM/Picture: type (1), size (4), MIME (UTF-16 z), description (UTF-16 z), data."""
    if len(data) < 5:
        return None
    size = struct.unpack_from("<I", data, 1)[0]
    offset = 5
    for _ in range(2):
        while offset + 1 < len(data) and data[offset:offset + 2] != b"\0\0":
            offset += 2
        offset += 2
    return size if offset + size <= len(data) else None


def asf_fields(tags):
    out = {}
    for field, keys in ASF_KEYS.items():
        texts = asf_text(sum((list(tags.get(key, [])) for key in keys), []))
        if texts:
            out[field] = texts
    track = asf_text(tags.get("WM/TrackNumber", []))
    if track:
        out["trackNumber"], out["trackCount"] = pair(track[0])
    disc = asf_text(tags.get("WM/PartOfSet", []))
    if disc:
        out["discNumber"], out["discCount"] = pair(disc[0])
    covers = []
    for value in tags.get("WM/Picture", []):
        if isinstance(value, mutagen.asf.ASFByteArrayAttribute):
            size = asf_picture_size(value.value)
            if size is not None:
                covers.append(size)
    out["artwork"] = covers
    return out


def id3_fields(tags):
    out = {}
    for field, key in ID3_KEYS.items():
        frame = tags.get(key)
        if frame is not None and frame.text:
            out[field] = [str(text) for text in frame.text]
    for key in ("TDRC", "TYER"):
        frame = tags.get(key)
        if frame is not None and frame.text:
            out["year"] = [str(text) for text in frame.text]
            break
    genre = tags.get("TCON")
    if genre is not None and genre.genres:
        out["genre"] = list(genre.genres)
    comments = [frame for frame in tags.getall("COMM") if frame.desc == ""]
    if comments and comments[0].text:
        out["comments"] = [str(text) for text in comments[0].text]
    for field, key in (("track", "TRCK"), ("disc", "TPOS")):
        frame = tags.get(key)
        if frame is not None and frame.text:
            out[field + "Number"], out[field + "Count"] = pair(str(frame.text[0]))
    out["artwork"] = [len(frame.data) for frame in tags.getall("APIC")]
    return out


class _Frames:
    """An ID3v1 tag's frames (mutagen.id3._id3v1.ParseID3v1) with the ID3 methods id3_fields uses."""

    def __init__(self, frames):
        self.frames = frames

    def get(self, key):
        return self.frames.get(key)

    def getall(self, key):
        return [frame for name, frame in self.frames.items() if name.split(":")[0] == key]


def id3v1_fields(path):
    """Fields of an ID3v1 tag that is the file's last 128 bytes, as mutagen parses it ({} without one)."""
    from mutagen.id3._id3v1 import find_id3v1  # mutagen's ID3v1 parser
    with open(path, "rb") as fileobj:
        frames, offset = find_id3v1(fileobj)
    # find_id3v1 takes "TAG" anywhere in the last 131 bytes (short tags some old writer left);
    # TagLib's merge, which this stands for, reads only a tag that is the last 128 bytes.
    if offset != -128:
        return {}
    # An APE tag footer that ends the file leaves no ID3v1 tag after it (APEv2: ID3v1 follows the APE
    # tag). find_id3v1 rules out only the "TAG" of an intact APE header 131 bytes from the end; with
    # that header's "APE" damaged it reads the header and footer as an ID3v1 tag (genre from the
    # footer's last byte), which neither TagLib's merge after the APE tag nor mdkit does.
    with open(path, "rb") as fileobj:
        fileobj.seek(-32, 2)
        if fileobj.read(8) == b"APETAGEX":
            return {}
    fields = id3_fields(_Frames(frames)) if frames else {}
    fields.pop("artwork", None)
    # mutagen gives the ID3v1 comment the description "ID3v1 Comment" (id3_fields takes only "").
    comment = frames.get("COMM") if frames else None
    if comment is not None and comment.text and not has_value(fields.get("comments")):
        fields["comments"] = [str(text) for text in comment.text]
    return fields


def ape_file_fields(path):
    try:
        return ape_fields(mutagen.apev2.APEv2(path))
    except mutagen.apev2.APENoHeaderError:
        return {}


def fill(fields, more):
    """Fields of `more` where `fields` has none: the next tag of the file, as TagLib merges them."""
    for field, value in more.items():
        if not has_value(fields.get(field)):
            fields[field] = value
    return fields


def ac3_behind_id3(path):
    try:
        offset = mutagen.id3.ID3(path).size
    except mutagen.id3.ID3NoHeaderError:
        offset = 0
    with open(path, "rb") as fileobj:
        fileobj.seek(offset)
        # AC3Info seeks to byte 2 of the file object: hand it the bytes after the tag.
        return mutagen.ac3.AC3Info(io.BytesIO(fileobj.read()))


def mutagen_read(path, kind):
    """(fields, None) or (None, error text)."""
    try:
        if kind in ("aac", "ac3"):
            info = ac3_behind_id3(path) if kind == "ac3" else mutagen.aac.AAC(path).info
            try:
                fields = id3_fields(mutagen.id3.ID3(path))
            except mutagen.id3.ID3NoHeaderError:
                fields = id3v1_fields(path)
            fill(fields, ape_file_fields(path))
        else:
            f = mutagen.File(path)
            if f is None:
                return None, "mutagen: unknown format"
            info = f.info
            if kind == "asf":
                fields = asf_fields(f.tags or {})
            elif kind == "ogg":
                fields = vorbis_fields(f.tags)
                fields["codec"] = OGG_CLASSES.get(type(f).__name__, type(f).__name__)
            elif kind in ("dsf", "dsdiff", "tta"):
                fields = id3_fields(f.tags) if f.tags is not None else {}
                if kind == "tta":
                    fill(fields, ape_file_fields(path))
                    fill(fields, id3v1_fields(path))
            elif isinstance(f.tags, mutagen.apev2.APEv2):
                fields = fill(ape_fields(f.tags), id3v1_fields(path))
            else:
                fields = id3v1_fields(path)
    except Exception as error:  # noqa: BLE001 - a file mutagen refuses is counted, not fatal
        return None, f"mutagen: {type(error).__name__}: {error}"
    fields["duration"] = getattr(info, "length", None)
    fields["sampleRate"] = getattr(info, "sample_rate", None) or None
    fields["channels"] = getattr(info, "channels", None) or None
    fields["bitsPerSample"] = getattr(info, "bits_per_sample", None) or None
    return fields, None


def ours_fields(entry):
    metadata, properties = entry.get("metadata", {}), entry.get("properties", {})
    out = {}
    for field in TEXT_FIELDS:
        value = metadata.get(field)
        if isinstance(value, dict):  # a genre with a name and an ID3v1 number
            value = value.get("name") or value.get("text")
        if value is not None:
            out[field] = value if isinstance(value, list) else [str(value)]
    for field in NUMBER_FIELDS:
        out[field] = metadata.get(field)
    out["artwork"] = [picture.get("byteCount") for picture in metadata.get("artwork", [])]
    for field in PROPERTY_FIELDS:
        out[field] = properties.get(field)
    if entry.get("format") == "ogg":
        out["codec"] = properties.get("codec")
    return out


def ffprobe(path):
    """The first audio stream's properties as ffprobe reads them ({} without ffprobe or a stream)."""
    if not shutil.which("ffprobe"):
        return {}
    try:
        process = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                                  "stream=codec_type,sample_rate,channels,bits_per_raw_sample,bits_per_sample,"
                                  "duration:format=duration", "-of", "json", path], capture_output=True, timeout=30)
        answer = json.loads(process.stdout or b"{}")
    except (subprocess.TimeoutExpired, ValueError):
        return {}
    streams = answer.get("streams") or []
    audio = [stream for stream in streams if stream.get("codec_type") == "audio"]
    stream = audio[0] if audio else {}

    def number(value, kind=int):
        try:
            return kind(value) or None
        except (TypeError, ValueError):
            return None
    return {"sampleRate": number(stream.get("sample_rate")), "channels": number(stream.get("channels")),
            "bitsPerSample": number(stream.get("bits_per_raw_sample")) or number(stream.get("bits_per_sample")),
            "duration": number(stream.get("duration"), float) or number(answer.get("format", {}).get("duration"), float),
            "hasAudio": bool(audio), "hasStreams": bool(streams)}


# Full-bandwidth channels per acmod (ATSC A/52 Table 5.8); the LFE channel adds one.
AC3_CHANNELS = [2, 1, 2, 3, 3, 4, 4, 5]
# Kbit/s per frmsizecod >> 1 (A/52 Table 5.18).
AC3_BITRATES = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]


def ac3_first_frame(path):
    """The first AC-3 or E-AC-3 syncframe's channels and bitrate, read here (A/52 §5.4 and
    Annex E §2.2): the referee for a cut file ffprobe can't open. {} when there is none."""
    try:
        offset = mutagen.id3.ID3(path).size
    except (mutagen.id3.ID3NoHeaderError, mutagen.MutagenError):
        offset = 0
    with open(path, "rb") as fileobj:
        fileobj.seek(offset)
        data = fileobj.read(1 << 16)
    start = data.find(b"\x0b\x77")
    if start < 0 or len(data) < start + 12:
        return {}
    bits = int.from_bytes(data[start + 2:start + 12], "big")
    position = [80]

    def take(count):
        position[0] -= count
        return (bits >> position[0]) & ((1 << count) - 1)
    if (data[start + 5] >> 3) <= 10:  # AC-3: crc1, fscod, frmsizecod, then the BSI
        take(16)
        fscod, frmsizecod = take(2), take(6)
        take(8)  # bsid, bsmod
        acmod = take(3)
        if acmod & 1 and acmod != 1:
            take(2)  # cmixlev
        if acmod & 4:
            take(2)  # surmixlev
        if acmod == 2:
            take(2)  # dsurmod
        lfeon = take(1)
        if fscod == 3 or frmsizecod >> 1 >= len(AC3_BITRATES):
            return {}
        return {"channels": AC3_CHANNELS[acmod] + lfeon, "bitrate": AC3_BITRATES[frmsizecod >> 1] * 1000}
    take(5)  # E-AC-3: strmtyp, substreamid
    frame_bytes = (take(11) + 1) * 2
    fscod = take(2)
    if fscod == 3:  # fscod2 gives a half rate; six blocks
        rate, blocks = [24000, 22050, 16000, 0][take(2)], 6
    else:
        rate, blocks = [48000, 44100, 32000][fscod], [1, 2, 3, 6][take(2)]
    acmod, lfeon = take(3), take(1)
    if not rate:
        return {"channels": AC3_CHANNELS[acmod] + lfeon}
    return {"channels": AC3_CHANNELS[acmod] + lfeon, "bitrate": frame_bytes * 8 * rate // (blocks * 256)}


# AC-3 frame sizes in 16-bit words per frmsizecod, at 48 and 32 kHz (A/52 Table 5.18); at
# 44.1 kHz the size is AC3_WORDS_44K[frmsizecod >> 1] plus the low bit of frmsizecod.
AC3_WORDS_48K = [64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1152, 1280]
AC3_WORDS_32K = [96, 120, 144, 168, 192, 240, 288, 336, 384, 480, 576, 672, 768, 960, 1152, 1344, 1536, 1728, 1920]
AC3_WORDS_44K = [69, 87, 104, 121, 139, 174, 208, 243, 278, 348, 417, 487, 557, 696, 835, 975, 1114, 1253, 1393]
ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]


def raw_stream_duration(path, kind):
    """The duration of a raw AAC (ADTS) or AC-3/E-AC-3 stream by walking its frames here (after a
    leading ID3v2 tag, up to the first byte that is no frame): the referee for mutagen's length,
    which is the bytes after the header at the first frame's bitrate (its documentation calls it
    a guess). None when no frame is found."""
    with open(path, "rb") as fileobj:
        data = fileobj.read(64 << 20)
    position = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        position = 10 + (data[6] << 21 | data[7] << 14 | data[8] << 7 | data[9])
    samples = {}
    while position + 7 <= len(data):
        header = data[position:position + 7]
        if kind == "aac" and header[0] == 0xFF and header[1] & 0xF6 == 0xF0:
            size = (header[3] & 3) << 11 | header[4] << 3 | header[5] >> 5
            index = header[2] >> 2 & 15
            if size < 7 or index >= len(ADTS_RATES):
                break
            rate = ADTS_RATES[index]
            samples[rate] = samples.get(rate, 0) + ((header[6] & 3) + 1) * 1024
        elif kind == "ac3" and header[:2] == b"\x0b\x77":
            if header[5] >> 3 <= 10:  # AC-3
                fscod, code = header[4] >> 6, header[4] & 0x3F
                if fscod == 3 or code >> 1 >= len(AC3_WORDS_48K):
                    break
                words = [AC3_WORDS_48K[code >> 1], AC3_WORDS_44K[code >> 1] + (code & 1), AC3_WORDS_32K[code >> 1]][fscod]
                rate, frame_samples = [48000, 44100, 32000][fscod], 1536
            else:  # E-AC-3: frmsiz, fscod (fscod2), numblkscod; dependent substreams add no time
                words = ((header[2] & 7) << 8 | header[3]) + 1
                fscod = header[4] >> 6
                rate = [48000, 44100, 32000, [24000, 22050, 16000, 0][header[4] >> 4 & 3]][fscod]
                blocks = 6 if fscod == 3 else [1, 2, 3, 6][header[4] >> 4 & 3]
                frame_samples = 0 if header[2] >> 6 == 1 else blocks * 256
                if not rate:
                    break
            size = words * 2
            samples[rate] = samples.get(rate, 0) + frame_samples
        else:
            break
        position += size
    if not samples:
        return None
    return sum(count / rate for rate, count in samples.items())


def exiftool_asf_audio(path):
    """The audio sample rate and channels of an ASF file as exiftool reads its stream properties:
    the referee for a file ffprobe can't open (a cut file). {} without exiftool or an answer."""
    if not shutil.which("exiftool"):
        return {}
    try:
        process = subprocess.run(["exiftool", "-j", "-n", "-AudioSampleRate", "-AudioChannels", path],
                                 capture_output=True, timeout=30)
        answer = (json.loads(process.stdout or b"[]") or [{}])[0]
    except (subprocess.TimeoutExpired, ValueError):
        return {}
    info = {}
    if isinstance(answer.get("AudioSampleRate"), int):
        info["sampleRate"] = answer["AudioSampleRate"]
    if isinstance(answer.get("AudioChannels"), int):
        info["channels"] = answer["AudioChannels"]
    return info


def wvunpack_info(path):
    """Channels and sample rate as WavPack's own decoder reports them (`wvunpack -s`): the referee
    for a WavPack file ffprobe reads otherwise. {} without wvunpack or an answer."""
    if not shutil.which("wvunpack"):
        return {}
    try:
        process = subprocess.run(["wvunpack", "-q", "-s", path], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return {}
    text = (process.stdout + process.stderr).decode("utf-8", "replace")
    info = {}
    channels = re.search(r"^channels:\s+(\d+)", text, re.MULTILINE)
    rate = re.search(r"^source:.* at (\d+) Hz", text, re.MULTILINE)
    if channels:
        info["channels"] = int(channels.group(1))
    if rate:
        info["sampleRate"] = int(rate.group(1))
    return info


def referee(path, kind, field, ours, theirs, probe):
    """What decides for mdkit where ffprobe did not (a dict naming the referee and its reading),
    or None:
    - a WavPack file: WavPack's own decoder (channels, sample rate);
    - an ASF file ffprobe can't open: exiftool's reading of its stream properties;
    - a raw AAC or AC-3 stream's duration: its frames walked here (mutagen's length is a bitrate
      guess over every byte after the header, an APE tag at the end too);
    - a cut AC-3 file ffprobe can't open or has no value for: its first frame's channels (mutagen
      reads the LFE bit at a fixed place), and a duration within the tolerance plus the first 128
      bytes at the bitrate (mutagen's length, which its documentation calls a guess, skips the
      header fields it read)."""
    if ours is None:
        return None
    if field in ("channels", "sampleRate") and (kind == "wavpack" or (kind == "asf" and not probe.get("hasStreams"))):
        reading = wvunpack_info(path) if kind == "wavpack" else exiftool_asf_audio(path)
        if reading.get(field) == ours:
            return {"wvunpack -s" if kind == "wavpack" else "exiftool": reading}
    if kind in ("aac", "ac3") and field == "duration":
        walked = raw_stream_duration(path, kind)
        if walked is not None and abs(walked - ours) <= 0.001:
            return {"frames walked": round(walked, 6)}
    if kind == "ac3" and (not probe.get("hasStreams") or probe.get(field) is None):
        frame = ac3_first_frame(path)
        if frame and ((field == "channels" and ours == frame.get("channels")) or (
                field == "duration" and frame.get("bitrate")
                and abs(ours - theirs) <= 0.001 + 0.005 * theirs + 8 * 128 / frame["bitrate"])):
            return frame
    return None


def agree(field, ours, theirs):
    if field in TEXT_FIELDS:
        # An empty value is no value (mutagen keeps empty strings between zero bytes).
        ours = [text for text in ours or [] if text]
        theirs = [text for text in theirs or [] if text]
        if ours == theirs:
            return True
        # A single-valued field of ours holding several of mutagen's values.
        return len(ours) == 1 and len(theirs) > 1 and ours[0] in (" / ".join(theirs), "; ".join(theirs), theirs[0])
    if field == "artwork":
        return (ours or []) == (theirs or [])
    if field == "duration":
        if ours is None or theirs is None:
            return ours is None and (theirs is None or theirs == 0)
        return abs(ours - theirs) <= 0.001 + 0.005 * theirs
    return ours == theirs


def has_value(value):
    return value not in (None, [], "", 0) and not (isinstance(value, list) and not any(value))


def run_mdkit(mdkit, paths, timeout):
    """{path: entry or {"crash": text}} reading the paths in batches, one by one where a batch fails."""
    results = {}

    def batch(group, seconds):
        try:
            process = subprocess.run([mdkit, "read", "--jsonl", "--items", "-0", "-"],
                                     input=b"\0".join(p.encode() for p in group), capture_output=True,
                                     timeout=seconds)
        except subprocess.TimeoutExpired:
            return None, "hang (no answer within %gs)" % seconds
        if process.returncode not in (0, 1):
            return None, "exit status %d: %s" % (process.returncode, process.stderr.decode(errors="replace")[-300:])
        # One JSON object a line; split on "\n" only (splitlines also splits at U+0085 and U+2028,
        # which a key read from a damaged tag may hold, unescaped as JSON allows).
        lines = [line for line in process.stdout.decode(errors="replace").split("\n") if line.strip()]
        if len(lines) != len(group):
            return None, "%d answers for %d files" % (len(lines), len(group))
        return [json.loads(line) for line in lines], None

    for start in range(0, len(paths), 64):
        group = paths[start:start + 64]
        entries, error = batch(group, timeout * len(group))
        if entries is not None:
            results.update(zip(group, entries))
            continue
        for path in group:
            entries, error = batch([path], timeout)
            results[path] = entries[0] if entries else {"crash": error}
    return results


WRITE_TITLE = "agree ✓ written"


def write_check(mdkit, path, kind, before, ours, timeout):
    """Copies the file, sets its title with `mdkit write`, and reads the copy with mutagen:
    [] when the title is the new one and every other field is as mutagen or mdkit read it
    before (a damaged tag mdkit read more of is written whole), else the differences
    (field, before, after); [("write", "refused", reason)] when mdkit refused the save."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="agree-write-") as folder:
        copy = os.path.join(folder, "copy" + os.path.splitext(path)[1])
        shutil.copyfile(path, copy)
        try:
            process = subprocess.run([mdkit, "write", copy, "--set", "title=" + WRITE_TITLE, "--quiet"],
                                     capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [("write", "hang", None)]
        if process.returncode != 0:
            return [("write", "refused", process.stderr.decode(errors="replace").strip()[-200:])]
        after, error = mutagen_read(copy, kind)
    if after is None:
        return [("read after write", None, error)]
    changes = []
    for field in FIELDS:
        if field == "title":
            if not agree("title", [WRITE_TITLE], after.get("title")):
                changes.append((field, WRITE_TITLE, after.get("title")))
        elif field != "duration" and not agree(field, before.get(field), after.get(field)) and not (
                field not in PROPERTY_FIELDS and agree(field, ours.get(field), after.get(field))):
            changes.append((field, before.get(field), after.get(field)))
    if before.get("duration") and not agree("duration", before.get("duration"), after.get("duration")):
        changes.append(("duration", before.get("duration"), after.get("duration")))
    return changes


def collect(directories, all_files):
    paths = []
    for directory in directories:
        for root, dirs, files in os.walk(directory):
            dirs.sort()
            for name in sorted(files):
                ext = os.path.splitext(name)[1].lower()
                if all_files or ext in EXTENSIONS:
                    paths.append(os.path.join(root, name))
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directories", nargs="+", metavar="DIR")
    parser.add_argument("--mdkit", default=os.environ.get("MDKIT", "mdkit"))
    parser.add_argument("--json", help="also write the whole report as JSON to this file")
    parser.add_argument("--min", type=float, default=99.0, help="lowest agreement in %% per format (99)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per file before a hang (10)")
    parser.add_argument("--all-files", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="only the summary, not each disagreement")
    parser.add_argument("--write", action="store_true",
                        help="also write a title into a copy of every file mdkit calls editable and check with "
                             "mutagen that it is there and every other field is unchanged")
    args = parser.parse_args()

    paths = collect(args.directories, args.all_files)
    ours_by_path = run_mdkit(args.mdkit, paths, args.timeout)
    formats = {}
    problems = {"refused": [], "crashed": [], "disagreements": [], "mutagenRefused": [], "ffprobeSidesWithMdkit": [], "frameSidesWithMdkit": [],
                "mdkitReadsMore": [], "negativeLength": [], "writeProblems": [],
                "writeRefused": []}

    for path in paths:
        kind = EXTENSIONS.get(os.path.splitext(path)[1].lower(), "other")
        ours = ours_by_path[path]
        theirs, their_error = mutagen_read(path, kind)
        if "crash" in ours:
            problems["crashed"].append({"path": path, "error": ours["crash"]})
            kind = ours.get("format", kind)
        stats = formats.setdefault(kind, {"files": 0, "mutagenRead": 0, "refused": 0, "crashed": 0,
                                          "compared": 0, "agreed": 0, "fields": {}})
        stats["files"] += 1
        if "crash" in ours:
            stats["crashed"] += 1
            continue
        if theirs is None:
            if "error" not in ours:
                problems["mutagenRefused"].append({"path": path, "error": their_error})
            continue
        stats["mutagenRead"] += 1
        if "error" in ours:
            stats["refused"] += 1
            problems["refused"].append({"path": path, "error": ours["error"]})
            continue
        mine = ours_fields(ours)
        if args.write and ours.get("editable"):
            stats["written"] = stats.get("written", 0) + 1
            for field, was, now in write_check(args.mdkit, path, kind, theirs, mine, args.timeout):
                if was == "refused":  # a save refused (nothing written) is safe: listed, not a failure
                    stats["writeRefused"] = stats.get("writeRefused", 0) + 1
                    problems["writeRefused"].append({"path": path, "error": now})
                    continue
                stats["writeProblems"] = stats.get("writeProblems", 0) + 1
                problems["writeProblems"].append({"path": path, "field": field, "before": was, "after": now})
        probe = None
        for field in FIELDS:
            a, b = mine.get(field), theirs.get(field)
            if not has_value(a) and not has_value(b):
                continue
            if field in PROPERTY_FIELDS and not has_value(b):
                continue  # a property mutagen does not report for this format
            if field in PROPERTY_FIELDS and not agree(field, a, b):
                # ffprobe decides between the two: where it reads what we read, mutagen is wrong
                # (each case is listed, and left out of the agreement).
                probe = ffprobe(path) if probe is None else probe
                # mutagen gives an ASF file without audio the video stream's numbers: ffprobe says
                # there is no audio, or (a cut file ffprobe can't open) mdkit lists only video streams.
                kinds = [stream.get("kind") for stream in (ours.get("properties") or {}).get("streams") or []]
                no_audio = (probe.get("hasStreams") and not probe.get("hasAudio")) or (
                    not probe.get("hasStreams") and kind == "asf" and kinds and "audio" not in kinds)
                sides = (a is not None and probe.get("hasAudio") and agree(field, a, probe.get(field))) or (
                    a is None and field == "sampleRate" and no_audio)
                if sides:
                    problems["ffprobeSidesWithMdkit"].append({"path": path, "field": field, "mdkit": a,
                                                              "mutagen": b, "ffprobe": probe.get(field)})
                    stats["ffprobeSidesWithMdkit"] = stats.get("ffprobeSidesWithMdkit", 0) + 1
                    continue
                reference = referee(path, kind, field, a, b, probe)
                if reference:
                    problems["frameSidesWithMdkit"].append({"path": path, "field": field, "mdkit": a,
                                                            "mutagen": b, "frame": reference})
                    stats["frameSidesWithMdkit"] = stats.get("frameSidesWithMdkit", 0) + 1
                    continue
            if field == "duration" and a is None and b is not None and b < 0:
                # mutagen's length of a cut Opus file whose last granule is below the pre-skip is
                # negative; mdkit has no duration there. Listed, left out of the agreement.
                problems["negativeLength"].append({"path": path, "mutagen": b})
                stats["negativeLength"] = stats.get("negativeLength", 0) + 1
                continue
            if not has_value(b) and ours.get("warnings"):
                # A damaged file (mdkit warns) where mdkit reads a value past the damage and mutagen
                # stops (e.g. an APE item count smaller than the items): listed, left out of the agreement.
                problems["mdkitReadsMore"].append({"path": path, "field": field, "mdkit": a})
                stats["mdkitReadsMore"] = stats.get("mdkitReadsMore", 0) + 1
                continue
            counts = stats["fields"].setdefault(field, [0, 0])
            counts[1] += 1
            stats["compared"] += 1
            if agree(field, a, b):
                counts[0] += 1
                stats["agreed"] += 1
            else:
                problems["disagreements"].append({"path": path, "field": field, "mdkit": a, "mutagen": b})

    ok = not problems["refused"] and not problems["crashed"] and not problems["writeProblems"]
    print("%-10s %6s %8s %8s %8s %9s" % ("format", "files", "mutagen", "refused", "crashed", "agree %"))
    for kind, stats in sorted(formats.items()):
        percent = 100.0 * stats["agreed"] / stats["compared"] if stats["compared"] else 100.0
        stats["percent"] = percent
        ok = ok and percent >= args.min
        print("%-10s %6d %8d %8d %8d %9.2f" % (kind, stats["files"], stats["mutagenRead"], stats["refused"],
                                             stats["crashed"], percent))
        weak = ["%s %d/%d" % (field, a, n) for field, (a, n) in sorted(stats["fields"].items()) if a < n]
        if weak:
            print("           fields below 100 %%: %s" % ", ".join(weak))
        if args.write:
            print("           written: %d, refused: %d, with a problem: %d" % (
                stats.get("written", 0), stats.get("writeRefused", 0), stats.get("writeProblems", 0)))
    if not args.quiet:
        for item in problems["refused"]:
            print("REFUSED  %s: %s" % (item["path"], item["error"]))
        for item in problems["crashed"]:
            print("CRASHED  %s: %s" % (item["path"], item["error"]))
        for item in problems["disagreements"]:
            print("DIFFERS  %s: %s: mdkit %r, mutagen %r" % (item["path"], item["field"], item["mdkit"],
                                                            item["mutagen"]))
        for item in problems["writeProblems"]:
            print("WRITE    %s: %s: before %r, after %r" % (item["path"], item["field"], item["before"], item["after"]))
        for item in problems["writeRefused"]:
            print("(write refused, nothing written) %s: %s" % (item["path"], item["error"]))
        for item in problems["ffprobeSidesWithMdkit"]:
            print("(mutagen differs, ffprobe reads as mdkit) %s: %s: mdkit %r, mutagen %r, ffprobe %r"
                  % (item["path"], item["field"], item["mdkit"], item["mutagen"], item["ffprobe"]))
        for item in problems["frameSidesWithMdkit"]:
            print("(mutagen differs, ffprobe can't decide, a referee sides with mdkit) %s: %s: mdkit %r, "
                  "mutagen %r, %r" % (item["path"], item["field"], item["mdkit"], item["mutagen"], item["frame"]))
        for item in problems["negativeLength"]:
            print("(mutagen's length is negative, mdkit has none) %s: mutagen %r" % (item["path"], item["mutagen"]))
        for item in problems["mdkitReadsMore"]:
            print("(damaged: mdkit reads past the damage, mutagen has no value) %s: %s: mdkit %r"
                  % (item["path"], item["field"], item["mdkit"]))
        for item in problems["mutagenRefused"]:
            print("(mutagen refuses, mdkit reads) %s: %s" % (item["path"], item["error"]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"formats": formats, **problems}, out, indent=1, default=str)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
