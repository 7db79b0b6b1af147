# Sourced by the benchmark scripts (bash): builds mdkit as it would ship.
#
# build_mdkit LOG
#   `scripts/build-tool.sh` (the release build of mdkit as it ships), output in LOG (its
#   errors shown and the script stopped when it fails), then copies the product to
#   $BIN/mdkit. Needs BIN and the caller's note and die functions.
build_mdkit() {
    local log=$1
    note "building mdkit (scripts/build-tool.sh; log in $log)"
    if ! bash scripts/build-tool.sh > "$log" 2>&1; then
        grep -m 20 -E 'error:|Error' "$log" >&2 || tail -n 30 "$log" >&2
        die "swift build failed (full log: $log)"
    fi
    # Copy, then rename: another benchmark may be running bin/mdkit right now ("Text file busy").
    cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/mdkit" "$BIN/mdkit.tmp.$$"
    mv -f "$BIN/mdkit.tmp.$$" "$BIN/mdkit"
}
