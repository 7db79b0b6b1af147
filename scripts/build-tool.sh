#!/usr/bin/env bash
# Builds the mdkit tool as it ships (and as the benchmarks and CI's performance guard run it):
#
#   swift build -c release --product mdkit [--static-swift-stdlib on Linux] \
#       -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
#
# --static-swift-stdlib: the Swift runtime linked in, so the tool needs no toolchain
# installed and starts in about half the time.
# -disable-concrete-type-metadata-mangled-name-accessors: the compiler makes the metadata of
# a concrete generic type (a Dictionary keyed by MetadataField, say) by calling its accessor
# with the conformances it already knows, instead of demangling the type's name at run time,
# which looks each conformance up by scanning every conformance record of the binary on
# first use (about 200,000 instructions each). One MP3 read: 7.66 M → 6.27 M instructions
# for the whole process (callgrind, 2026-12-05; Benchmarks/README.md); the binary grows by
# 0.3 %. Library users building their own apps don't need it.
#
# usage: bash scripts/build-tool.sh [more swift build arguments]   (from anywhere)
# Prints nothing but the build's own output; the tool is then at
# "$(swift build -c release --show-bin-path)/mdkit".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
flags=(-c release --product mdkit -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
[[ $(uname -s) == Linux ]] && flags+=(--static-swift-stdlib)
exec swift build "${flags[@]}" "$@"
