#!/usr/bin/env python3
"""Builds the read-benchmark corpus from the ffmpeg-made sources (see read-benchmark.sh).

usage: make-corpus.py SOURCE_DIR CORPUS_DIR COUNT [KINDS]

SOURCE_DIR holds audio.mp3, moov-first.m4a, moov-last.m4a, audio.flac, vorbis.ogg,
opus.ogg, audio.wav, audio.aiff, cover.jpg and cover.png, and for the newer kinds
audio.wv, audio.mpc, audio.tta, audio.wma, audio.aac, audio.ac3, audio.mka, video.mkv,
video.webm and chapters.ffmeta (made by corpus.sh); audio.dsf is made here (no common tool writes DSF).
Writes COUNT files, split evenly over the kinds (the nine first ones, or the comma-separated KINDS),
into CORPUS_DIR/<kind>/NNNNN.<ext>:

  mp3-id3v23   MP3, ID3v2.3 tag, JPEG cover
  mp3-id3v24   MP3, ID3v2.4 tag, PNG cover
  m4a-first    MP4/AAC, moov before mdat (faststart), JPEG cover on even, PNG on odd numbers
  m4a-last     MP4/AAC, moov after mdat (ffmpeg's default), PNG cover on even, JPEG on odd
  flac         FLAC, Vorbis comment, JPEG cover in a PICTURE block
  ogg-vorbis   Ogg Vorbis, Vorbis comment, PNG cover as METADATA_BLOCK_PICTURE
  ogg-opus     Ogg Opus, OpusTags, JPEG cover as METADATA_BLOCK_PICTURE
  wav          RIFF/WAVE PCM, ID3v2.4 tag in an "id3 " chunk, JPEG cover
  aiff         AIFF PCM, ID3v2.4 tag in an "ID3 " chunk, PNG cover
  wavpack      WavPack, APEv2 tag, JPEG cover as "Cover Art (Front)"
  musepack     Musepack SV8 (mpcenc), APEv2 tag, PNG cover
  tta          TrueAudio, ID3v2.4 tag at the front (the tag TagLib and mutagen use), JPEG cover
  wma          ASF/WMA v2, Content Description + Extended Content Description, PNG WM/Picture
  aac          raw AAC (ADTS), ID3v2.4 tag at the front, JPEG cover
  ac3          AC-3, ID3v2.4 tag at the front, PNG cover
  dsf          DSF (hand-built, 1 channel, 2.8224 MHz DSD), ID3v2.4 tag at the end, JPEG cover
  mka          Matroska audio (Vorbis), ffmpeg-written tags and a PNG cover attachment
  mkv          Matroska video (H.264 + Vorbis), ffmpeg-written tags, 3 chapters and a PNG
               cover attachment, remuxed by mkvmerge (its layout)
  webm         WebM (VP8 + Opus), ffmpeg-written tags and 3 chapters, no cover (WebM has no
               attachments; cover byte count 0 in the manifest)

Each file gets distinct title/artist/album/genre/year/track/disc/comment values,
some of them non-ASCII (the same values whatever the tag format). CORPUS_DIR/manifest.tsv lists, one line per file:
path, kind, title, artist, album, cover byte count (paths relative to the current
directory, as passed). After writing, every file's layout is checked (ID3v2 major
version, top-level MP4 box order, the tag and picture mutagen reads back for the other
kinds); a mismatch is an error.
"""

import base64
import os
import shutil
import struct
import sys

import mutagen.aac
import mutagen.ac3
import mutagen.aiff
import mutagen.musepack
import mutagen.wave
import mutagen.wavpack
from mutagen.flac import FLAC, Picture
from mutagen.oggopus import OggOpus
from mutagen.oggvorbis import OggVorbis

from mutagen.id3 import APIC, COMM, ID3, TALB, TCON, TDRC, TIT2, TPE1, TPE2, TPOS, TRCK
from mutagen.mp4 import MP4, MP4Cover

KINDS = ["mp3-id3v23", "mp3-id3v24", "m4a-first", "m4a-last",
         "flac", "ogg-vorbis", "ogg-opus", "wav", "aiff",
         "wavpack", "musepack", "tta", "wma", "aac", "ac3", "dsf", "mka", "mkv", "webm"]
