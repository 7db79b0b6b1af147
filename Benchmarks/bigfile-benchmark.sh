#!/usr/bin/env bash
# Big-file benchmark (issue 18): add a 600x600 JPEG cover and a title to a large fast-start MP4
# and a large MP3 whose ID3v2.4 tag has little padding — `mdkit write` (fsync on) against TagLib
# and mutagen, each on its own copy of the same file — on ext4 (mdkit inserts file system blocks)
# and on tmpfs (/dev/shm: it can't, mdkit falls back to a rewrite). Checks every result: `moov`
# still first, ffmpeg's streamhash of every stream unchanged, the new title read by ffprobe and
# mutagen. See Benchmarks/README.md ("Big files").
#
# usage: bash Benchmarks/bigfile-benchmark.sh          (from anywhere)
#
# Environment:
#   SIZE_GB=N       size of the MP4 in GB (default 5)
#   MP3_GB=N        size of the MP3 in GB (default 1)
#   TMPFS_GB=N      size of the files on tmpfs (default 1: they and a copy live in RAM)
#   DISK=DIR        the ext4 folder (default Benchmarks/work/bigfile)
#   TMPFS=DIR       the tmpfs folder (default /dev/shm/mdkit-bigfile; empty: skip)
#   MDKIT=PATH      the mdkit binary (default: a release build with the Swift libraries linked
#                   statically, as the other benchmarks ship it, made by build.sh)
#   KEEP=1          keep the generated files (they are deleted at the end by default)
#   CACHE=MODE      the copy's page cache when a tool starts, the same for every tool (each copy is
#                   synced first): cold (default: evicted, as a file on disk not touched lately),
#                   warm (evicted, then read once: cached clean, as a file just read), or written
#                   (left as cp wrote it: cached, with the pages' write-back state). An insertion
#                   makes the kernel drop the cached pages after the insertion point: ~0.03 s per
#                   cached GB when warm, ~0.2 s per GB when written, nothing when cold.
#   SETTLE=S        seconds to wait after a copy is synced and its cache set, before the tool
#                   runs (default 5: the virtual disk may still be busy with the write-back of
#                   a 5 GB copy, which then slows the tool's first syncs)
#   SYSCALLS=1      run mdkit under strace (--seccomp-bpf: only the traced calls stop) and print its
#                   fsync/fdatasync/syncfs/fallocate calls with their times
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
ROOT=$PWD
BIN=$ROOT/Benchmarks/work/bin
SIZE_GB=${SIZE_GB:-5}
MP3_GB=${MP3_GB:-1}
TMPFS_GB=${TMPFS_GB:-1}
DISK=${DISK:-$ROOT/Benchmarks/work/bigfile}
TMPFS=${TMPFS-/dev/shm/mdkit-bigfile}
MDKIT=${MDKIT:-}
CACHE=${CACHE:-cold}
SYSCALLS=${SYSCALLS:-0}
SETTLE=${SETTLE:-5}
[[ $CACHE == cold || $CACHE == warm || $CACHE == written ]] || { echo "CACHE must be cold, warm or written" >&2; exit 1; }
die() { printf 'bigfile-benchmark: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*" >&2; }
if [[ -z $MDKIT ]]; then
    # shellcheck source=build.sh
    source "$ROOT/Benchmarks/build.sh"
    mkdir -p "$BIN"
    build_mdkit "$ROOT/Benchmarks/work/build-mdkit.log"
    MDKIT=$BIN/mdkit
fi
[[ -x $MDKIT ]] || die "MDKIT=$MDKIT is not an executable file"
for tool in ffmpeg ffprobe python3 g++ pkg-config; do
    command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 1; }
done
python3 -c "import mutagen" || { echo "needs mutagen (pip install mutagen)" >&2; exit 1; }
mkdir -p "$BIN"
if [[ ! -x $BIN/taglib-write ]]; then
    g++ -O2 -std=c++17 Benchmarks/taglib-write.cpp -o "$BIN/taglib-write" $(pkg-config --cflags --libs taglib)
