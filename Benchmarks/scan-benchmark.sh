#!/usr/bin/env bash
# Scan benchmark (issue 14): `mdkit scan` of a library made of the benchmark corpus copied into
# many folders, against `mdkit read --jsonl` over the same tree (to /dev/null) and `exiftool -r
# -json`; a rescan with nothing changed against `find -printf '%s %T@ %i\n'`; and the peak memory
# of a full scan at FILES files against FILES_BIG files (it should be flat in the file count).
#
# usage: bash Benchmarks/scan-benchmark.sh          (from anywhere)
#
# Environment:
#   FILES=N         files in the library (default 20000)
#   FILES_BIG=N     files in the larger library of the memory check (default 100000; 0: skip)
#   CORPUS_COUNT=N  files in the corpus that is copied (default 1000, kinds mp3-m4a)
#   SKIP_EXIFTOOL=1 don't time exiftool (it takes minutes at 20,000 files)
#   MDKIT=PATH      the mdkit binary (default: a release build, made by build.sh)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
BIN=$WORK/bin
CORPUS=$WORK/corpus-mp3-m4a
SOURCES=$WORK/corpus-sources
FILES=${FILES:-20000}
FILES_BIG=${FILES_BIG:-100000}
CORPUS_COUNT=${CORPUS_COUNT:-1000}
SKIP_EXIFTOOL=${SKIP_EXIFTOOL:-0}

die() { printf 'scan-benchmark: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*"; }

# shellcheck source=corpus.sh
source "$BENCH/corpus.sh"
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (apt: time)"
for tool in ffmpeg python3 find; do command -v $tool > /dev/null || die "needs $tool"; done
if [[ -z ${MDKIT:-} ]]; then
    # shellcheck source=build.sh
    source "$BENCH/build.sh"
    mkdir -p "$BIN"
    build_mdkit "$WORK/build-mdkit.log"
    MDKIT=$PWD/$BIN/mdkit
fi
[[ -x $MDKIT ]] || die "no mdkit binary at $MDKIT"

select_kinds mp3-m4a
make_corpus "$CORPUS" "$SOURCES" "$CORPUS_COUNT" "$KIND_LIST"

# library DIR COUNT: COUNT files, the corpus copied into folders of 500 (copies of the same
# bytes, each its own path).
library() {
    local dir=$1 count=$2
    if [[ -f $dir/COUNT && $(< "$dir/COUNT") == "$count" ]]; then return; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    mapfile -t corpus < <(cut -f1 "$CORPUS/manifest.tsv")
    local i=0 folder
    while (( i < count )); do
        folder=$dir/$(( i / 500 ))
        mkdir -p "$folder"
        local file=${corpus[$(( i % ${#corpus[@]} ))]}
        [[ -f $file ]] || file=$CORPUS/$file   # the manifest's paths may be relative to the corpus
        cp "$file" "$folder/$i-${file##*/}"
        i=$(( i + 1 ))
    done
    echo "$count" > "$dir/COUNT"
}

# timed NAME COMMAND...: runs COMMAND, prints its wall time and peak memory.
timed() {
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > /dev/null 2>&1 || true
    read -r seconds kib < "$WORK/time.txt"
    printf '%-34s %8.2f s %8d KiB\n' "$name" "$seconds" "$kib"
    LAST=$seconds
}

LIB=$WORK/scan-library-$FILES
note "library of $FILES files in $LIB"
library "$LIB" "$FILES"
cat "$LIB"/*/* > /dev/null   # the page cache, as for every tool below

DB=$WORK/scan-benchmark.sqlite
rm -f "$DB" "$DB-wal" "$DB-shm"
timed "mdkit read --jsonl" "$MDKIT" read --jsonl "$LIB"; read_time=$LAST
timed "mdkit scan (full, new catalog)" "$MDKIT" scan --quiet --db "$DB" "$LIB"; scan_time=$LAST
rows=$("$MDKIT" query --db "$DB" "select count(*) from files" | tail -1)
(( rows == FILES )) || die "the catalog holds $rows rows, not $FILES"
timed "mdkit scan (rescan, no change)" "$MDKIT" scan --quiet --db "$DB" "$LIB"; rescan_time=$LAST
timed "find -printf '%s %T@ %i'" find "$LIB" -type f -printf '%s %T@ %i\n'; find_time=$LAST
if (( ! SKIP_EXIFTOOL )) && command -v exiftool > /dev/null; then
    timed "exiftool -r -json" exiftool -r -json "$LIB"; exif_time=$LAST
    python3 -c "print(f'exiftool / scan: {$exif_time / max($scan_time, 0.01):.1f}x (goal: >= 5x)')"
fi
python3 -c "print(f'scan / read --jsonl: {$scan_time / max($read_time, 0.01):.2f}x (goal: <= 1.3x)')"
python3 -c "print(f'rescan / find: {$rescan_time / max($find_time, 0.01):.2f}x (goal: <= 2x)')"

if (( FILES_BIG > 0 )); then
    BIG=$WORK/scan-library-$FILES_BIG
    note "library of $FILES_BIG files in $BIG (peak memory of a full scan)"
    library "$BIG" "$FILES_BIG"
    rm -f "$DB" "$DB-wal" "$DB-shm"
    timed "mdkit scan $FILES_BIG files" "$MDKIT" scan --quiet --db "$DB" "$BIG"
fi
rm -f "$DB" "$DB-wal" "$DB-shm"
