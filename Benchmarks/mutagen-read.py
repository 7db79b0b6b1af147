#!/usr/bin/env python3
"""The mutagen baseline of the read benchmark: for each path argument, in one process,
mutagen.File(path), then read its .tags (every key and value, pictures included) and
.info.length; prints one line per file to stdout. Exit status 1 if any file failed."""

import sys

import mutagen


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
        if tags is not None:
            for _key, value in tags.items():
                values += 1 if not isinstance(value, list) else len(value)
        out.append(f"{path}\tlength={f.info.length:.3f}\tbitrate={getattr(f.info, 'bitrate', 0)}"
                   f"\tvalues={values}")
    sys.stdout.write("\n".join(out) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
