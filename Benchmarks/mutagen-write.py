#!/usr/bin/env python3
"""The mutagen baseline of the write benchmark (see README.md).

usage: mutagen-write.py RUN LENGTH FILE...
       mutagen-write.py --values RUN LENGTH [INDEX]     (print the title and the artist)

For each FILE (index i = 1, 2, ... in argument order), in one Python process: open it
with mutagen's format-specific class (ID3 for .mp3, MP4 for .m4a/.mp4, FLAC for .flac,
mutagen.File, so OggVorbis or OggOpus, for .ogg/.opus, mutagen.wave.WAVE for .wav and
mutagen.aiff.AIFF for .aiff, whose tag is ID3v2 in a chunk; mutagen.File with easy tags
otherwise), set the title and the artist to values(RUN, LENGTH, i), and save.
Like TagLib, mutagen does not fsync.

MP3s are saved with the tag's own ID3v2 version (mutagen would write 2.4 by default) and
an existing ID3v1 tag is updated, none is added (v1=1, mutagen's default), which is what
`mdkit write` and taglib-write.cpp do; the ID3 chunk of WAV and AIFF keeps its version too.
Exit status 1 if any file failed.

read_back() and picture_sizes() are what the benchmark's checks read the results with.

values() is the formula that taglib-write.cpp implements too; the benchmark imports it to
check every tool's results, and gets mdkit's `--set` values from `--values` (index 0).
"""

import os
import sys

FILLER = "Ünïcødé ✓ — Ça ira № "


def value(field, run, length, index):
    """`field` ("title" or "artist") of file `index` in run `run`, `length` characters."""
    text = f"Write {run} {field} {index:05d} "
    k = 0
    while len(text) < length:
        text += FILLER[k % len(FILLER)]
        k += 1
    text = text[:length]
    return text[:-1] + "." if text.endswith(" ") else text  # no trailing space


def values(run, length, index):
    return value("title", run, length, index), value("artist", run, length, index)


def _set_id3(tags, title, artist):
    from mutagen.id3 import TIT2, TPE1

    # Keep the text encoding the frame had (UTF-16 in the v2.3 files, UTF-8 in v2.4).
    encoding = 3 if tags.version[1] >= 4 else 1
    tags.setall("TIT2", [TIT2(encoding=encoding, text=[title])])
    tags.setall("TPE1", [TPE1(encoding=encoding, text=[artist])])
    return 3 if tags.version[1] == 3 else 4


def write(path, title, artist):
    ext = os.path.splitext(path)[1].lower()
    if ext in (".wav", ".aiff", ".aif"):
        if ext == ".wav":
            from mutagen.wave import WAVE as cls
        else:
            from mutagen.aiff import AIFF as cls
        f = cls(path)
        if f.tags is None:
            f.add_tags()
        version = _set_id3(f.tags, title, artist)
        f.save(v2_version=version)
    elif ext in (".flac", ".ogg", ".oga", ".opus"):
        import mutagen

        f = mutagen.File(path)   # FLAC, OggVorbis, OggOpus, ...: a Vorbis comment
        if f is None:
            raise ValueError("unknown format")
        if f.tags is None:
            f.add_tags()
        f.tags["TITLE"] = [title]
        f.tags["ARTIST"] = [artist]
        f.save()
    elif ext == ".mp3":
        from mutagen.id3 import ID3

        tags = ID3(path)
        version = _set_id3(tags, title, artist)
        tags.save(path, v1=1, v2_version=version)
    elif ext in (".m4a", ".mp4"):
        from mutagen.mp4 import MP4

        f = MP4(path)
        if f.tags is None:
            f.add_tags()
        f.tags["\xa9nam"] = [title]
        f.tags["\xa9ART"] = [artist]
        f.save()
    else:
        import mutagen

        f = mutagen.File(path, easy=True)
        if f is None:
            raise ValueError("unknown format")
        if f.tags is None:
            f.add_tags()
        f["title"] = [title]
        f["artist"] = [artist]
        f.save()


def read_back(path):
    """(title, artist, album, ID3v2 major version or None) of `path`, as mutagen reads them."""
    import mutagen
    from mutagen.id3 import ID3

    f = mutagen.File(path)
    if f is None:
        raise ValueError("unknown format")
    tags = f.tags
    if isinstance(tags, ID3):   # MP3, and the ID3 chunk of WAV and AIFF
        first = lambda frame: str(tags[frame].text[0]) if frame in tags else None  # noqa: E731
        return first("TIT2"), first("TPE1"), first("TALB"), tags.version[1]
    if tags is None:
        return None, None, None, None
    if type(f).__name__ == "MP4":
        keys = ("\xa9nam", "\xa9ART", "\xa9alb")
    else:                       # Vorbis comment (FLAC, Ogg)
        keys = ("title", "artist", "album")
    return tuple((tags.get(key) or [None])[0] for key in keys) + (None,)


def picture_sizes(path):
    """The byte counts of the pictures mutagen finds in `path` (all formats of the corpus)."""
    import base64

    import mutagen
    from mutagen.flac import Picture
    from mutagen.id3 import ID3

    f = mutagen.File(path)
    if isinstance(f.tags, ID3):
        return [len(p.data) for p in f.tags.getall("APIC")]
    if type(f).__name__ == "MP4":
        return [len(c) for c in f.tags.get("covr", [])]
    if type(f).__name__ == "FLAC":
        return [len(p.data) for p in f.pictures]
    return [len(Picture(base64.b64decode(text)).data)
            for text in (f.tags.get("metadata_block_picture") or [])]


def main(argv):
    if len(argv) >= 3 and argv[0] == "--values":
        title, artist = values(int(argv[1]), int(argv[2]), int(argv[3]) if len(argv) > 3 else 0)
        print(title)
        print(artist)
        return 0
    if len(argv) < 2 or not argv[0].isdigit() or not argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    run, length = int(argv[0]), int(argv[1])
    status = 0
    for index, path in enumerate(argv[2:], start=1):
        try:
            write(path, *values(run, length, index))
        except Exception as error:  # noqa: BLE001 - report and go on, like the other writers
            print(f"{path}: error: {error}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
