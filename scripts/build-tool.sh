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
# On Linux the tool is also linked for a short start-up (2026-12-06; one MP3 read, whole
# process: 6.27 M → 2.84 M instructions, wall time 3.9 → 2.5 ms; Benchmarks/README.md):
# - the C++ runtime, SQLite and zlib linked in from their static archives (libstdc++.a of
#   the compiler, libsqlite3.a and libz.a of libsqlite3-dev and zlib1g-dev) when they are
#   installed, so the loader maps and binds only libc, libm and libgcc_s: binding
#   libstdc++'s 4,300 symbols took more time than reading a file;
# - --disable-local-rpath: no $ORIGIN search path, which made the loader look for every
#   library in a dozen folders beside the tool first;
# - -no-pie: a fixed load address, so the loader need not patch 40,000 pointers in the
#   runtime's type metadata (and copy the pages they sit on) at every start. The cost is
#   that the tool's own code is not placed at a random address (the libraries, heap and
#   stacks still are); set MDKIT_PIE=1 to keep it position-independent;
# - --no-export-dynamic: the runtime looks up its own path with dladdr at start-up, which
#   walks every exported symbol; a tool exports none (crash reports symbolicate from the
#   full symbol table, which stays).
# - each function in a section of its own (swiftc -function-sections) and the functions that
#   reads and writes run placed together, in the order of scripts/mdkit.order (gold's
#   --section-ordering-file; Benchmarks/order-file.sh makes the list and CI checks that it is
#   current): the code a read runs is spread over half as many 64 KiB windows of the file,
#   each a page fault (2026-12-06; an MP3 read touched 110, now 53; one MP3 read 2.7 → 1.9 ms,
#   200 MP3 files 0.49 → 0.44× TagLib's time; Benchmarks/README.md, "Code layout").
#
# usage: bash scripts/build-tool.sh [more swift build arguments]   (from anywhere)
# Prints nothing but the build's own output; the tool is then at
# "$(swift build -c release --show-bin-path)/mdkit".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
flags=(-c release --product mdkit -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
if [[ $(uname -s) == Linux ]]; then
    flags+=(--static-swift-stdlib --disable-local-rpath -Xlinker --no-export-dynamic)
    [[ ${MDKIT_PIE:-0} == 1 ]] || flags+=(-Xswiftc -Xclang-linker -Xswiftc -no-pie)
    # A folder holding only the static archives, searched before the system's: the linker
    # takes the first folder with either kind of a library, so there it takes the archive.
    archives="$PWD/.build/static-archives"
    rm -rf "$archives" && mkdir -p "$archives"
    for library in libstdc++.a libsqlite3.a libz.a; do
        found=$(clang -print-file-name="$library" 2>/dev/null || true)
        if [[ $found == /* && -f $found ]]; then ln -s "$found" "$archives/$library"; fi
    done
    flags+=(-Xlinker -L"$archives")
    flags+=(-Xswiftc -Xfrontend -Xswiftc -function-sections)
    order="$PWD/scripts/mdkit.order"
    if [[ -f $order ]]; then
        flags+=(-Xlinker --section-ordering-file="$order")
        # The build doesn't know the list: a tool linked before the list changed is linked again.
        tool="$(swift build "${flags[@]}" "$@" --show-bin-path)/mdkit"
        if [[ -f $tool && $order -nt $tool ]]; then rm -f "$tool"; fi
    fi
fi
exec swift build "${flags[@]}" "$@"
