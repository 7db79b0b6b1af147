#!/usr/bin/env bash
# Matroska write benchmark (issue 12): set the title of a multi-GB MKV made with ffmpeg (a 20 s
# 720p H.264+AAC clip looped with `-stream_loop`, `-c copy`, as bigfile-benchmark.sh makes its
# MP4) — `mdkit write --set title=…` (fsync on) against `mkvpropedit --edit info --set title=…`
# and `mkvpropedit --tags global:…`, each on its own copy of the same file. Checks every result:
# the first Cluster's offset unchanged, ffmpeg's streamhash of every stream unchanged, the new
# title read by ffprobe and mkvinfo, the size change. See Benchmarks/README.md ("Matroska writes").
#
# usage: bash Benchmarks/mkv-write-benchmark.sh          (from anywhere)
#
# Environment:
#   SIZE_GB=N       size of the MKV in GB (default 2)
#   DIR=DIR         the folder of the files (default Benchmarks/work/mkv-write)
#   MDKIT=PATH      the mdkit binary (default .build/release/mdkit, else .build/debug/mdkit)
#   RUNS=N          timed runs per tool, each on a fresh copy (default 3)
#   KEEP=1          keep the generated files (they are deleted at the end by default)
#   REUSE=1         use the big.mkv a KEEP=1 run left in DIR instead of making a new one
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
ROOT=$PWD
SIZE_GB=${SIZE_GB:-2}
DIR=${DIR:-$ROOT/Benchmarks/work/mkv-write}
MDKIT=${MDKIT:-}
RUNS=${RUNS:-3}
if [[ -z $MDKIT ]]; then
    if [[ -x .build/release/mdkit ]]; then MDKIT=$ROOT/.build/release/mdkit; else MDKIT=$ROOT/.build/debug/mdkit; fi
fi
[[ -x $MDKIT ]] || { echo "no mdkit binary at $MDKIT: run swift build -c release" >&2; exit 1; }
for tool in ffmpeg ffprobe mkvpropedit mkvinfo python3; do
    command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 1; }
done

TITLE="Matroska benchmark title, longer than the original one"
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

make_input() {   # DIR GB
    local dir=$1 gb=$2 clip loops
    mkdir -p "$dir"
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=25" -f lavfi -i "sine=frequency=440" -t 20 \
        -c:v libx264 -preset ultrafast -b:v 20M -c:a aac -b:a 128k "$dir/clip.mp4"
    clip=$(stat -c %s "$dir/clip.mp4")
    loops=$(python3 -c "print(max(0, round($gb * 1e9 / $clip) - 1))")
    ffmpeg -nostdin -v error -y -stream_loop "$loops" -i "$dir/clip.mp4" -c copy -metadata title=original "$dir/big.mkv"
    rm -f "$dir/clip.mp4"
    cat > "$dir/tags.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<Tags><Tag><Targets><TargetTypeValue>50</TargetTypeValue></Targets>
<Simple><Name>TITLE</Name><String>$TITLE</String></Simple></Tag></Tags>
XML
}

# The first Cluster's offset: the top-level elements of the Segment walked by their sizes.
first_cluster() {
    python3 - "$1" <<'PY'
import sys
f = open(sys.argv[1], "rb")
def vint(keep_marker):
    first = f.read(1)[0]; length = 8 - first.bit_length() + 1
    value = first if keep_marker else first & (0xFF >> length)
    for b in f.read(length - 1): value = value << 8 | b
    return value, length
def header():
    ident, _ = vint(True); size, n = vint(False)
    return ident, (None if size == (1 << (7 * n)) - 1 else size)
ident, size = header(); f.seek(size, 1)            # EBML header
ident, size = header()                             # Segment
while True:
    at = f.tell(); ident, size = header()
    if ident == 0x1F43B675: print(at); break
    f.seek(size, 1)
PY
}

streamhash() { ffmpeg -nostdin -v error -i "$1" -map 0 -c copy -f streamhash -hash md5 -; }

# One tool on a fresh copy: prints "tool seconds size-change checks".
run_tool() {   # TOOL FILE HASH CLUSTER
    local tool=$1 file=$2 hash=$3 cluster=$4 copy=$DIR/copy.mkv
    cp --reflink=never "$file" "$copy"
    sync -f "$copy"
    python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$copy"
    local size start end
    size=$(stat -c %s "$copy")
    start=$(now)
    case $tool in
        mdkit) "$MDKIT" write "$copy" --set "title=$TITLE" >/dev/null ;;
        mkvpropedit-info) mkvpropedit -q "$copy" --edit info --set "title=$TITLE" ;;
        mkvpropedit-tags) mkvpropedit -q "$copy" --tags "global:$DIR/tags.xml" ;;
    esac
    end=$(now)
    local checks=""
    [[ $(first_cluster "$copy") == "$cluster" ]] && checks+="cluster=same " || checks+="cluster=MOVED "
    [[ $(streamhash "$copy") == "$hash" ]] && checks+="streams=same " || checks+="streams=DIFFER "
    # (|| true: grep -m1 ends the pipe early, and pipefail would stop the script.)
    checks+="ffprobe-title=$(ffprobe -v error -show_entries format_tags=title -of default=nw=1:nk=1 "$copy" | cut -c1-20 || true) "
    checks+="mkvinfo-title=$(mkvinfo "$copy" | grep -m1 -E '^\| \+ Title:' | cut -c12-31 || true)"
    if [[ $tool == mkvpropedit-tags ]]; then checks+=" mkvextract-tags=$(mkvextract "$copy" tags - | grep -c "$TITLE" || true)"; fi
    printf '%-17s %7ss  %+8d bytes  %s\n' "$tool" "$(elapsed "$start" "$end")" $(($(stat -c %s "$copy") - size)) "$checks"
    rm -f "$copy"
}

echo "mdkit: $MDKIT; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
if [[ ${REUSE:-0} == 1 && -f $DIR/big.mkv && -f $DIR/tags.xml ]]; then rm -f "$DIR/copy.mkv"; else make_input "$DIR" "$SIZE_GB"; fi
FILE=$DIR/big.mkv
HASH=$(streamhash "$FILE")
CLUSTER=$(first_cluster "$FILE")
echo "== $FILE: $(stat -c %s "$FILE") bytes on $(df -T "$DIR" | awk 'NR==2 {print $2}'), first Cluster at $CLUSTER"
for ((run = 1; run <= RUNS; run++)); do
    for tool in mdkit mkvpropedit-info mkvpropedit-tags; do run_tool $tool "$FILE" "$HASH" "$CLUSTER"; done
done
[[ ${KEEP:-0} == 1 ]] || rm -rf "$DIR"
