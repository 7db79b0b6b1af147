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
#   MDKIT_BEFORE=PATH  an earlier mdkit binary, timed beside it in every round (full scan and
#                   rescan), so that a change is measured under the same load
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
for tool in ffmpeg python3 find gcc sqlite3; do command -v $tool > /dev/null || die "needs $tool"; done
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

# library DIR COUNT [link]: COUNT files, the corpus copied into folders of 500 (copies of the
# same bytes, each its own path and inode); with "link", hard links to the corpus instead (the
# memory check's big library: 100,000 copies would take 10 GB).
library() {
    local dir=$1 count=$2 mode=${3:-copy}
    if [[ -f $dir/COUNT && $(< "$dir/COUNT") == "$count $mode" ]]; then return; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 - "$CORPUS" "$dir" "$count" "$mode" <<'PY'
import os, shutil, sys
corpus, target, count, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = []
for line in open(os.path.join(corpus, "manifest.tsv"), encoding="utf-8"):
    path = line.split("\t")[0]
    files.append(path if os.path.isfile(path) else os.path.join(corpus, path))
for i in range(count):
    folder = os.path.join(target, str(i // 500))
    os.makedirs(folder, exist_ok=True)
    source = files[i % len(files)]
    destination = os.path.join(folder, f"{i}-{os.path.basename(source)}")
    (os.link if mode == "link" else shutil.copyfile)(source, destination)
PY
    echo "$count $mode" > "$dir/COUNT"
}

# timed NAME COMMAND...: runs COMMAND, prints its wall time, processor time (user + system: the
# steadier measure on a loaded machine) and peak memory; BEST[NAME] keeps the shortest wall time
# of the rounds, BEST_CPU[NAME] the least processor time.
declare -A BEST BEST_CPU
timed() {
    local name=$1; shift
    /usr/bin/time -f "%e %M %U %S" -o "$WORK/time.txt" "$@" > /dev/null 2>&1 || true
    read -r seconds kib user system < "$WORK/time.txt"
    local cpu
    cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')
    printf '%-34s %8.2f s %8.2f s CPU %8d KiB\n' "$name" "$seconds" "$cpu" "$kib"
    LAST=$seconds
    if [[ -z ${BEST[$name]:-} ]] || awk -v a="$seconds" -v b="${BEST[$name]}" 'BEGIN { exit !(a < b) }'; then
        BEST[$name]=$seconds
    fi
    if [[ -z ${BEST_CPU[$name]:-} ]] || awk -v a="$cpu" -v b="${BEST_CPU[$name]}" 'BEGIN { exit !(a < b) }'; then
        BEST_CPU[$name]=$cpu
    fi
}

# TagLib walker: find lists the tree, taglib-read (Benchmarks/taglib-read.cpp) reads every file.
TAGLIB=$BIN/taglib-read
if [[ ! -x $TAGLIB || $BENCH/taglib-read.cpp -nt $TAGLIB ]]; then
    if pkg-config --exists taglib 2> /dev/null; then
        note "building taglib-read"
        # shellcheck disable=SC2046
        g++ -O2 -std=c++17 -o "$TAGLIB" "$BENCH/taglib-read.cpp" $(pkg-config --cflags --libs taglib)
    fi
fi
taglib_walk() { find "$1" -type f \( -name '*.mp3' -o -name '*.m4a' \) -print0 | xargs -0 -n 5000 "$TAGLIB" > /dev/null; }
export -f taglib_walk
export TAGLIB

LIB=$WORK/scan-library-$FILES
note "library of $FILES files in $LIB"
library "$LIB" "$FILES"
cat "$LIB"/*/* > /dev/null   # the page cache, as for every tool below

DB=$WORK/scan-benchmark.sqlite
ROUNDS=${ROUNDS:-3}
# The tools compared run one after another in each round (the machine may be shared: ratios
# of the same round's conditions); each tool's best round is kept. exiftool runs once.
for (( round = 1; round <= ROUNDS; round++ )); do
    note "round $round of $ROUNDS"
    rm -f "$DB" "$DB-wal" "$DB-shm"
    timed "mdkit read --jsonl" "$MDKIT" read --jsonl "$LIB"
    timed "mdkit scan (full, new catalog)" "$MDKIT" scan --quiet --db "$DB" "$LIB"
    rows=$("$MDKIT" query --db "$DB" "select count(*) from files" | tail -1)
    (( rows == FILES )) || die "the catalog holds $rows rows, not $FILES"
    timed "mdkit scan --jsonl (no catalog)" "$MDKIT" scan --quiet --jsonl "$LIB"
    timed "mdkit scan (rescan, no change)" "$MDKIT" scan --quiet --db "$DB" "$LIB"
    if [[ -n ${MDKIT_BEFORE:-} ]]; then
        rm -f "$DB" "$DB-wal" "$DB-shm"
        timed "before: mdkit scan (full)" "$MDKIT_BEFORE" scan --quiet --db "$DB" "$LIB"
        timed "before: mdkit scan (rescan)" "$MDKIT_BEFORE" scan --quiet --db "$DB" "$LIB"
    fi
    timed "find -printf '%s %T@ %i'" find "$LIB" -type f -printf '%s %T@ %i\n'
    if [[ -x $TAGLIB ]]; then timed "TagLib walker (find + taglib-read)" bash -c 'taglib_walk "$0"' "$LIB"; fi
    if (( round == 1 && ! SKIP_EXIFTOOL )) && command -v exiftool > /dev/null; then
        timed "exiftool -r -json" exiftool -r -json "$LIB"
    fi
done
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), max(float(sys.argv[2]), 0.01); print(f'{a / b:.2f}')" "$1" "$2"; }
scan_time=${BEST["mdkit scan (full, new catalog)"]}
note "best of $ROUNDS rounds"
for name in "${!BEST[@]}"; do printf '%-34s %8.2f s\n' "$name" "${BEST[$name]}"; done | sort
echo "scan / read --jsonl:        $(ratio "$scan_time" "${BEST["mdkit read --jsonl"]}")x (goal: <= 1.3x)"
echo "scan --jsonl / read --jsonl: $(ratio "${BEST["mdkit scan --jsonl (no catalog)"]}" "${BEST["mdkit read --jsonl"]}")x"
echo "rescan / find:              $(ratio "${BEST["mdkit scan (rescan, no change)"]}" "${BEST["find -printf '%s %T@ %i'"]}")x (goal: <= 2x)"
if [[ -n ${MDKIT_BEFORE:-} ]]; then
    echo "before: scan / read --jsonl: $(ratio "${BEST["before: mdkit scan (full)"]}" "${BEST["mdkit read --jsonl"]}")x"
    echo "before: rescan / find:       $(ratio "${BEST["before: mdkit scan (rescan)"]}" "${BEST["find -printf '%s %T@ %i'"]}")x"
fi
if [[ -n ${BEST["exiftool -r -json"]:-} ]]; then
    echo "exiftool / scan:            $(ratio "${BEST["exiftool -r -json"]}" "$scan_time")x (goal: >= 5x)"
fi
if [[ -n ${BEST["TagLib walker (find + taglib-read)"]:-} ]]; then
    echo "TagLib walker / scan:       $(ratio "${BEST["TagLib walker (find + taglib-read)"]}" "$scan_time")x (goal: >= 5x)"
fi

# The floor: what any scan of this tree has to do beyond `read --jsonl` on this machine, measured
# without our code: the picture bytes read from the page cache (scan-floor.c, once with and once
# without the pictures, two processes for the two halves of the file list) and SQLite storing the
# catalog's own rows (the sqlite3 shell copying them into a new catalog of the same schema in one
# transaction, then making the indexes). A scan's processor time is at least read --jsonl's plus
# these two (less the JSON that read --jsonl prints); both mdkit commands keep every core busy, so
# their wall times compare as their processor times.
FLOOR=$BIN/scan-floor
if [[ ! -x $FLOOR || $BENCH/scan-floor.c -nt $FLOOR ]]; then gcc -O2 -o "$FLOOR" "$BENCH/scan-floor.c"; fi
FLOOR_LIST=$WORK/scan-floor.tsv
"$MDKIT" query --db "$DB" "select f.path, coalesce((select sum(a.byte_count) from artwork a where a.file_id = f.id), 0) from files f" \
    | tail -n +2 > "$FLOOR_LIST" || true
if [[ $(wc -l < "$FLOOR_LIST") -ne $FILES ]]; then
    "$MDKIT" query --db "$DB" "select path from files" | head -3 >&2
    die "could not list the catalog's files and picture sizes for the floor"
fi
floor_half() { # floor_half N PICTURES: the N-th (0 or 1) half of the list, with the picture sizes or zero
    awk -F '\t' -v half="$1" -v pictures="$2" 'NR % 2 == half { print $1 "\t" (pictures ? $2 : 0) }' "$FLOOR_LIST" | "$FLOOR" > /dev/null
}
export -f floor_half
export FLOOR FLOOR_LIST
for (( round = 1; round <= ROUNDS; round++ )); do
    for pictures in 0 1; do
        timed "floor: reads (pictures: $pictures)" bash -c 'floor_half 0 "$0" & floor_half 1 "$0"; wait' "$pictures"
    done
done
FLOOR_DB=$WORK/scan-floor.sqlite
{
    echo "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
    sqlite3 "$DB" .schema | awk '/^CREATE TABLE/ { keep = 1 } /^CREATE (UNIQUE )?INDEX|^CREATE VIEW/ { keep = 0 } keep'
    echo "ATTACH '$DB' AS scanned; BEGIN; INSERT INTO main.files SELECT * FROM scanned.files; COMMIT;"
    sqlite3 "$DB" .schema | grep -E '^CREATE (UNIQUE )?INDEX' | sed 's/$/;/; s/;;$/;/'
} > "$WORK/scan-floor.sql"
for (( round = 1; round <= ROUNDS; round++ )); do
    rm -f "$FLOOR_DB" "$FLOOR_DB-wal" "$FLOOR_DB-shm"
    timed "floor: sqlite3 stores the rows" bash -c 'sqlite3 "$0" < "$1"' "$FLOOR_DB" "$WORK/scan-floor.sql"
done
rows=$(sqlite3 "$FLOOR_DB" "select count(*) from files")
(( rows == FILES )) || die "the floor's copy holds $rows rows, not $FILES"
rm -f "$FLOOR_DB" "$FLOOR_DB-wal" "$FLOOR_DB-shm"
cores=$(nproc)
python3 - "${BEST_CPU["mdkit read --jsonl"]}" "${BEST_CPU["floor: reads (pictures: 0)"]}" \
    "${BEST_CPU["floor: reads (pictures: 1)"]}" "${BEST_CPU["floor: sqlite3 stores the rows"]}" \
    "${BEST["TagLib walker (find + taglib-read)"]:-0}" "$cores" <<'PY'
import sys
read_cpu, reads, reads_pictures, sqlite_cpu, taglib, cores = map(float, sys.argv[1:])
pictures = max(reads_pictures - reads, 0)
print(f"floor, processor time: reading the pictures {pictures:.2f} s, SQLite storing the rows {sqlite_cpu:.2f} s, "
      f"the reads without pictures {reads:.2f} s; read --jsonl {read_cpu:.2f} s")
print(f"floor: scan / read --jsonl >= {(read_cpu + pictures + sqlite_cpu) / read_cpu:.2f}x (goal: <= 1.3x)")
if taglib > 0:
    least = (reads_pictures + sqlite_cpu) / cores
    print(f"floor: a scan takes >= {least:.2f} s on {cores:.0f} cores before parsing a byte: "
          f"TagLib walker / scan <= {taglib / least:.2f}x (goal: >= 5x)")
PY

if (( FILES_BIG > 0 )); then
    BIG=$WORK/scan-library-$FILES_BIG
    note "library of $FILES_BIG files in $BIG (peak memory of a full scan)"
    library "$BIG" "$FILES_BIG" link
    SMALL=$WORK/scan-library-$FILES-link
    library "$SMALL" "$FILES" link
    # Peak RSS (/usr/bin/time's %M) of a full scan into a new catalog, the small and the big tree.
    rm -f "$DB" "$DB-wal" "$DB-shm"
    timed "mdkit scan $FILES files (peak RSS)" "$MDKIT" scan --quiet --db "$DB" "$SMALL"
    rm -f "$DB" "$DB-wal" "$DB-shm"
    timed "mdkit scan $FILES_BIG files (peak RSS)" "$MDKIT" scan --quiet --db "$DB" "$BIG"
fi
rm -f "$DB" "$DB-wal" "$DB-shm"
