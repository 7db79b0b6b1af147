#!/usr/bin/env bash
# Builds the DocC documentation of MetadataKit and of MetadataKitCatalog with
# the toolchain's docc, from the symbol graphs of a debug build; warnings are
# errors (a broken symbol link or article reference fails), and a public
# declaration without a `///` comment fails too. No SwiftPM plugin is needed.
# The articles' Swift code is compiled by ReadmeSnippetTests.
#
#   scripts/docs.sh [OUTPUT_DIR]      (default: .build/docs/MetadataKit.doccarchive;
#                                      the catalog's archive goes beside it,
#                                      MetadataKitCatalog.doccarchive)
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
# next ordinary build start over. The catalog's build compiles MetadataKit too.
swift build --target MetadataKitCatalog --scratch-path .build/docs/build \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
# (The graph leaves out MetadataKitVersion: the compiler skips public symbols
# named <Module>Version…, as for Apple's generated version constants.)
# Each module's own graph (plus its extensions of other modules' types), in
# a folder of its own. The lower targets' graphs are left out: MetadataKit
# re-exports them (`@_exported import`), so its graph already holds their
# public symbols, and DocC would otherwise see the same types in three modules.
for module in MetadataKit MetadataKitCatalog; do
    rm -rf "$graphs/$module"
    mkdir -p "$graphs/$module"
    [ -s "$graphs/$module.symbols.json" ] || { echo "docs: no symbol graph was written for $module" >&2; exit 1; }
    cp "$graphs/$module.symbols.json" "$graphs/$module/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs/$module/" \;
done

# Every public declaration carries a `///` comment (scripts/doc-coverage.py
# says what is exempt); docs/doc-coverage-allowlist.txt lists the ones still
# waiting, and may only shrink.
python3 scripts/doc-coverage.py "$graphs/MetadataKit/MetadataKit.symbols.json" docs/doc-coverage-allowlist.txt
python3 scripts/doc-coverage.py "$graphs/MetadataKitCatalog/MetadataKitCatalog.symbols.json" docs/doc-coverage-allowlist.txt

convert() { # MODULE CATALOG OUTPUT
    "$docc" convert "$2" \
        --fallback-display-name "$1" \
        --fallback-bundle-identifier "org.metadatakit.$1" \
        --additional-symbol-graph-dir "$graphs/$1" \
        --output-path "$3" \
        --warnings-as-errors
    echo "docs: $3"
}
convert MetadataKit Sources/MetadataKit/MetadataKit.docc "$output"
convert MetadataKitCatalog Sources/MetadataKitCatalog/MetadataKitCatalog.docc "$(dirname "$output")/MetadataKitCatalog.doccarchive"
