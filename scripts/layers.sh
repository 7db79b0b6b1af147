#!/usr/bin/env bash
# Checks that each library target imports only the targets below it
# (Sources/MetadataKit/README.md, "Targets"):
#
#   MetadataKitBytes   nothing of the package
#   MetadataKitSaving  MetadataKitBytes
#   MetadataKit        MetadataKitBytes, MetadataKitSaving
#
# The compiler already refuses a use of a target that is not a dependency in
# Package.swift; this catches the import itself before a build, including one
# an incremental build would let through (the upper module left over from an
# earlier build). Exits non-zero on any finding.
#
# Run by scripts/lint.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
# check TARGET FORBIDDEN-MODULE...
check() {
    local target=$1
    shift
    local modules
    modules=$(
        IFS='|'
        echo "$*"
    )
    if grep -rnE "^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+(${modules})([[:space:]]|$)" \
        "Sources/$target" --include='*.swift'; then
        echo "layers: $target may not import $* (a layer uses only the ones below it)" >&2
        status=1
    fi
}
check MetadataKitBytes MetadataKitSaving MetadataKit MetadataKitCatalog mdkit
check MetadataKitSaving MetadataKit MetadataKitCatalog mdkit
check MetadataKit MetadataKitCatalog mdkit
exit "$status"