SOURCES = {
    "mp3-id3v23": "audio.mp3", "mp3-id3v24": "audio.mp3",
    "m4a-first": "moov-first.m4a", "m4a-last": "moov-last.m4a",
    "flac": "audio.flac", "ogg-vorbis": "vorbis.ogg", "ogg-opus": "opus.ogg",
    "wav": "audio.wav", "aiff": "audio.aiff",
    "wavpack": "audio.wv", "musepack": "audio.mpc", "tta": "audio.tta", "wma": "audio.wma",
    "aac": "audio.aac", "ac3": "audio.ac3", "dsf": "audio.dsf", "mka": "audio.mka",
    "mkv": "video.mkv", "webm": "video.webm",
}
EXTENSIONS = {"mp3-id3v23": "mp3", "mp3-id3v24": "mp3", "m4a-first": "m4a", "m4a-last": "m4a",
              "flac": "flac", "ogg-vorbis": "ogg", "ogg-opus": "opus", "wav": "wav", "aiff": "aiff",
              "wavpack": "wv", "musepack": "mpc", "tta": "tta", "wma": "wma", "aac": "aac", "ac3": "ac3",
              "dsf": "dsf", "mka": "mka", "mkv": "mkv", "webm": "webm"}

ARTISTS = ["Björk Ensemble", "Sigur Rós Trio", "東京 Quartet", "Mötley Strings",
           "The Plain Band", "Ленинград Collective", "Zoë & the Dots", "Ars Nova"]
GENRES = ["Rock", "Jazz", "Classical", "Électronique", "Hip-Hop", "Folk", "Ambient", "Pop"]


def values(index):
    """The tag values of file number `index` (1-based, unique over the corpus)."""
    artist = f"{ARTISTS[index % len(ARTISTS)]} {index:05d}"
    return {
        "title": f"Título {index:05d} — Ünïcødé ✓" if index % 2 else f"Title {index:05d}",
        "artist": artist,
        "album_artist": ARTISTS[index % len(ARTISTS)],
        "album": f"Ça ira № {index // 10:04d}",
        "genre": GENRES[index % len(GENRES)],
        "year": 1960 + index % 60,
        "track": index % 20 + 1,
        "tracks": 20,
        "disc": index % 3 + 1,
        "discs": 3,
        "comment": f"Benchmark file {index}; 日本語のコメント {index * 7 % 1000}",
    }


def text_values(v):
    """The nine values every tagger below writes, by field, as text ("n/N" for track and disc)."""
    return {"title": v["title"], "artist": v["artist"], "album_artist": v["album_artist"],
            "album": v["album"], "genre": v["genre"], "year": str(v["year"]),
            "track": f"{v['track']}/{v['tracks']}", "disc": f"{v['disc']}/{v['discs']}",
            "comment": v["comment"]}


# Each tag format's key of a field (ID3: the frame class; the comment is a COMM frame).
ID3_FRAMES = {"title": TIT2, "artist": TPE1, "album_artist": TPE2, "album": TALB, "genre": TCON,
              "year": TDRC, "track": TRCK, "disc": TPOS}
MP4_KEYS = {"title": "\xa9nam", "artist": "\xa9ART", "album_artist": "aART", "album": "\xa9alb",
            "genre": "\xa9gen", "year": "\xa9day", "comment": "\xa9cmt"}
VORBIS_KEYS = {"title": "TITLE", "artist": "ARTIST", "album_artist": "ALBUMARTIST", "album": "ALBUM",
               "genre": "GENRE", "year": "DATE", "track": "TRACKNUMBER", "tracks": "TRACKTOTAL",
               "disc": "DISCNUMBER", "discs": "DISCTOTAL", "comment": "COMMENT"}   # numbers alone
APE_KEYS = {"title": "Title", "artist": "Artist", "album_artist": "Album Artist", "album": "Album",
            "genre": "Genre", "year": "Year", "track": "Track", "disc": "Disc", "comment": "Comment"}
ASF_KEYS = {"title": "Title", "artist": "Author", "album_artist": "WM/AlbumArtist",
            "album": "WM/AlbumTitle", "genre": "WM/Genre", "year": "WM/Year",
            "track": "WM/TrackNumber", "disc": "WM/PartOfSet", "comment": "Description"}
