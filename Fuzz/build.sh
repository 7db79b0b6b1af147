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

out=Fuzz/.build
mkdir -p "$out"
mapfile -t sources < <(find Sources/MetadataKit -name '*.swift' | sort)
start=$(date +%s)
# -module-name MetadataKit: the targets call the internal format readers.
# -I Sources/CZlib: the zlib system module (its modulemap links libz).
swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 \
    ${FUZZ_OPT:--O} -wmo -g \
    -module-name MetadataKit \
    -I Sources/CZlib -lz -use-ld=lld \
    "${sources[@]}" Fuzz/FuzzTargets.swift \
    -o "$out/mdkit-fuzz.tmp"
mv "$out/mdkit-fuzz.tmp" "$out/mdkit-fuzz"
echo "fuzz: built $out/mdkit-fuzz in $(( $(date +%s) - start )) s"
