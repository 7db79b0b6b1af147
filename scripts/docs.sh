#!/usr/bin/env bash
# Builds the DocC documentation of MetadataKit with the toolchain's docc, from
# the symbol graph of a debug build; warnings are errors (a broken symbol link
# or article reference fails), and a public declaration without a `///`
# comment fails too. No SwiftPM plugin is needed.
#
#   scripts/docs.sh [OUTPUT_DIR]      (default: .build/docs/MetadataKit.doccarchive)
#
# Open the archive with `docc preview` or serve it as a static site
# (`docc process-archive transform-for-static-hosting`).
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/docs/MetadataKit.doccarchive}
graphs=.build/docs/symbol-graphs

# docc ships with the toolchain, beside swift (xcrun on macOS).
docc=$(command -v docc || true)
if [ -z "$docc" ]; then
    if command -v xcrun >/dev/null; then
        docc=$(xcrun --find docc)
    else
        docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
    fi
fi
[ -x "$docc" ] || { echo "docs: docc not found beside swift" >&2; exit 1; }

# The graph is written when the module compiles; an up-to-date build leaves
# the last one in place, so the folder is kept between runs.
mkdir -p "$graphs" "$(dirname "$output")"
# A build folder of its own: the symbol-graph flags would otherwise make the
# next ordinary build start over.
swift build --target MetadataKit --scratch-path .build/docs/build \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
# (The graph leaves out MetadataKitVersion: the compiler skips public symbols
# named <Module>Version…, as for Apple's generated version constants.)
# Only the library's own graph (plus its extensions of other modules' types).
find "$graphs" -name '*.symbols.json' ! -name 'MetadataKit*' -delete
# The lower targets' own graphs go too: MetadataKit re-exports them
# (`@_exported import`), so its graph already holds their public symbols,
# and DocC would otherwise see the same types in three modules.
find "$graphs" \( -name 'MetadataKitBytes*' -o -name 'MetadataKitSaving*' \) -delete
[ -s "$graphs/MetadataKit.symbols.json" ] || { echo "docs: no symbol graph was written" >&2; exit 1; }

# Every public declaration carries a `///` comment (scripts/doc-coverage.py
# says what is exempt); docs/doc-coverage-allowlist.txt lists the ones still
# waiting, and may only shrink.
python3 scripts/doc-coverage.py "$graphs/MetadataKit.symbols.json" docs/doc-coverage-allowlist.txt

"$docc" convert Sources/MetadataKit/MetadataKit.docc \
    --fallback-display-name MetadataKit \
    --fallback-bundle-identifier org.metadatakit.MetadataKit \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$output" \
    --warnings-as-errors
echo "docs: $output"
