#!/usr/bin/env bash
# The code layout of the shipped tool: makes scripts/mdkit.order, the list of the functions
# `mdkit read` and `mdkit write` run, which scripts/build-tool.sh gives the linker
# (gold's --section-ordering-file) so that they sit together in the binary; or checks that
# the list is still current (--check, which CI runs).
#
# Why: a process reads only the pages of its code that it runs, one page fault per 64 KiB
# window of the file touched (the kernel maps a window's cached pages at once). Left in link
# order, the ~0.5 MB of code a read runs is spread over the 13 MB of the tool's code: an MP3
# read touched 110 windows; laid out by this list, 53 (the rest is in the Swift runtime's and
# Foundation's archives, whose code is one section each). That took a fifth off the start-up
# and an eighth off reading 200 files (Benchmarks/README.md, "Code layout").
#
# usage: bash Benchmarks/order-file.sh [--check]     (from anywhere)
#   (no option)  writes scripts/mdkit.order from the tool at MDKIT
#   --check      exit status 1 when fewer than 90 % of the functions the workload runs are
#                in scripts/mdkit.order (the code changed: run this script and commit the list)
#
# Environment:
#   MDKIT=PATH   the tool, built by scripts/build-tool.sh (default .build/release/mdkit)
#
# The workload, each part under valgrind --tool=callgrind (which names every function run):
# `mdkit read --json` of 4 files of each of the benchmark corpus's nine kinds, `mdkit write`
# of a title and an artist to copies of them (--no-sync, then durable), then the table and
# `--items` reads of Tests/Fixtures/valid. The list holds the functions of the tool in the
# order of the part that first ran them, by name within a part, each as its section's name
# (`.text.` and the symbol; swiftc -function-sections makes one section per function). A name
# the linker does not find (code that changed since) is skipped; a function the list lacks is
# placed after the listed ones, so a stale list costs speed, never correctness.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
OUT=$WORK/order
MDKIT=${MDKIT:-.build/release/mdkit}
ORDER=scripts/mdkit.order
COVERAGE=90

die() { printf 'order-file: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*" >&2; }

check=0
case ${1:-} in
    "") ;;
    --check) check=1 ;;
    *) die "usage: bash Benchmarks/order-file.sh [--check]" ;;
esac
[[ -x $MDKIT ]] || die "no mdkit at $MDKIT (bash scripts/build-tool.sh, or MDKIT=path)"
for tool in valgrind ffmpeg nm python3; do
    command -v "$tool" > /dev/null || die "$tool is missing (apt: valgrind, ffmpeg, binutils, python3)"
done
python3 -c 'import mutagen' 2> /dev/null || die "python3 cannot import mutagen (pip install mutagen)"

# shellcheck source=corpus.sh
source "$BENCH/corpus.sh"
select_kinds all
mkdir -p "$OUT"
CORPUS=$OUT/corpus
make_corpus "$CORPUS" "$OUT/corpus-sources" $(( 4 * kind_count )) "$KIND_LIST" >&2
mapfile -t FILES < <(cut -f1 "$CORPUS/manifest.tsv")
(( ${#FILES[@]} > 0 )) || die "no files in $CORPUS"
mapfile -t VALUES < <(python3 "$BENCH/mutagen-write.py" --values 1 28)

# profile NAME COMMAND...: runs COMMAND under callgrind into $OUT/NAME.callgrind.
profile() {
    local name=$1
    shift
    note "$name"
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$OUT/$name.callgrind" \
        --log-file="$OUT/$name.log" "$@" > /dev/null 2> "$OUT/$name.stderr" \
        || die "failed under valgrind (exit $?): $* (see $OUT/$name.log)"
}

# write_copies NAME OPTION...: `mdkit write` of the title and artist to fresh copies of the corpus.
write_copies() {
    local name=$1
    shift
    rm -rf "$OUT/scratch" && mkdir -p "$OUT/scratch" && cp "${FILES[@]}" "$OUT/scratch/"
    profile "$name" "$MDKIT" write "$@" --set "title=${VALUES[0]}" --set "artist=${VALUES[1]}" \
        "${FILES[@]/#*\//$OUT/scratch/}"
}

parts=(read write-no-sync)
profile read "$MDKIT" read --json "${FILES[@]}"
write_copies write-no-sync --no-sync
if (( ! check )); then
    parts+=(write fixtures-table fixtures-items)
    write_copies write
    fixtures=()
    for file in Tests/Fixtures/valid/*; do [[ $file == *.png ]] || fixtures+=("$file"); done # cover.png is no media file
    profile fixtures-table "$MDKIT" read "${fixtures[@]}"
    profile fixtures-items "$MDKIT" read --json --items "${fixtures[@]}"
fi
rm -rf "$OUT/scratch"

# The list: the tool's functions (nm) in the order of the part that first ran them.
python3 - "$MDKIT" "$ORDER" "$check" "$COVERAGE" "${parts[@]/#/$OUT/}" << 'EOF'
import re, subprocess, sys

tool, order_path, check, coverage = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
symbols = {}
for line in subprocess.run(["nm", "-S", "--defined-only", tool], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split()
    if len(fields) == 4 and fields[2] in "tTwW":
        symbols.setdefault(fields[3], (int(fields[0], 16), int(fields[1], 16)))

listed, seen, first_part = [], set(), None
for part in sys.argv[5:]:
    names = set()
    for line in open(part + ".callgrind", encoding="utf-8", errors="replace"):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line)
        if match:
            names.add(re.sub(r"'\d+$", "", match.group(1).strip()))  # callgrind marks recursion levels
    ran = sorted(name for name in names if name in symbols and name not in seen)
    if first_part is None:
        # The windows of 64 KiB the first part's code touches: its page faults on the code.
        windows = {w for name in names if name in symbols
                   for start, size in [symbols[name]]
                   for w in range(start >> 16, ((start + max(size, 1) - 1) >> 16) + 1)}
        first_part = (len(names & symbols.keys()), len(windows))
    listed += ran
    seen.update(ran)

print(f"{first_part[0]} functions run by the first part touch {first_part[1]} windows of 64 KiB of the tool's code", file=sys.stderr)
sections = [".text." + name for name in listed]
if check:
    try:
        committed = set(open(order_path).read().split())
    except FileNotFoundError:
        committed = set()
    found = sum(1 for section in sections if section in committed)
    share = 100 * found / max(1, len(sections))
    print(f"{found} of the {len(sections)} functions the workload runs are in {order_path} ({share:.1f} %)")
    if share < coverage:
        print(f"FAILED: under {coverage} %: run bash Benchmarks/order-file.sh and commit {order_path}")
        sys.exit(1)
else:
    with open(order_path, "w") as out:
        out.write("\n".join(sections) + "\n")
    print(f"wrote {order_path}: {len(sections)} functions")
EOF