fi

TITLE="Big file benchmark title"
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

# The inputs: a 600x600 JPEG, a 20 s 720p H.264+AAC clip looped to the size, an MP3 likewise.
make_inputs() {   # DIR MP4_GB MP3_GB
    local dir=$1 mp4gb=$2 mp3gb=$3
    mkdir -p "$dir"
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=600x600:rate=1" -frames:v 1 -q:v 3 "$dir/cover.jpg"
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=25" -f lavfi -i "sine=frequency=440" -t 20 \
        -c:v libx264 -preset ultrafast -b:v 20M -c:a aac -b:a 128k "$dir/clip.mp4"
    local clip loops
    clip=$(stat -c %s "$dir/clip.mp4")
    loops=$(python3 -c "print(max(0, round($mp4gb * 1e9 / $clip) - 1))")
    ffmpeg -nostdin -v error -y -stream_loop "$loops" -i "$dir/clip.mp4" -c copy -movflags +faststart \
        -metadata title=original "$dir/big.mp4"
    ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=440" -t 600 -c:a libmp3lame -b:a 320k "$dir/clip.mp3"
    clip=$(stat -c %s "$dir/clip.mp3")
    loops=$(python3 -c "print(max(0, round($mp3gb * 1e9 / $clip) - 1))")
    ffmpeg -nostdin -v error -y -stream_loop "$loops" -i "$dir/clip.mp3" -c copy -id3v2_version 4 \
        -metadata title=original -metadata artist=someone "$dir/big.mp3"
    rm -f "$dir/clip.mp4" "$dir/clip.mp3"
}

# The packets of the original's streams (a cover adds an attached-picture stream after them).
streamhash() {   # FILE [STREAMS]
    local count=${2:-$(ffprobe -v error -show_entries stream=index -of csv=p=0 "$1" | wc -l)} maps=() i
    for ((i = 0; i < count; i++)); do maps+=(-map "0:$i"); done
    ffmpeg -nostdin -v error -i "$1" "${maps[@]}" -c copy -f streamhash -hash md5 -
}
first_boxes() {
    python3 - "$1" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb"); types = []
while len(types) < 3:
    head = f.read(8)
    if len(head) < 8: break
    size, kind = struct.unpack(">I4s", head)
    if size == 1: size = struct.unpack(">Q", f.read(8))[0]; f.seek(size - 16, 1)
    else: f.seek(size - 8, 1)
    types.append(kind.decode("latin-1"))
print(",".join(types))
PY
}
mutagen_title() {
    python3 - "$1" <<'PY'
import sys, mutagen
f = mutagen.File(sys.argv[1]); t = f.tags
v = t.get("\xa9nam") if sys.argv[1].endswith(".mp4") else t.get("TIT2")
pics = len(t.get("covr", [])) if sys.argv[1].endswith(".mp4") else len(t.getall("APIC"))
print(f"{v[0] if isinstance(v, list) else v}|{pics}")
PY
}
mutagen_write() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys, mutagen
from mutagen.mp4 import MP4Cover
from mutagen.id3 import TIT2, APIC
path, title, cover = sys.argv[1:]
data = open(cover, "rb").read()
f = mutagen.File(path)
if path.endswith(".mp4"):
    f["\xa9nam"] = [title]; f["covr"] = [MP4Cover(data, imageformat=MP4Cover.FORMAT_JPEG)]
else:
    f.tags.add(TIT2(encoding=3, text=title)); f.tags.add(APIC(encoding=3, mime="image/jpeg", type=3, desc="", data=data))
f.save()
PY
}

# The copy's page cache as CACHE says (after it was synced).
set_cache() {   # FILE
    [[ $CACHE == written ]] && return
    python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$1"
    [[ $CACHE == warm ]] && cat "$1" >/dev/null
    return 0
}

