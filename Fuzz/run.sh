#!/usr/bin/env bash
# Runs one fuzz target for SECONDS seconds.
#
#   bash Fuzz/run.sh TARGET SECONDS [libFuzzer flags...]
#
# Seeds: Fuzz/corpus/TARGET (committed, small), Tests/Fixtures/valid and
# Tests/Fixtures/hostile. New interesting inputs go to Fuzz/.work/corpus/TARGET
# (git-ignored; kept between runs), findings to Fuzz/.work/findings/TARGET/.
# FUZZ_KEEP_GOING=1 keeps fuzzing after a finding (libFuzzer's fork mode)
# instead of stopping at the first one. Exit status: libFuzzer's (non-zero
# on a finding).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
    echo "usage: bash Fuzz/run.sh TARGET SECONDS [libFuzzer flags...]" >&2
    exit 2
fi
target=$1 seconds=$2
shift 2
binary=Fuzz/.build/mdkit-fuzz
[ -x "$binary" ] || bash Fuzz/build.sh

work=${FUZZ_WORK:-Fuzz/.work}
corpus=$work/corpus/$target
findings=$work/findings/$target
mkdir -p "$corpus" "$findings" "Fuzz/corpus/$target"

flags=(-max_len=65536 -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" -detect_leaks=0
       -print_final_stats=1 -artifact_prefix="$findings/")
# Box names and boundary values for the targets that read MP4 boxes.
case $target in
    mp4|asset|timed) flags+=(-dict=Fuzz/dict/mp4.dict) ;;
esac
if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
    flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
# Swift's own crash backtracer would fight libFuzzer's and ASan's handlers.
export SWIFT_BACKTRACE=enable=no MDKIT_FUZZ_TARGET=$target
# Leaks are not findings here (Foundation's uninstrumented code reports false
# ones); memory that grows shows up as -rss_limit_mb.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
exec "$binary" "${flags[@]}" "$@" "$corpus" "Fuzz/corpus/$target" Tests/Fixtures/valid Tests/Fixtures/hostile
