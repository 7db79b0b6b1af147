#!/usr/bin/env bash
# Checks the formatting of every Swift file against .swift-format with the
# toolchain's swift-format (`swift format` on Swift 6). Exits non-zero on any
# finding. `scripts/lint.sh --fix` rewrites the files in place instead.
#
# Then runs scripts/platform-check.sh (OS-specific code only in Platform/
# folders) and scripts/layers.sh (each library target imports only the ones
# below it), which have nothing to fix.
#
# Run by .ci/run before the build.
set -euo pipefail
cd "$(dirname "$0")/.."

if swift format --version >/dev/null 2>&1; then
    format=(swift format)
elif command -v swift-format >/dev/null; then
    format=(swift-format)
else
    echo "lint: swift-format not found (it ships with the Swift 6 toolchain)" >&2
    exit 1
fi

paths=(Package.swift Sources Tests Fuzz Benchmarks)
existing=()
for path in "${paths[@]}"; do [ -e "$path" ] && existing+=("$path"); done

if [ "${1:-}" = "--fix" ]; then
    "${format[@]}" format --configuration .swift-format --parallel --recursive --in-place "${existing[@]}"
else
    "${format[@]}" lint --configuration .swift-format --parallel --recursive --strict "${existing[@]}"
fi

bash scripts/platform-check.sh
bash scripts/layers.sh
