#!/usr/bin/env python3
"""The mutagen baseline of the write benchmark (see README.md).

usage: mutagen-write.py RUN LENGTH FILE...
       mutagen-write.py --values RUN LENGTH [INDEX]     (print the title and the artist)

For each FILE (index i = 1, 2, ... in argument order), in one Python process: open it
with mutagen's format-specific class (ID3 for .mp3, MP4 for .m4a/.mp4, mutagen.File with
easy tags otherwise), set the title and the artist to values(RUN, LENGTH, i), and save.
Like TagLib, mutagen does not fsync.

MP3s are saved with the tag's own ID3v2 version (mutagen would write 2.4 by default) and
an existing ID3v1 tag is updated, none is added (v1=1, mutagen's default), which is what
`mdkit write` and taglib-write.cpp do. Exit status 1 if any file failed.

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


def write(path, title, artist):
    ext = os.path.splitext(path)[1].lower()
    if ext == ".mp3":
        from mutagen.id3 import ID3, TIT2, TPE1

        tags = ID3(path)
        # Keep the text encoding the frame had (UTF-16 in the v2.3 files, UTF-8 in v2.4).
        encoding = 3 if tags.version[1] >= 4 else 1
        tags.setall("TIT2", [TIT2(encoding=encoding, text=[title])])
        tags.setall("TPE1", [TPE1(encoding=encoding, text=[artist])])
        tags.save(path, v1=1, v2_version=3 if tags.version[1] == 3 else 4)
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
