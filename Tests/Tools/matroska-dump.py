#!/usr/bin/env python3
"""Prints the tags of Matroska files as mkvtoolnix reads them, one JSON
line per path read from standard input: {"path": ..., "tags": {...}}.

Keys: "mkv:NAME" for a SimpleTag in a Tag with empty Targets, "mkv:L/NAME"
for one whose Targets give TargetTypeValue L, "mkv:track/NAME" for a Tag
aimed at a track (TrackUID), and "mkv:Info/Title" for the Segment title
(from `mkvmerge -J`). Values in file order. Used by the operation matrix
(Tests/MetadataKitTests/Matrix) as the independent Matroska reader.
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def tags_of(path):
    tags = {}
    identification = subprocess.run(["mkvmerge", "-J", path], capture_output=True, text=True)
    if identification.returncode in (0, 1):
        title = json.loads(identification.stdout).get("container", {}).get("properties", {}).get("title")
        if title is not None:
            tags.setdefault("mkv:Info/Title", []).append(title)
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "tags.xml")
        subprocess.run(["mkvextract", path, "tags", out], capture_output=True)
        if not os.path.exists(out) or os.path.getsize(out) == 0:
            return tags
        root = ET.parse(out).getroot()
    for tag in root.findall("Tag"):
        targets = tag.find("Targets")
        level = None
        track = False
        if targets is not None:
            level = targets.findtext("TargetTypeValue")
            track = targets.find("TrackUID") is not None
        prefix = "track/" if track else (level + "/" if level else "")
        for simple in tag.findall("Simple"):
            name = simple.findtext("Name") or ""
            value = simple.findtext("String")
            if value is None:
                value = "(binary)" if simple.find("Binary") is not None else ""
            tags.setdefault("mkv:" + prefix + name, []).append(value)
    return tags


for line in sys.stdin:
    path = line.rstrip("\n")
    if not path:
        continue
    try:
        print(json.dumps({"path": path, "tags": tags_of(path)}, ensure_ascii=False))
    except Exception as error:  # a file no tool can read: no tags, said on stderr
        print(f"{path}: {error}", file=sys.stderr)
        print(json.dumps({"path": path, "tags": {}}))
