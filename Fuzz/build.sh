#!/usr/bin/env bash
# Builds Fuzz/.build/mdkit-fuzz: the library's three targets (Sources/
# MetadataKitBytes, Sources/MetadataKitSaving, Sources/MetadataKit) compiled
# as the same three modules with libFuzzer and AddressSanitizer, and
# Fuzz/FuzzTargets.swift compiled into the last. One binary holds every
# target (MDKIT_FUZZ_TARGET picks one), so the library is compiled once.
#
#   bash Fuzz/build.sh            # optimized (-O), the default
#   FUZZ_OPT=-Onone bash Fuzz/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

root=$PWD
out=$root/Fuzz/.build
mkdir -p "$out"
mapfile -t bytes < <(find "$root/Sources/MetadataKitBytes" -name '*.swift' | sort)
mapfile -t saving < <(find "$root/Sources/MetadataKitSaving" -name '*.swift' | sort)
mapfile -t sources < <(find "$root/Sources/MetadataKit" -name '*.swift' | sort)
if [ -x "$out/mdkit-fuzz" ] && [ -z "$(find "${bytes[@]}" "${saving[@]}" "${sources[@]}" "$root/Fuzz/FuzzTargets.swift" -newer "$out/mdkit-fuzz" | head -1)" ]; then
    echo "fuzz: Fuzz/.build/mdkit-fuzz is up to date"
    exit 0
fi
start=$(date +%s)
# Run in $out: swiftc leaves the modules' .swiftmodule/.swiftdoc in the
# current folder, where the next module finds them (-I "$out").
# -package-name: the targets share `package` declarations, as SwiftPM gives
# them. -I Sources/CZlib: the zlib system module (its modulemap links libz).
cd "$out"
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 ${FUZZ_OPT:--O} -wmo -g
    -package-name metadatakit -I "$out" -I "$root/Sources/CZlib")
# The lower layers: one object file and one module each.
swiftc "${flags[@]}" -module-name MetadataKitBytes -emit-module -c "${bytes[@]}" -o "$out/MetadataKitBytes.o"
swiftc "${flags[@]}" -module-name MetadataKitSaving -emit-module -c "${saving[@]}" -o "$out/MetadataKitSaving.o"
# -module-name MetadataKit: the targets call the internal format readers.
swiftc "${flags[@]}" -module-name MetadataKit -lz -use-ld=lld \
    "${sources[@]}" "$root/Fuzz/FuzzTargets.swift" "$out/MetadataKitBytes.o" "$out/MetadataKitSaving.o" \
    -o "$out/mdkit-fuzz.tmp"
mv "$out/mdkit-fuzz.tmp" "$out/mdkit-fuzz"
echo "fuzz: built Fuzz/.build/mdkit-fuzz in $(( $(date +%s) - start )) s"
