#!/usr/bin/env bash
# CI's fuzz smoke run: builds the fuzzer and runs every target for
# FUZZ_SMOKE_SECONDS (default 15) from the seeds only (no earlier corpus), in a fresh
# work folder. Fails on the first crash, hang (>10 s), or memory blow-up
# (>2 GB); the input that did it is printed and kept under $FUZZ_WORK.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SMOKE_SECONDS:-15}
start=$(date +%s)
bash Fuzz/build.sh
export FUZZ_WORK=${FUZZ_WORK:-$(mktemp -d /tmp/mdkit-fuzz-smoke.XXXXXX)}
# The binary lists its targets (and exits 2) when MDKIT_FUZZ_TARGET names none.
targets=$( (MDKIT_FUZZ_TARGET= Fuzz/.build/mdkit-fuzz -runs=0 2>&1 || true) | awk '/^  [a-z]/ { print $1 }')
[ -n "$targets" ] || { echo "fuzz: no targets listed" >&2; exit 1; }
failed=()
for target in $targets; do
    log=$FUZZ_WORK/$target.log
    mkdir -p "$FUZZ_WORK"
    if bash Fuzz/run.sh "$target" "$seconds" >"$log" 2>&1; then
        echo "fuzz: $target ok ($(grep -o 'average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}') exec/s)"
    else
        echo "fuzz: $target FAILED — $(grep -m1 -E 'ERROR|Test unit written|==[0-9]+==' "$log" || true)" >&2
        tail -40 "$log" >&2
        failed+=("$target")
    fi
done
echo "fuzz: smoke run took $(( $(date +%s) - start )) s (work folder $FUZZ_WORK)"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in: ${failed[*]} — see Fuzz/README.md" >&2
    exit 1
fi