# One tool on a fresh copy of FILE: prints "tool seconds path checks".
run_tool() {   # TOOL FILE DIR HASH STREAMS
    local tool=$1 file=$2 dir=$3 hash=$4 ext=${2##*.}
    local copy=$dir/copy.$ext
    cp --reflink=never "$file" "$copy"
    sync -f "$copy"
    set_cache "$copy"
    sleep "$SETTLE"   # let the disk finish the copy's write-back before the timed run
    local inode size start end path
    inode=$(stat -c %i "$copy"); size=$(stat -c %s "$copy")
    start=$(now)
    case $tool in
        mdkit)
            if [[ $SYSCALLS == 1 ]]; then
                strace -f --seccomp-bpf -T -e trace=fsync,fdatasync,syncfs,fallocate -o "$dir/strace.txt" \
                    "$MDKIT" write "$copy" --set "title=$TITLE" --artwork "$dir/cover.jpg" >/dev/null
            else
                "$MDKIT" write "$copy" --set "title=$TITLE" --artwork "$dir/cover.jpg" >/dev/null
            fi ;;
        taglib)  "$BIN/taglib-write" 1 2000 "$copy" ;;       # title and artist of 2,000 characters (no cover)
        mutagen) mutagen_write "$copy" "$TITLE" "$dir/cover.jpg" ;;
    esac
    end=$(now)
    if [[ $(stat -c %i "$copy") != "$inode" ]]; then path=rewrite
    elif [[ $(stat -c %s "$copy") != "$size" ]]; then path=in-place-grown; else path=in-place; fi
    local checks=""
    [[ $(streamhash "$copy" "$5") == "$hash" ]] && checks+="streams=same " || checks+="streams=DIFFER "
    if [[ $ext == mp4 ]]; then checks+="boxes=$(first_boxes "$copy") "; fi
    checks+="ffprobe-title=$(ffprobe -v error -show_entries format_tags=title -of default=nw=1:nk=1 "$copy" | cut -c1-24) "
    checks+="mutagen=$(mutagen_title "$copy" | cut -c1-40) "
    if command -v exiftool >/dev/null; then
        checks+="exiftool=$(exiftool -api largefilesupport=1 -s3 -Title "$copy" | cut -c1-24)|$(exiftool -api largefilesupport=1 -s3 -b -Picture -CoverArt "$copy" | wc -c)"
    fi
    printf '%-8s %-5s %8ss  %-15s %s\n' "$tool" "$ext" "$(elapsed "$start" "$end")" "$path" "$checks"
    if [[ $tool == mdkit && $SYSCALLS == 1 ]]; then
        sed -E 's/^[0-9]+ +/         /' "$dir/strace.txt" | grep -v '^ *+++'
        rm -f "$dir/strace.txt"
    fi
    rm -f "$copy"
}

bench() {   # DIR MP4_GB MP3_GB LABEL
    local dir=$1
    echo "== $4: $dir ($(df -T "$dir" | awk 'NR==2 {print $2}')), MP4 $2 GB, MP3 $3 GB"
    make_inputs "$dir" "$2" "$3"
    for f in "$dir"/big.*; do echo "   $f $(stat -c %s "$f") bytes"; done
    for file in "$dir/big.mp4" "$dir/big.mp3"; do
        local hash streams
        streams=$(ffprobe -v error -show_entries stream=index -of csv=p=0 "$file" | wc -l)
        hash=$(streamhash "$file" "$streams")
        echo "   $(basename "$file"): boxes $( [[ $file == *.mp4 ]] && first_boxes "$file" || echo -)"
        for tool in mdkit taglib mutagen; do run_tool $tool "$file" "$dir" "$hash" "$streams"; done
    done
    [[ ${KEEP:-0} == 1 ]] || rm -rf "$dir"
}

echo "mdkit: $MDKIT; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); page cache: $CACHE; $(date -u +%FT%TZ)"
mkdir -p "$DISK"
bench "$DISK" "$SIZE_GB" "$MP3_GB" "disk"
if [[ -n $TMPFS ]]; then mkdir -p "$TMPFS"; bench "$TMPFS" "$TMPFS_GB" "$TMPFS_GB" "tmpfs"; fi
