#!/usr/bin/env bash
# Instruction-count guard: for each kind of the benchmark corpus, the instructions per file that
# `mdkit read --json` and the TagLib reader execute (valgrind --tool=callgrind), and those of
# `mdkit write --no-sync` and the TagLib writer, start-up subtracted; their ratio is compared
# with the budget of Benchmarks/instruction-budgets.tsv. Instruction counts don't swing with
# the machine's load as timings do, so CI runs this after the release build. See README.md.
#
# usage: bash Benchmarks/instructions.sh      (from anywhere)
#
# Environment:
#   MDKIT=PATH   the mdkit binary, built with --static-swift-stdlib (default .build/release/mdkit:
#                CI's release build, scripts/build-tool.sh)
#   FILES=N      files per kind (default 16, which the budgets are for; at least 2, see README.md)
#   KINDS=K      kinds, as for read-benchmark.sh (default all: the nine kinds TagLib 1.13 reads)
#   WRITES=0     count reads only
#   BUDGETS=F    the budget file (default Benchmarks/instruction-budgets.tsv)
#
# Per file = (count over all FILES files − count over the first file alone) / (FILES − 1): the
# process's start-up (dynamic linking, the Swift runtime, TagLib's statics) and whatever the
# first file initialises once cancel out. Exit status 1 when a ratio exceeds its budget by
# more than TOLERANCE percent (5), when a kind has no budget, or when a counted run fails.
set -euo pipefail
shopt -s inherit_errexit   # a failed count inside $(...) stops the script too

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
BIN=$WORK/bin
OUT=$WORK/instructions
MDKIT=${MDKIT:-.build/release/mdkit}
FILES=${FILES:-16}
KINDS=${KINDS:-all}
WRITES=${WRITES:-1}
BUDGETS=${BUDGETS:-$BENCH/instruction-budgets.tsv}
TOLERANCE=5