FFMPEG_KEYS = {"title": "title", "artist": "artist", "album_artist": "album_artist", "album": "album",
               "genre": "genre", "year": "date", "track": "track", "disc": "disc", "comment": "comment"}


def id3_frames(tags, v, cover, mime):
    text = text_values(v)
    for field, frame in ID3_FRAMES.items():
        tags.add(frame(encoding=3, text=text[field]))
    tags.add(COMM(encoding=3, lang="eng", desc="", text=v["comment"]))
    tags.add(APIC(encoding=3, mime=mime, type=3, desc="Front cover", data=cover))

def tag_mp3(path, v, version, cover, mime):
    tags = ID3()
    id3_frames(tags, v, cover, mime)
    # v2.3 has no UTF-8: mutagen then writes the text frames as UTF-16 and TDRC as TYER.
    tags.save(path, v2_version=version)


def tag_m4a(path, v, cover, image_format):
    f = MP4(path)
    if f.tags is None:
        f.add_tags()
    f.tags.clear()
    text = text_values(v)
    for field, key in MP4_KEYS.items():
        f.tags[key] = [text[field]]
    f.tags["trkn"] = [(v["track"], v["tracks"])]
    f.tags["disk"] = [(v["disc"], v["discs"])]
    f.tags["covr"] = [MP4Cover(cover, imageformat=image_format)]
    f.save()


def tag_riff(path, v, cover, mime, cls):
    """WAV (mutagen.wave.WAVE) or AIFF (mutagen.aiff.AIFF): an ID3v2.4 tag in its chunk."""
    f = cls(path)
    if f.tags is None:
        f.add_tags()
    f.tags.clear()
    id3_frames(f.tags, v, cover, mime)
    f.save(v2_version=4)


def picture(cover, mime):
    pic = Picture()
    pic.type = 3
    pic.mime = mime
    pic.desc = "Front cover"
    pic.data = cover
    pic.width, pic.height, pic.depth = (500, 500, 24) if mime == "image/jpeg" else (240, 240, 24)
    return pic


def vorbis_comment(tags, v):
    for field, key in VORBIS_KEYS.items():
        tags[key] = [str(v[field])]

def tag_flac(path, v, cover, mime):
    f = FLAC(path)
    if f.tags is None:
        f.add_tags()
    f.tags.clear()   # ffmpeg's vendor string stays, its ENCODER comment goes
    f.clear_pictures()
    vorbis_comment(f.tags, v)
    f.add_picture(picture(cover, mime))
    f.save()


def tag_ogg(path, v, cover, mime, cls):
    f = cls(path)
    f.tags.clear()
    vorbis_comment(f.tags, v)
    f.tags["METADATA_BLOCK_PICTURE"] = [base64.b64encode(picture(cover, mime).write()).decode("ascii")]
    f.save()


def tag_ape(path, v, cover, cover_name, cls):
    """WavPack or Musepack: an APEv2 tag at the end, the cover as a binary item."""
    from mutagen.apev2 import APEValue, BINARY
    f = cls(path)
    if f.tags is None:
        f.add_tags()
    f.tags.clear()
    text = text_values(v)
    for field, key in APE_KEYS.items():
        f.tags[key] = text[field]
    f.tags["Cover Art (Front)"] = APEValue(cover_name.encode("ascii") + b"\0" + cover, BINARY)
    f.save()


def tag_id3_front(path, v, cover, mime):
    """TTA, ADTS and AC-3: an ID3v2.4 tag at the front of the stream."""
    tags = ID3()
    id3_frames(tags, v, cover, mime)
    tags.save(path, v2_version=4)


def tag_wma(path, v, cover, mime):
    from mutagen.asf import ASF, ASFByteArrayAttribute
    f = ASF(path)
    f.tags.clear()
    text = dict(text_values(v), track=str(v["track"]))   # WM/TrackNumber holds the number alone
    for field, key in ASF_KEYS.items():
        f.tags[key] = [text[field]]
    # WM/Picture: picture type (1 byte), data length (DWORD LE), MIME and description
    # (UTF-16LE, NUL-terminated), then the data.
    blob = (struct.pack("<bI", 3, len(cover)) + (mime + "\0").encode("utf-16-le")
            + "Front cover\0".encode("utf-16-le") + cover)
    f.tags["WM/Picture"] = [ASFByteArrayAttribute(blob)]
    f.save()


