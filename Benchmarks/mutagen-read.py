#!/usr/bin/env python3
"""The mutagen baseline of the read benchmark: for each path argument, in one process,
mutagen.File(path), then read its .tags (every key and value, pictures included) and
.info.length; prints one line per file to stdout. Exit status 1 if any file failed.

mutagen.File picks the class by content (MP3, MP4, FLAC, OggVorbis, OggOpus, WAVE, AIFF).
It parses ID3 APIC frames, MP4 covr items and FLAC PICTURE blocks when it loads a file, but
leaves an Ogg METADATA_BLOCK_PICTURE comment as base64 text: that one is decoded here
(base64, then mutagen.flac.Picture), as TagLib and mdkit decode it too."""

import base64
import sys

import mutagen
from mutagen.flac import Picture


def main():
    out = []
    status = 0
    for path in sys.argv[1:]:
        try:
            f = mutagen.File(path)
        except Exception as error:  # noqa: BLE001 - report and go on, like the other readers
            out.append(f"{path}\tERROR\t{error}")
            status = 1
            continue
        if f is None:
            out.append(f"{path}\tERROR\tunknown format")
            status = 1
            continue
        tags = f.tags
        values = 0
        picture_bytes = 0
        if tags is not None:
            for key, value in tags.items():
                values += 1 if not isinstance(value, list) else len(value)
                if key.lower() == "metadata_block_picture":   # Ogg: base64 of a FLAC picture
                    for text in value:
                        picture_bytes += len(Picture(base64.b64decode(text)).data)
                elif key == "covr":                             # MP4: MP4Cover (bytes)
                    picture_bytes += sum(len(cover) for cover in value)
                elif hasattr(value, "mime") and hasattr(value, "data"):   # ID3 APIC frame
                    picture_bytes += len(value.data)
        for picture in getattr(f, "pictures", None) or []:       # FLAC PICTURE blocks
            values += 1
            picture_bytes += len(picture.data)
        out.append(f"{path}\tlength={f.info.length:.3f}\tbitrate={getattr(f.info, 'bitrate', 0)}"
                   f"\tvalues={values}\tpicture_bytes={picture_bytes}")
    sys.stdout.write("\n".join(out) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