die() { printf 'instructions: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*" >&2; }

# shellcheck source=corpus.sh
source "$BENCH/corpus.sh"
select_kinds "$KINDS"
[[ $FILES =~ ^[0-9]+$ ]] && (( FILES >= 2 )) || die "FILES must be a number >= 2 (got '$FILES')"
[[ -x $MDKIT ]] || die "no mdkit at $MDKIT (bash scripts/build-tool.sh, or MDKIT=path)"
# valgrind 3.19 crashes in the shared libdispatch when a dynamically linked mdkit exits.
if [[ $(ldd "$MDKIT" 2> /dev/null || true) == *libswiftCore* ]]; then
    die "$MDKIT uses the shared Swift runtime, which valgrind can't run to its end: build it with --static-swift-stdlib"
fi
[[ -f $BUDGETS ]] || die "no budget file $BUDGETS"
for tool in valgrind ffmpeg g++ pkg-config python3; do
    command -v "$tool" > /dev/null || die "$tool is missing (apt: valgrind, ffmpeg, g++, pkg-config, python3)"
done
pkg-config --exists taglib || die "pkg-config cannot find taglib (apt: libtag1-dev)"
python3 -c 'import mutagen' 2> /dev/null || die "python3 cannot import mutagen (pip install mutagen)"

mkdir -p "$BIN" "$OUT/logs"
TAGLIB_LIBDIR=$(pkg-config --variable=libdir taglib)
for tool in taglib-read taglib-write; do
    if [[ ! -x $BIN/$tool || $BENCH/$tool.cpp -nt $BIN/$tool ]]; then
        note "building $tool (g++ -O2, TagLib $(pkg-config --modversion taglib))"
        # shellcheck disable=SC2046  # pkg-config output is meant to be split
        g++ -O2 -std=c++17 -o "$BIN/$tool" "$BENCH/$tool.cpp" $(pkg-config --cflags --libs taglib) -Wl,-rpath,"$TAGLIB_LIBDIR"
    fi
done

# A corpus of its own (FILES per kind), made by corpus.sh as the benchmarks' is.
CORPUS=$OUT/corpus-$KINDS-$FILES
make_corpus "$CORPUS" "$OUT/corpus-sources" $(( FILES * kind_count )) "$KIND_LIST" >&2

# count LOG COMMAND...: the instructions COMMAND executes (all its threads), from callgrind's
# summary; its output is discarded, a failure stops the script.
count() {
    local log=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" "$@" > /dev/null 2> "$log.stderr" \
        || die "failed under valgrind (exit $?): $* (see $log and $log.stderr)"
    local collected
    collected=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log")
    [[ -n $collected ]] || die "no instruction count in $log"
    echo "$collected"
}

# per_file NAME COMMAND...: instructions per file of COMMAND over the kind's files (FILE_LIST),
# start-up subtracted (see the header). For writes, each run gets fresh copies (COPY=1).
per_file() {
    local name=$1
    shift
    local all one files=("${FILE_LIST[@]}")
    if (( COPY )); then
        rm -rf "$OUT/scratch" && mkdir -p "$OUT/scratch" && cp "${files[@]}" "$OUT/scratch/"
        files=("${files[@]/#*\//$OUT/scratch/}")
    fi
    all=$(count "$OUT/logs/$name-all.log" "$@" "${files[@]}")
    if (( COPY )); then cp "${FILE_LIST[0]}" "$OUT/scratch/"; fi
    one=$(count "$OUT/logs/$name-one.log" "$@" "${files[0]}")
    (( all > one )) || die "$name: ${#files[@]} files cost no more than one ($all, $one instructions)"
    echo $(( (all - one) / (${#files[@]} - 1) ))
}

# budget KIND OP: the budget line's ratio, empty when there is none.
budget() { awk -v kind="$1" -v op="$2" '$1 == kind && $2 == op { print $3; exit }' "$BUDGETS"; }

mapfile -t VALUES < <(python3 "$BENCH/mutagen-write.py" --values 1 28)
failed=0
rows=()
for kind in ${KIND_LIST//,/ }; do
    mapfile -t FILE_LIST < <(awk -F'\t' -v kind="$kind" '$2 == kind { print $1 }' "$CORPUS/manifest.tsv")
    (( ${#FILE_LIST[@]} >= 2 )) || die "fewer than 2 files of kind $kind in $CORPUS"
    ops=(read)
    if (( WRITES )); then ops+=(write); fi
    for op in "${ops[@]}"; do
        note "$kind: $op"
        if [[ $op == read ]]; then
            COPY=0
            mdkit=$(per_file "$kind-read-mdkit" "$MDKIT" read --json)
            taglib=$(per_file "$kind-read-taglib" "$BIN/taglib-read")
        else
            COPY=1
            mdkit=$(per_file "$kind-write-mdkit" "$MDKIT" write --no-sync --set "title=${VALUES[0]}" --set "artist=${VALUES[1]}")
            taglib=$(per_file "$kind-write-taglib" "$BIN/taglib-write" 1 28)
        fi
        ratio=$(awk -v a="$mdkit" -v b="$taglib" 'BEGIN { printf "%.2f", a / b }')
        limit=$(budget "$kind" "$op")
        if [[ -z $limit ]]; then
            verdict="NO BUDGET"
            failed=1
        elif awk -v r="$ratio" -v l="$limit" -v t="$TOLERANCE" 'BEGIN { exit !(r > l * (1 + t / 100)) }'; then
            verdict="OVER BUDGET"
            failed=1
        else
            verdict=ok
        fi
        rows+=("$(printf '%-11s %-5s %12s %12s %7s %7s  %s' "$kind" "$op" "$mdkit" "$taglib" "$ratio" "${limit:--}" "$verdict")")
    done
done

printf '\nInstructions per file (callgrind, start-up subtracted; %d files per kind; %s)\n\n' "$FILES" "$MDKIT"
printf '%-11s %-5s %12s %12s %7s %7s  %s\n' kind op mdkit TagLib ratio budget ""
printf '%s\n' "${rows[@]}"
if (( failed )); then
    printf '\nFAILED: a ratio is more than %d %% over its budget in %s (or has none)\n' "$TOLERANCE" "$BUDGETS"
    exit 1
fi
printf '\nevery ratio is within %d %% of its budget (%s)\n' "$TOLERANCE" "$BUDGETS"
