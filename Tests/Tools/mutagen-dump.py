"""Prints, for each file named on stdin (one path per line), one JSON line
{"path": ..., "tags": {key: [text, ...]}} with every tag mutagen reads.

Keys carry their tag family so that one file's tags of several kinds stay
apart: "id3:TIT2", "id3:COMM::eng", "id3:TXXX:WORK", "mp4:\xa9nam",
"mp4:----:com.apple.iTunes:LABEL", "vorbis:TITLE", "ape:Title", "asf:WM/Composer",
"id3v1:title". Values are text: numbers as digits, pairs as "n/N", pictures
as "<picture TYPE>", people lists (TIPL/TMCL/IPLS) as "role=name". Used by the
operation matrix (Tests/MetadataKitTests/Matrix) as an independent reader.
"""
import json
import sys

import mutagen
from mutagen.apev2 import APEv2, APENoHeaderError
from mutagen.asf import ASF
from mutagen.id3 import ID3, ID3NoHeaderError
from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm


def text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, MP4Cover):
        return "<picture>"
    if isinstance(value, (MP4FreeForm, bytes)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, tuple):
        return "/".join(str(v) for v in value)
    return str(value)


def id3_tags(tags, out):
    for key, frame in tags.items():
        name = "id3:" + key
        if frame.FrameID in ("TIPL", "TMCL", "IPLS"):
            out[name] = ["%s=%s" % (role, person) for role, person in frame.people]
        elif frame.FrameID == "APIC":
            out[name] = ["<picture %d>" % frame.type]
        elif frame.FrameID in ("USLT", "COMM"):
            out[name] = [frame.text if isinstance(frame.text, str) else "/".join(frame.text)]
        elif frame.FrameID == "UFID":
            out[name] = [frame.data.decode("utf-8", "replace")]
        elif frame.FrameID == "POPM":
            out[name] = [str(frame.rating)]
        elif frame.FrameID.startswith("W") and frame.FrameID != "WXXX":
            out["id3:" + frame.FrameID] = out.get("id3:" + frame.FrameID, []) + [frame.url]
        elif frame.FrameID == "WXXX":
            out[name] = [frame.url]
        elif hasattr(frame, "text"):
            out[name] = [str(t) for t in frame.text]
        else:
            out[name] = [repr(frame)]


def id3v1(path, out):
    with open(path, "rb") as f:
        f.seek(0, 2)
        if f.tell() < 128:
            return
        f.seek(-128, 2)
        block = f.read(128)
    if block[:3] != b"TAG":
        return
    def field(a, b):
        return block[a:b].split(b"\0")[0].decode("latin-1").rstrip(" ")
    for name, a, b in (("title", 3, 33), ("artist", 33, 63), ("album", 63, 93), ("year", 93, 97)):
        if field(a, b):
            out["id3v1:" + name] = [field(a, b)]
    comment = block[97:127]
    if comment[28] == 0 and comment[29] != 0:
        out["id3v1:track"] = [str(comment[29])]
        comment = comment[:28]
    if comment.split(b"\0")[0].decode("latin-1").rstrip(" "):
        out["id3v1:comment"] = [comment.split(b"\0")[0].decode("latin-1").rstrip(" ")]


def dump(path):
    out = {}
    try:
        audio = mutagen.File(path)
    except Exception as error:  # the file is still looked at for a bare ID3 or APE tag
        out["error"] = [type(error).__name__]
        audio = None
    tags = getattr(audio, "tags", None)
    if tags is None:
        for loader in (ID3, APEv2):
            try:
                tags = loader(path)
                break
            except Exception:
                tags = None
    if isinstance(tags, ID3):
        id3_tags(tags, out)
    elif isinstance(tags, APEv2):
        for key, value in tags.items():
            out["ape:" + key] = ["<binary>"] if value.kind == 1 else list(value)
    elif isinstance(audio, MP4):
        for key, values in tags.items():
            out["mp4:" + key] = [text(v) for v in (values if isinstance(values, list) else [values])]
    elif isinstance(audio, ASF):
        for key, values in tags.items():
            out["asf:" + key] = [text(v.value) if not hasattr(v.value, "decode") or key != "WM/Picture" else "<picture>" for v in values]
    elif tags is not None:
        for key in tags.keys():
            values = tags[key]
            values = values if isinstance(values, list) else [values]
            out.setdefault("vorbis:" + key.upper(), []).extend(text(v) for v in values)
    if path.lower().endswith((".mp3", ".ape", ".mpc", ".wv", ".tta", ".ofr", ".tak", ".aac")):
        id3v1(path, out)
    return out


for line in sys.stdin:
    path = line.rstrip("\n")
    if path:
        print(json.dumps({"path": path, "tags": dump(path)}, ensure_ascii=False), flush=True)
