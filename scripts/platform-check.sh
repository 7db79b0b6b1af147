#!/usr/bin/env bash
# Checks that every Linux/Darwin difference in Sources/ lives in a Platform/
# folder (Sources/MetadataKitBytes/Platform, Sources/MetadataKitCatalog/Platform,
# Sources/mdkit/Platform): a `#if`/`#elseif` on `os(...)` or
# `canImport(Darwin|Glibc|Musl)` elsewhere is a finding, unless the branch
# holds only import lines (the `import Glibc` / `import Darwin` block at the
# top of a file). Also checks that the library reaches for nothing iOS lacks:
# no `Process`, `/proc`, and `/dev/shm` only in its Platform/ folder.
# Exits non-zero on any finding.
#
# Run by .ci/run and scripts/lint.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
while IFS= read -r -d '' file; do
    case "$file" in */Platform/*) continue ;; esac
    # A platform branch ends at the next #elseif/#else/#endif; it may hold
    # only imports, blank lines and comments.
    findings=$(awk '
        function close_branch() {
            if (open && !imports_only) printf "%s:%d: platform #if outside Platform/: %s\n", FILENAME, line, text
            open = 0
        }
        /^[ \t]*#(elseif|else|endif)([ \t]|$)/ { close_branch() }
        /^[ \t]*#(if|elseif)[ \t].*(os\(|canImport\((Darwin|Glibc|Musl)\))/ {
            open = 1; imports_only = 1; line = FNR; text = $0; sub(/^[ \t]+/, "", text); next
        }
        /^[ \t]*#/ { next }
        open && !/^[ \t]*((@_exported[ \t]+)?import[ \t]|\/\/|$)/ { imports_only = 0 }
        END { close_branch() }
    ' "$file")
    if [ -n "$findings" ]; then
        echo "$findings"
        status=1
    fi
done < <(find Sources -name '*.swift' -print0 | sort -z)

# The library runs on iOS: no processes, no /proc; the RAM folder only in Platform/.
library=(Sources/MetadataKit Sources/MetadataKitBytes Sources/MetadataKitSaving)
if grep -rnE '\bProcess\(|"/proc' "${library[@]}" --include='*.swift'; then
    echo "platform-check: the library must not start processes or read /proc (iOS)" >&2
    status=1
fi
if grep -rn '/dev/shm' "${library[@]}" --include='*.swift' | grep -v '^Sources/MetadataKitBytes/Platform/' | grep -v '^[^:]*:[0-9]*:[ \t]*///\?'; then
    echo "platform-check: /dev/shm outside Sources/MetadataKitBytes/Platform/" >&2
    status=1
fi

if [ "$status" -ne 0 ]; then
    echo "platform-check: move OS-specific code into a Platform/ folder (see the README's Apple platforms section)" >&2
fi
exit "$status"
