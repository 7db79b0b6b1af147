#!/usr/bin/env bash
# Fails when an mdkit binary holds code of swift-corelibs-foundation's
# `Foundation` module (Swift symbols `$s10Foundation…`) or of CoreFoundation
# (functions `CF…`/`__CF…`): on Linux the library, the catalog and the tool
# import only FoundationEssentials, and one Foundation-proper call (NSLock,
# String(format:), JSONSerialization, FileHandle…) links libFoundation,
# CoreFoundation and ICU statically — 87 MB instead of 39 MB, and a slower start.
# (FoundationEssentials has `__CFUniChar…` tables of its own: data, not code.)
#
#   bash scripts/check-no-foundation.sh [BINARY]   # default .build/release/mdkit
#
# Run by .ci/run after the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/mdkit}
[ -x "$binary" ] || { echo "check-no-foundation: $binary is not an executable" >&2; exit 1; }
symbols=$(nm "$binary" | awk '($2 ~ /^[tTwW]$/ && $3 ~ /^_*CF[A-Z]/) || $NF ~ /^\$s10Foundation/ { print $NF }')
if [ -n "$symbols" ]; then
    count=$(wc -l <<<"$symbols")
    echo "check-no-foundation: $binary links Foundation or CoreFoundation ($count symbols), e.g.:" >&2
    head -5 <<<"$symbols" >&2
    echo "(an 'import Foundation', or a Foundation-proper API, in Sources/)" >&2
    exit 1
fi
echo "check-no-foundation: $binary has no Foundation or CoreFoundation code"
