#!/usr/bin/env python3
"""The mutagen baseline of the read benchmark: for each path argument, in one process,
mutagen.File(path), then read its .tags (every key and value, pictures included) and
.info.length; prints one line per file to stdout. Exit status 1 if any file failed.

mutagen.File picks the class by content (MP3, MP4, FLAC, OggVorbis, OggOpus, WAVE, AIFF,
WavPack, Musepack, TrueAudio, ASF, DSF), except for raw AAC (ADTS) and AC-3 streams behind
an ID3 tag, which it takes for MP3: those are opened with mutagen.aac.AAC and
mutagen.ac3.AC3 by their extension (those classes do not tag, so mutagen.id3.ID3 reads the
tag; mutagen.ac3 does not skip an ID3 tag, so the AC-3 header is read after it).
It parses ID3 APIC frames, MP4 covr items and FLAC PICTURE blocks when it loads a file, but
leaves an Ogg METADATA_BLOCK_PICTURE comment as base64 text: that one is decoded here
(base64, then mutagen.flac.Picture), as TagLib and mdkit decode it too."""

import base64
import sys

import mutagen
import mutagen.aac
import mutagen.ac3
import mutagen.id3
from mutagen.flac import Picture

BY_EXTENSION = {".aac": mutagen.aac.AAC, ".ac3": mutagen.ac3.AC3}


class _Tagged:
    """An AC-3 stream's header info and its ID3 tag (mutagen.ac3.AC3 reads neither then)."""

    def __init__(self, info, tags):
        self.info, self.tags = info, tags


def ac3_behind_id3(path):
    try:
        tags = mutagen.id3.ID3(path)
        offset = tags.size
    except mutagen.id3.ID3NoHeaderError:
        tags, offset = None, 0
    with open(path, "rb") as fileobj:
        fileobj.seek(offset)
        return _Tagged(mutagen.ac3.AC3Info(fileobj), tags)


def main():
    out = []
    status = 0
    for path in sys.argv[1:]:
        try:
            if path.lower().endswith(".ac3"):
                f = ac3_behind_id3(path)
            else:
                f = BY_EXTENSION.get(path[path.rfind("."):].lower(), mutagen.File)(path)
        except Exception as error:  # noqa: BLE001 - report and go on, like the other readers
            out.append(f"{path}\tERROR\t{error}")
            status = 1
            continue
        if f is None:
            out.append(f"{path}\tERROR\tunknown format")
            status = 1
            continue
        tags = f.tags
        if tags is None and path.lower().endswith((".aac", ".ac3")):
            try:
                tags = mutagen.id3.ID3(path)
            except mutagen.id3.ID3NoHeaderError:
                tags = None
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
