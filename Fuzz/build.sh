#!/usr/bin/env bash
# Builds Fuzz/.build/mdkit-fuzz: every source of Sources/MetadataKit plus
# Fuzz/FuzzTargets.swift, compiled as one module with libFuzzer and
# AddressSanitizer. One binary holds every target (MDKIT_FUZZ_TARGET picks
# one), so the library is compiled once.
#
#   bash Fuzz/build.sh            # optimized (-O), the default
#   FUZZ_OPT=-Onone bash Fuzz/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

root=$PWD
out=$root/Fuzz/.build
mkdir -p "$out"
mapfile -t sources < <(find "$root/Sources/MetadataKit" -name '*.swift' | sort)
if [ -x "$out/mdkit-fuzz" ] && [ -z "$(find "${sources[@]}" "$root/Fuzz/FuzzTargets.swift" -newer "$out/mdkit-fuzz" | head -1)" ]; then
    echo "fuzz: Fuzz/.build/mdkit-fuzz is up to date"
    exit 0
fi
start=$(date +%s)
# Run in $out: swiftc leaves the module's .swiftmodule/.swiftdoc in the
# current folder. -module-name MetadataKit: the targets call the internal
# format readers. -package-name: the library has `package` declarations (for
# the catalog module), which need one, as SwiftPM gives.
cd "$out"
# -I Sources/CZlib: the zlib system module (its modulemap links libz).
swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 \
    ${FUZZ_OPT:--O} -wmo -g \
    -module-name MetadataKit -package-name metadatakit \
    -I "$root/Sources/CZlib" -lz -use-ld=lld \
    "${sources[@]}" "$root/Fuzz/FuzzTargets.swift" \
    -o "$out/mdkit-fuzz.tmp"
mv "$out/mdkit-fuzz.tmp" "$out/mdkit-fuzz"
echo "fuzz: built Fuzz/.build/mdkit-fuzz in $(( $(date +%s) - start )) s"