def tag_dsf(path, v, cover, mime):
    from mutagen.dsf import DSF
    f = DSF(path)
    if f.tags is None:
        f.add_tags()
    f.tags.clear()
    id3_frames(f.tags, v, cover, mime)
    f.save(v2_version=4)


def tag_mka(source_dir, path, v, cover_path):
    """Matroska: ffmpeg writes the tags (SimpleTags) and attaches the cover."""
    import subprocess
    os.remove(path)
    text = text_values(v)
    meta = {key: text[field] for field, key in FFMPEG_KEYS.items()}
    args = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
            "-i", os.path.join(source_dir, "audio.mka"), "-map_metadata", "-1", "-c", "copy",
            "-attach", cover_path, "-metadata:s:t", "mimetype=image/png",
            "-metadata:s:t", "filename=cover.png"]
    for key, value in meta.items():
        args += ["-metadata", f"{key}={value}"]
    subprocess.run(args + [path], check=True)


def tag_matroska_video(source_dir, path, v, cover_path, kind):
    """Matroska video (mkv) and WebM: ffmpeg writes the tags and three chapters (an
    ffmetadata file) and, for mkv, attaches the cover; the mkv file is then remuxed by
    mkvmerge (which keeps tags, chapters and attachments, in its own layout: SeekHead, Void,
    Cues before the Clusters). WebM has no attachments (the WebM muxers refuse them)."""
    import subprocess
    os.remove(path)
    text = text_values(v)
    meta = {key: text[field] for field, key in FFMPEG_KEYS.items()}
    chapters = os.path.join(source_dir, "chapters.ffmeta")
    ffmpeg = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
              "-i", os.path.join(source_dir, SOURCES[kind]), "-i", chapters,
              "-map", "0", "-map_metadata", "-1", "-map_chapters", "1", "-c", "copy"]
    if kind == "mkv":
        ffmpeg += ["-attach", cover_path, "-metadata:s:t", "mimetype=image/png",
                   "-metadata:s:t", "filename=cover.png"]
    for key, value in meta.items():
        ffmpeg += ["-metadata", f"{key}={value}"]
    if kind == "webm":
        subprocess.run(ffmpeg + [path], check=True)
        return
    staged = path + ".ffmpeg.mkv"
    subprocess.run(ffmpeg + [staged], check=True)
    subprocess.run(["mkvmerge", "--quiet", "-o", path, staged], check=True)
    os.remove(staged)


def make_dsf(path, seconds=3, rate=2822400):
    """A one-channel DSF file of DSD idle pattern (0x69), per the DSF File Format
    Specification 1.01: 'DSD ' chunk (28 bytes), 'fmt ' chunk (52), 'data' chunk."""
    block = 4096
    samples = rate * seconds
    blocks = -(-samples // 8 // block)
    data = bytes([0x69]) * (blocks * block)
    fmt = struct.pack("<4sQIIIIIIQII", b"fmt ", 52, 1, 0, 1, 1, rate, 1, samples, block, 0)
    data_chunk = struct.pack("<4sQ", b"data", 12 + len(data)) + data
    total = 28 + len(fmt) + len(data_chunk)
    head = struct.pack("<4sQQQ", b"DSD ", 28, total, 0)
    with open(path, "wb") as f:
        f.write(head + fmt + data_chunk)


def id3_major_version(path):
    with open(path, "rb") as f:
        head = f.read(10)
    return head[3] if head[:3] == b"ID3" else None


def top_level_boxes(path):
    names = []
    size_total = os.path.getsize(path)
    with open(path, "rb") as f:
        offset = 0
        while offset + 8 <= size_total:
            f.seek(offset)
            size, name = struct.unpack(">I4s", f.read(8))
            if size == 1:
                (size,) = struct.unpack(">Q", f.read(8))
            elif size == 0:
                size = size_total - offset
            if size < 8:
                raise ValueError(f"{path}: bad box size {size} at {offset}")
            names.append(name.decode("latin-1"))
            offset += size
    return names


def picture_sizes(path, kind):
    """The byte counts of the pictures mutagen finds in `path`."""
    if kind == "flac":
        return [len(p.data) for p in FLAC(path).pictures]
    if kind.startswith("ogg"):
        f = (OggVorbis if kind == "ogg-vorbis" else OggOpus)(path)
        return [len(Picture(base64.b64decode(b)).data) for b in f.tags.get("METADATA_BLOCK_PICTURE", [])]
    f = (mutagen.wave.WAVE if kind == "wav" else mutagen.aiff.AIFF)(path)
    return [len(p.data) for p in f.tags.getall("APIC")]


NEW_KINDS = ("wavpack", "musepack", "tta", "wma", "aac", "ac3", "dsf", "mka", "mkv", "webm")


def check_new_kind(path, kind, v, cover):
    """The new kinds: mutagen (ffprobe for Matroska, which mutagen does not read) reads
    back the title and artist; the picture's size is checked where mutagen exposes it."""
    import json
    import subprocess
    if kind in ("mka", "mkv", "webm"):
        out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path],
                             check=True, capture_output=True, text=True).stdout
        probe = json.loads(out)
        tags = {k.lower(): val for k, val in probe["format"].get("tags", {}).items()}
        got = (tags.get("title"), tags.get("artist"),
               # ffprobe shows an image attachment as an attached_pic video stream
               sum(1 for s in probe["streams"] if s.get("codec_type") == "attachment"
                   or s.get("disposition", {}).get("attached_pic") == 1))
        want = (v["title"], v["artist"], 0 if kind == "webm" else 1)
    else:
        # mutagen.File takes an ADTS or AC-3 stream behind an ID3 tag for MP3: name the class.
        # Those two classes do not tag (the ID3 class reads the tag), and AC3 does not skip
        # an ID3 tag, so only the tag is checked for AC-3.
        if kind == "ac3":
            t = ID3(path)
        else:
            f = {"aac": mutagen.aac.AAC}.get(kind, mutagen.File)(path)
            t = ID3(path) if kind == "aac" else f.tags
        if kind in ("wavpack", "musepack"):
            got = (str(t["Title"]), str(t["Artist"]), len(t["Cover Art (Front)"].value))
            want = (v["title"], v["artist"], len(cover) + len("cover.xxx") + 1)
        elif kind == "wma":
            got = (str(t["Title"][0]), str(t["Author"][0]), 1)
            want = (v["title"], v["artist"], 0 if kind == "webm" else 1)
        else:
            got = (str(t["TIT2"]), str(t["TPE1"]), sum(len(p.data) for p in t.getall("APIC")))
            want = (v["title"], v["artist"], len(cover))
    if got != want:
        raise SystemExit(f"make-corpus: {path}: read back {got}; expected {want}")


def check_layout(path, kind, v, cover):
    if kind in NEW_KINDS:
        check_new_kind(path, kind, v, cover)
        return
    if kind in ("flac", "ogg-vorbis", "ogg-opus", "wav", "aiff"):
        f = mutagen.File(path)
        if kind in ("wav", "aiff"):
            got = (str(f.tags["TIT2"]), str(f.tags["TPE1"]), f.tags.version[1])
            want = (v["title"], v["artist"], 4)
        else:
            got = (f.tags["title"][0], f.tags["artist"][0], type(f).__name__)
            want = (v["title"], v["artist"], {"flac": "FLAC", "ogg-vorbis": "OggVorbis",
                                              "ogg-opus": "OggOpus"}[kind])
        sizes = picture_sizes(path, kind)
        if got != want or sizes != [len(cover)]:
            raise SystemExit(f"make-corpus: {path}: read back {got}, pictures {sizes}; "
                             f"expected {want}, [{len(cover)}]")
        return
    if kind.startswith("mp3"):
        want = 3 if kind == "mp3-id3v23" else 4
        got = id3_major_version(path)
        if got != want:
            raise SystemExit(f"make-corpus: {path}: ID3v2.{got}, expected ID3v2.{want}")
        return
    boxes = top_level_boxes(path)
    if "moov" not in boxes or "mdat" not in boxes:
        raise SystemExit(f"make-corpus: {path}: top-level boxes {boxes}")
    moov_first = boxes.index("moov") < boxes.index("mdat")
    if moov_first != (kind == "m4a-first"):
        raise SystemExit(f"make-corpus: {path}: boxes {boxes} do not fit {kind}")


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    source, corpus, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    kinds = KINDS[:9]
    if len(sys.argv) == 5:
        kinds = [kind for kind in sys.argv[4].split(",") if kind]
        unknown = [kind for kind in kinds if kind not in KINDS]
        if unknown or not kinds:
            raise SystemExit(f"make-corpus: unknown kinds {unknown}; known: {', '.join(KINDS)}")
    if count < len(kinds):
        raise SystemExit(f"make-corpus: COUNT must be at least {len(kinds)}")

    with open(os.path.join(source, "cover.jpg"), "rb") as f:
        jpeg = f.read()
    with open(os.path.join(source, "cover.png"), "rb") as f:
        png = f.read()

    if "dsf" in kinds:
        make_dsf(os.path.join(source, "audio.dsf"))

    manifest = []
    index = 0
    for k, kind in enumerate(kinds):
        per_kind = count // len(kinds) + (1 if k < count % len(kinds) else 0)
        directory = os.path.join(corpus, kind)
        os.makedirs(directory, exist_ok=True)
        for n in range(per_kind):
            index += 1
            v = values(index)
            path = os.path.join(directory, f"{index:05d}.{EXTENSIONS[kind]}")
            shutil.copyfile(os.path.join(source, SOURCES[kind]), path)
            if kind == "mp3-id3v23":
                cover = jpeg
                tag_mp3(path, v, 3, cover, "image/jpeg")
            elif kind == "mp3-id3v24":
                cover = png
                tag_mp3(path, v, 4, cover, "image/png")
            elif kind == "flac":
                cover = jpeg
                tag_flac(path, v, cover, "image/jpeg")
            elif kind == "ogg-vorbis":
                cover = png
                tag_ogg(path, v, cover, "image/png", OggVorbis)
            elif kind == "ogg-opus":
                cover = jpeg
                tag_ogg(path, v, cover, "image/jpeg", OggOpus)
            elif kind == "wav":
                cover = jpeg
                tag_riff(path, v, cover, "image/jpeg", mutagen.wave.WAVE)
            elif kind == "aiff":
                cover = png
                tag_riff(path, v, cover, "image/png", mutagen.aiff.AIFF)
            elif kind == "wavpack":
                cover = jpeg
                tag_ape(path, v, cover, "cover.jpg", mutagen.wavpack.WavPack)
            elif kind == "musepack":
                cover = png
                tag_ape(path, v, cover, "cover.png", mutagen.musepack.Musepack)
            elif kind in ("tta", "aac"):
                cover = jpeg
                tag_id3_front(path, v, cover, "image/jpeg")
            elif kind == "ac3":
                cover = png
                tag_id3_front(path, v, cover, "image/png")
            elif kind == "wma":
                cover = png
                tag_wma(path, v, cover, "image/png")
            elif kind == "dsf":
                cover = jpeg
                tag_dsf(path, v, cover, "image/jpeg")
            elif kind == "mka":
                cover = png
                tag_mka(source, path, v, os.path.join(source, "cover.png"))
            elif kind in ("mkv", "webm"):
                cover = png if kind == "mkv" else b""
                tag_matroska_video(source, path, v, os.path.join(source, "cover.png"), kind)
            else:
                use_jpeg = (n % 2 == 0) == (kind == "m4a-first")
                cover = jpeg if use_jpeg else png
                tag_m4a(path, v, cover, MP4Cover.FORMAT_JPEG if use_jpeg else MP4Cover.FORMAT_PNG)
            check_layout(path, kind, v, cover)
            manifest.append((path, kind, v["title"], v["artist"], v["album"], str(len(cover))))

    with open(os.path.join(corpus, "manifest.tsv"), "w", encoding="utf-8") as f:
        for row in manifest:
            f.write("\t".join(row) + "\n")
    by_kind = {kind: sum(1 for row in manifest if row[1] == kind) for kind in kinds}
    print("make-corpus: wrote " + ", ".join(f"{n} {kind}" for kind, n in by_kind.items())
          + " (layouts checked)")


if __name__ == "__main__":
    main()
