#!/usr/bin/env bash
# Write benchmark: `mdkit write` (with and without fsync) against TagLib and mutagen, each
# setting title and artist on every file of a generated corpus of tagged files (made like the
# read benchmark's corpus): by default the kinds issue 3 asks for (MP3 ID3v2.3/2.4, M4A moov
# first/last); KINDS=all adds FLAC, Ogg Vorbis, Ogg Opus, WAV and AIFF. See Benchmarks/README.md.
#
# usage: bash Benchmarks/write-benchmark.sh [COUNT]     (from anywhere; default COUNT=800)
#
# Environment:
#   RUNS=N        timed runs per tool, the best one counts (default 3)
#   MDKIT=PATH    time this mdkit binary instead of building one (the report says so)
#   PER_KIND=0    skip the per-kind timings (every tool again, two processes per kind)
#   KINDS=K       mp3-m4a (default), all (nine kinds), or a comma-separated list of kinds
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
BIN=$WORK/bin
OUT=$WORK/write            # everything of this benchmark but the binaries
CORPUS=$OUT/corpus-${KINDS:-mp3-m4a}   # one corpus per KINDS value (made once, reused)
SOURCES=$OUT/corpus-sources
SCRATCH=$OUT/scratch       # one copy of the corpus per tool, made afresh for every run

COUNT=${1:-800}
RUNS=${RUNS:-3}
MDKIT=${MDKIT:-}
PER_KIND=${PER_KIND:-1}
KINDS=${KINDS:-mp3-m4a}
TARGET_NOSYNC=1.0   # mdkit --no-sync wall time must be at most this × TagLib's
TARGET_SYNC=3.0     # mdkit (fsync) wall time must be at most this × TagLib's

# Every fourth file (position 3, 7, 11, ... of the manifest, so a quarter of every kind) gets
# long values that do not fit in the tag's padding (about 1 KB in most corpus files), so its
# tag must grow; the others get short values that fit. The lengths (characters, for title
# and artist each) change with the run number, like the values themselves.
short_length() { echo $(( 24 + 4 * $1 )); }     # 28, 32, 36, ...: a little longer than before
long_length() { echo $(( 600 + 100 * $1 )); }   # 700, 800, 900, ...: 1.4-3.6 KB more text

die() { printf 'write-benchmark: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*"; }

# shellcheck source=corpus.sh
source "$BENCH/corpus.sh"
# shellcheck source=build.sh
source "$BENCH/build.sh"
select_kinds "$KINDS"
# Four files per kind, so that every kind has files of both value groups.
[[ $COUNT =~ ^[0-9]+$ ]] && (( COUNT >= 4 * kind_count )) || die "COUNT must be a number >= $(( 4 * kind_count )), four files per kind (got '$COUNT')"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number (got '$RUNS')"
[[ -z $MDKIT || -x $MDKIT ]] || die "MDKIT=$MDKIT is not an executable"

# --- Requirements ---------------------------------------------------------------------------

missing=()
for tool in ffmpeg g++ pkg-config python3; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt: time)")
[[ -n $MDKIT ]] || command -v swift > /dev/null || missing+=("swift")
(( ${#missing[@]} == 0 )) || die "missing: ${missing[*]} (see Benchmarks/README.md)"
pkg-config --exists taglib || die "pkg-config cannot find taglib (apt: libtag1-dev)"
python3 -c 'import mutagen' 2> /dev/null || die "python3 cannot import mutagen (pip install mutagen)"

mkdir -p "$BIN" "$OUT"

# --- Build ----------------------------------------------------------------------------------

if [[ ! -x $BIN/taglib-write || $BENCH/taglib-write.cpp -nt $BIN/taglib-write ]]; then
    note "building the TagLib writer (g++ -O2)"
    # shellcheck disable=SC2046  # pkg-config output is meant to be split
    g++ -O2 -std=c++17 -o "$BIN/taglib-write" "$BENCH/taglib-write.cpp" $(pkg-config --cflags --libs taglib)
fi

if [[ -n $MDKIT ]]; then
    note "using MDKIT=$MDKIT (not built by this script)"
    mdkit_bin=$MDKIT
    mdkit_origin="MDKIT=$MDKIT"
else
    build_mdkit "$OUT/build-mdkit.log"
    mdkit_bin=$BIN/mdkit
    mdkit_origin="release build (scripts/build-tool.sh)"
fi

# --- Corpus ---------------------------------------------------------------------------------

make_corpus "$CORPUS" "$SOURCES" "$COUNT" "$KIND_LIST"

# Paths relative to the corpus folder, split into the short and the long group.
mapfile -t REL < <(cut -f1 "$CORPUS/manifest.tsv" | sed "s|^$CORPUS/||")
(( ${#REL[@]} == COUNT )) || die "the manifest lists ${#REL[@]} files, expected $COUNT (rm -rf $CORPUS)"
SHORT=() LONG=()
for (( i = 0; i < COUNT; i++ )); do
    if (( i % 4 == 3 )); then LONG+=("${REL[i]}"); else SHORT+=("${REL[i]}"); fi
done
printf '%s\n' "${SHORT[@]}" > "$OUT/group-short.txt"
printf '%s\n' "${LONG[@]}" > "$OUT/group-long.txt"
corpus_mb=$(du -sm "$CORPUS" | cut -f1)
corpus_files=$(find "$CORPUS" -type f | wc -l)
KIND_NAMES=$(cut -f2 "$CORPUS/manifest.tsv" | uniq | tr '\n' ' ')

# All files of a group go to one process per tool: check that the argument list fits.
arg_bytes=$(( $(printf '%s\0' "${SHORT[@]/#/$SCRATCH/mdkit-no-sync/}" | wc -c) + 100000 ))
(( arg_bytes <= $(getconf ARG_MAX) / 4 )) || die "COUNT=$COUNT: the argument list would be too long for one process"

# mdkit's --set values for run RUN and LENGTH (index 0), from the same formula as the others.
mdkit_values() { mapfile -t VALUES < <(python3 "$BENCH/mutagen-write.py" --values "$1" "$2"); }

# prepare_tool TOOL DIR RUN: the two command lines with which TOOL sets title and artist on
# every file below DIR in run RUN: CMD_SHORT for the short group, CMD_LONG for the long one.
# Made before the clock starts (mdkit's values come from a Python process).
prepare_tool() {
    local tool=$1 dir=$2 run=$3 group length command
    for group in short long; do
        if [[ $group == short ]]; then length=$(short_length "$run"); else length=$(long_length "$run"); fi
        case $tool in
            TagLib) command=("$BIN/taglib-write" "$run" "$length") ;;
            mutagen) command=(python3 "$BENCH/mutagen-write.py" "$run" "$length") ;;
            mdkit-no-sync | mdkit-fsync)
                mdkit_values "$run" "$length"
                command=("$mdkit_bin" write --set "title=${VALUES[0]}" --set "artist=${VALUES[1]}")
                if [[ $tool == mdkit-no-sync ]]; then command+=(--no-sync); fi ;;
        esac
        if [[ $group == short ]]; then CMD_SHORT=("${command[@]}" "${SHORT[@]/#/$dir/}")
        else CMD_LONG=("${command[@]}" "${LONG[@]/#/$dir/}"); fi
    done
}

# run_prepared TOOL: runs CMD_SHORT, then CMD_LONG (under /usr/bin/time; the CPU seconds of
# both go to CPU_SECONDS). Returns the first non-zero exit status, else 0.
run_prepared() {
    local tool=$1 status=0
    /usr/bin/time -f '%U %S' -o "$OUT/time-short.out" "${CMD_SHORT[@]}" \
        > "$OUT/stdout-$tool.txt" 2> "$OUT/stderr-$tool-short.txt" < /dev/null || status=$?
    (( status == 0 )) || return "$status"
    /usr/bin/time -f '%U %S' -o "$OUT/time-long.out" "${CMD_LONG[@]}" \
        >> "$OUT/stdout-$tool.txt" 2> "$OUT/stderr-$tool-long.txt" < /dev/null || status=$?
    (( status == 0 )) || return "$status"
    CPU_SECONDS=$(tail -q -n 1 "$OUT/time-short.out" "$OUT/time-long.out" | awk '{ c += $1 + $2 } END { printf "%.2f", c }')
}

# check_written DIR RUN INDEXED TOOL...: mutagen reads every file of DIR/<TOOL>/ and checks the
# title and artist (index = position in the tool's argument list, or 0 for mdkit) and that
# the album is the generator's; prints one line per tool: TOOL ok|<problem summary>.
check_written() {
    python3 - "$CORPUS/manifest.tsv" "$CORPUS" "$OUT/group-short.txt" "$OUT/group-long.txt" "$@" <<'PY'
import importlib.util, os, sys
manifest, corpus, short_list, long_list, base, run, *tools = sys.argv[1:]
run = int(run)
spec = importlib.util.spec_from_file_location("mw", "Benchmarks/mutagen-write.py")
mw = importlib.util.module_from_spec(spec); spec.loader.exec_module(mw)
album = {}
for line in open(manifest, encoding="utf-8"):
    path, kind, title, artist, alb, cover = line.rstrip("\n").split("\t")
    album[os.path.relpath(path, corpus)] = alb
lengths = {"short": 24 + 4 * run, "long": 600 + 100 * run}   # as in write-benchmark.sh
for tool in tools:
    problems = []
    for group, listing in (("short", short_list), ("long", long_list)):
        rels = [line.rstrip("\n") for line in open(listing, encoding="utf-8")]
        for index, rel in enumerate(rels, start=1):
            path = os.path.join(base, tool, rel)
            want = mw.values(run, lengths[group], 0 if tool.startswith("mdkit") else index)
            try:
                got = mw.read_back(path)[:3]   # ID3 (MP3, WAV, AIFF), MP4 or Vorbis comment
            except Exception as error:  # noqa: BLE001
                problems.append(f"{rel}: {type(error).__name__}: {error}")
                continue
            if got != (*want, album[rel]):
                problems.append(f"{rel}: title/artist/album {str(got[0])[:30]!r}…/{str(got[1])[:30]!r}…/{got[2]!r}")
    print(f"{tool}\t" + ("ok" if not problems else
          f"{len(problems)} files wrong, e.g. " + "; ".join(problems[:3])))
PY
}

# --- mdkit sanity check ---------------------------------------------------------------------

# A writer that fails, skips files or damages them must not produce a (fast) figure. Two
# files of each kind (one of each group) are copied twice and written by `mdkit write
# --no-sync` and `mdkit write`; then `mdkit read --json` and mutagen must find the new title
# and artist and the old album and cover, the ID3v2 version must be kept (MP3, and the ID3
# chunk of WAV and AIFF), and the decoded audio (ffmpeg's md5 of the PCM) must be the same
# as before. Every kind is in the sample.
note "checking mdkit write on a sample (2 files of each kind, with and without --no-sync)"
SANITY=$OUT/sanity
rm -rf "$SANITY"
awk -F'\t' '{ g = ((NR - 1) % 4 == 3) ? "long" : "short" } !seen[$2 "," g]++ { print $0 "\t" g }' \
    "$CORPUS/manifest.tsv" > "$OUT/sanity-sample.tsv"
sanity_run=7   # a run number of its own; the timed runs use 1..RUNS
sanity_status=0
: > "$OUT/sanity.tsv"
: > "$OUT/sanity.err"
for mode in no-sync fsync; do
    while IFS=$'\t' read -r path kind title artist album cover group; do
        copy=$SANITY/$mode/${path#"$CORPUS"/}
        mkdir -p "$(dirname "$copy")"
        cp "$path" "$copy"
        if [[ $group == short ]]; then length=$(short_length $sanity_run); else length=$(long_length $sanity_run); fi
        mdkit_values $sanity_run "$length"
        before=$(ffmpeg -nostdin -v error -i "$copy" -map 0:a -f md5 - 2>&1)
        flags=(); [[ $mode == no-sync ]] && flags=(--no-sync)
        set +e
        "$mdkit_bin" write "$copy" --set "title=${VALUES[0]}" --set "artist=${VALUES[1]}" "${flags[@]}" \
            > /dev/null 2>> "$OUT/sanity.err" < /dev/null
        status=$?
        set -e
        (( status == 0 )) || sanity_status=$status
        after=$(ffmpeg -nostdin -v error -i "$copy" -map 0:a -f md5 - 2>&1)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$copy" "$kind" "${VALUES[0]}" "${VALUES[1]}" \
            "$album" "$cover" "$mode" "$status" "$before" "$after" "$path" >> "$OUT/sanity.tsv"
    done < "$OUT/sanity-sample.tsv"
done
mapfile -t sample < <(cut -f1 "$OUT/sanity.tsv")
set +e
"$mdkit_bin" read --json "${sample[@]}" > "$OUT/sanity.json" 2>> "$OUT/sanity.err"
read_status=$?
set -e
if ! python3 - "$OUT/sanity.json" "$OUT/sanity.tsv" "$read_status" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("mw", "Benchmarks/mutagen-write.py")
mw = importlib.util.module_from_spec(spec); spec.loader.exec_module(mw)

json_path, tsv_path, read_status = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [line.rstrip("\n").split("\t") for line in open(tsv_path, encoding="utf-8")]
problems = []
if read_status != 0:
    problems.append(f"`mdkit read --json` exited with status {read_status}")
try:
    objects = json.load(open(json_path, encoding="utf-8"))
except (OSError, ValueError) as error:
    objects = [{}] * len(rows)
    problems.append(f"`mdkit read --json` output is not JSON: {error}")
if not isinstance(objects, list) or len(objects) != len(rows):
    problems.append(f"`mdkit read --json`: expected a JSON array of {len(rows)} objects")
    objects = [{}] * len(rows)
for row, obj in zip(rows, objects):
    path, kind, title, artist, album, cover, mode, status, before, after, original = row
    where = f"{path} ({kind}, {'--no-sync' if mode == 'no-sync' else 'fsync'})"
    if status != "0":
        problems.append(f"{where}: `mdkit write` exited with status {status}")
    if not before.startswith("MD5=") or before != after:
        problems.append(f"{where}: decoded audio changed: before {before!r}, after {after!r}")
    meta = obj.get("metadata", {})
    if "error" in obj:
        problems.append(f"{where}: mdkit read: error: {obj['error']}")
    for field, want in (("title", title), ("artist", artist), ("album", album)):
        if meta.get(field) != want:
            problems.append(f"{where}: mdkit read: {field} {str(meta.get(field))[:40]!r}…, expected {want[:40]!r}…")
    art = meta.get("artwork") or []
    if len(art) != 1 or art[0].get("byteCount") != int(cover):
        problems.append(f"{where}: mdkit read: artwork {art!r}, expected one picture of {cover} bytes")
    duration = obj.get("properties", {}).get("duration")
    if not isinstance(duration, (int, float)) or abs(duration - 3.0) > 0.3:
        problems.append(f"{where}: mdkit read: duration {duration!r}, expected about 3 s")
    try:
        *got, version = mw.read_back(path)   # ID3 (MP3, WAV, AIFF), MP4 or Vorbis comment
        for field, value, want in zip(("title", "artist", "album"), got, (title, artist, album)):
            if value != want:
                problems.append(f"{where}: mutagen: {field} {str(value)[:40]!r}…, expected {want[:40]!r}…")
        original_version = mw.read_back(original)[3]
        if version != original_version:
            problems.append(f"{where}: mutagen: ID3v2 version {version}, the original has {original_version}")
        sizes = mw.picture_sizes(path)
        if sizes != [int(cover)]:
            problems.append(f"{where}: mutagen: pictures of {sizes} bytes, expected [{cover}]")
    except Exception as error:  # noqa: BLE001
        problems.append(f"{where}: mutagen cannot read it: {type(error).__name__}: {error}")
if problems:
    print(f"mdkit write sanity check FAILED ({len(problems)} problems; first 12):", file=sys.stderr)
    for problem in problems[:12]:
        print("  - " + problem, file=sys.stderr)
    sys.exit(1)
print(f"mdkit write sanity check passed ({len(rows)} saves: exit status 0; mdkit read and mutagen "
      "find the new title/artist, the old album and cover; ID3v2 version kept; decoded audio "
      f"unchanged by ffmpeg md5; kinds: {', '.join(dict.fromkeys(row[1] for row in rows))})")
PY
then
    [[ -s $OUT/sanity.err ]] && { echo "mdkit stderr (first lines):" >&2; head -n 5 "$OUT/sanity.err" >&2; }
    die "mdkit write does not write the corpus correctly, so it is not timed."
fi

# --- Timing ---------------------------------------------------------------------------------

TOOLS=(TagLib mutagen mdkit-no-sync mdkit-fsync)
declare -A LABEL=([TagLib]=TagLib [mutagen]=mutagen [mdkit-no-sync]="mdkit --no-sync" [mdkit-fsync]="mdkit (fsync)")
declare -A WALL CPU STATUS INODES
for tool in "${TOOLS[@]}"; do STATUS[$tool]=ok; done

# inode_summary BEFORE AFTER DIR: from `inode size path` listings of DIR before and after a
# run, the counts of same inode & same size / same inode & new size / new inode: overall on
# the first line, then one line per kind and group.
inode_summary() {
    paste -d ' ' "$1" "$2" | awk -v long_list="$OUT/group-long.txt" -v base="$3/" -v kinds="$KIND_NAMES" '
        BEGIN { while ((getline line < long_list) > 0) long[line] = 1 }
        {   # $1-$3: inode size path before, $4-$6: after
            rel = substr($3, length(base) + 1); split(rel, parts, "/")
            key = parts[1] " " (rel in long ? "long" : "short")
            if ($1 != $4) { new[key]++; newall++ }
            else if ($2 == $5) { same[key]++; sameall++ }
            else { grown[key]++; grownall++ }
        }
        END {
            printf "%d %d %d\n", sameall, grownall, newall
            n = split(kinds, kind, " ")
            for (i = 1; i <= n; i++) for (g = 1; g <= 2; g++) {
                key = kind[i] " " (g == 1 ? "short" : "long")
                printf "    %-17s same inode, same size: %4d   same inode, new size: %4d   new inode: %4d\n",
                    key, same[key], grown[key], new[key]
            }
        }'
}

# fresh_copy TOOL: a new copy of the corpus for TOOL (not timed); prints its folder.
fresh_copy() {
    local dir=$SCRATCH/$1
    rm -rf "$dir"
    mkdir -p "$SCRATCH"
    cp -a "$CORPUS" "$dir"
    sync   # write the copy back now, so that it does not land in the timed run
    printf '%s\n' "$dir"
}

note "timing, best of $RUNS runs; each run: a fresh copy of the corpus per tool (not timed), then"
note "two processes per tool (the $(( COUNT - ${#LONG[@]} )) short-value files, then the ${#LONG[@]} long-value files)"
for (( run = 1; run <= RUNS; run++ )); do
    for tool in "${TOOLS[@]}"; do
        [[ ${STATUS[$tool]} == ok ]] || continue
        dir=$(fresh_copy "$tool")
        find "$dir" -type f ! -name manifest.tsv ! -name STAMP -printf '%i %s %p\n' | sort -k3 > "$OUT/inodes-before.txt"
        prepare_tool "$tool" "$dir" "$run"
        start=$EPOCHREALTIME   # no fork: date(1) would add its own start-up to every figure
        set +e
        run_prepared "$tool"
        status=$?
        set -e
        end=$EPOCHREALTIME
        if (( status != 0 )); then
            STATUS[$tool]="FAILED (exit status $status; stderr in $OUT/stderr-$tool-*.txt)"
            printf '    %-16s run %d: FAILED (exit status %d)\n' "${LABEL[$tool]}" "$run" "$status"
            continue
        fi
        find "$dir" -type f ! -name manifest.tsv ! -name STAMP -printf '%i %s %p\n' | sort -k3 > "$OUT/inodes-after.txt"
        extra=$(( $(find "$dir" -type f | wc -l) - corpus_files ))
        if (( extra != 0 )); then
            STATUS[$tool]="FAILED ($extra files more than the corpus in $dir after run $run: leftovers?)"
            continue
        fi
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        summary=$(inode_summary "$OUT/inodes-before.txt" "$OUT/inodes-after.txt" "$dir")
        if [[ -z ${WALL[$tool]:-} ]] || awk -v a="$wall" -v b="${WALL[$tool]}" 'BEGIN { exit !(a < b) }'; then
            WALL[$tool]=$wall
            CPU[$tool]=$CPU_SECONDS
        fi
        [[ -z ${INODES[$tool]:-} || ${INODES[$tool]} == "$summary" ]] || summary+=$'\n    (differs from an earlier run)'
        INODES[$tool]=$summary
        printf '    %-16s run %d: %s s\n' "${LABEL[$tool]}" "$run" "$wall"
    done
    # Every tool must have written what it was asked to, in every run.
    checked=()
    for tool in "${TOOLS[@]}"; do [[ ${STATUS[$tool]} == ok ]] && checked+=("$tool"); done
    if (( ${#checked[@]} )); then
        while IFS=$'\t' read -r tool result; do
            if [[ $result != ok ]]; then
                STATUS[$tool]="FAILED (run $run: $result)"
                printf '    %-16s run %d: results WRONG: %s\n' "${LABEL[$tool]}" "$run" "$result"
            fi
        done < <(check_written "$SCRATCH" "$run" "${checked[@]}")
    fi
done

# Per kind: RUNS more runs; in each, every tool still OK gets a fresh copy of the corpus, then
# for each kind the same two processes as above with that kind's files only (short-value
# files, then long-value files); the fastest run per tool and kind counts. Wall time only;
# every figure includes two process start-ups. The results were checked in the runs above.
declare -A KWALL
if (( PER_KIND )); then
    note "timing per kind (two processes per tool and kind, best of $RUNS runs)"
    ALL_SHORT=("${SHORT[@]}") ALL_LONG=("${LONG[@]}")
    for (( run = 1; run <= RUNS; run++ )); do
        for tool in "${TOOLS[@]}"; do
            [[ ${STATUS[$tool]} == ok ]] || continue
            dir=$(fresh_copy "$tool")
            for kind in $KIND_NAMES; do
                SHORT=() LONG=()
                for rel in "${ALL_SHORT[@]}"; do [[ $rel == "$kind"/* ]] && SHORT+=("$rel"); done
                for rel in "${ALL_LONG[@]}"; do [[ $rel == "$kind"/* ]] && LONG+=("$rel"); done
                prepare_tool "$tool" "$dir" "$run"
                start=$EPOCHREALTIME
                set +e
                run_prepared "$tool-$kind"
                status=$?
                set -e
                end=$EPOCHREALTIME
                if (( status != 0 )); then KWALL[$tool,$kind]=FAILED; continue; fi
                [[ ${KWALL[$tool,$kind]:-} == FAILED ]] && continue
                wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
                if [[ -z ${KWALL[$tool,$kind]:-} ]] || awk -v a="$wall" -v b="${KWALL[$tool,$kind]}" 'BEGIN { exit !(a < b) }'; then
                    KWALL[$tool,$kind]=$wall
                fi
            done
        done
    done
    SHORT=("${ALL_SHORT[@]}") LONG=("${ALL_LONG[@]}")
fi
rm -rf "$SCRATCH"

# --- Report ---------------------------------------------------------------------------------

per_kind=$(awk -F'\t' '!($2 in n) { order[++kinds] = $2 } { n[$2]++ }
    END { for (i = 1; i <= kinds; i++) printf "%s%d %s", (i > 1 ? ", " : ""), n[order[i]], order[i] }' "$CORPUS/manifest.tsv")
echo
echo "Write benchmark: $COUNT files ($per_kind), $corpus_mb MB; set title and artist on every file"
echo "Values: $(( COUNT - ${#LONG[@]} )) files get short ones ($(short_length 1)-$(short_length "$RUNS") characters each, fit the ~1 KB padding),"
echo "        ${#LONG[@]} files long ones ($(long_length 1)-$(long_length "$RUNS") characters each, the tag must grow); they change every run."
echo "Each tool: best of $RUNS runs, each on a fresh copy of the corpus (page cache warm, copy synced first), two processes."
echo "mdkit: $mdkit_origin; TagLib, mutagen and mdkit --no-sync do not fsync, mdkit (fsync) is mdkit's default."
echo "Machine: $(nproc) cores, $(df -PT "$OUT" | awk 'NR == 2 { print $2 }') file system; mdkit loads, plans and checks files on every core (its writes and syncs are per file or shared by a batch); TagLib and mutagen work one file after another."
echo "Versions: TagLib $(pkg-config --modversion taglib), mutagen $(python3 -c 'import mutagen; print(mutagen.version_string)'), Python $(python3 -c 'import platform; print(platform.python_version())')"
echo
printf '%-16s %9s %10s %9s %8s\n' tool "wall s" "files/s" "x TagLib" "CPU s"
printf '%-16s %9s %10s %9s %8s\n' ---------------- --------- ---------- --------- --------
for tool in "${TOOLS[@]}"; do
    if [[ ${STATUS[$tool]} != ok ]]; then
        printf '%-16s %s\n' "${LABEL[$tool]}" "${STATUS[$tool]}"
        continue
    fi
    ratio=-
    if [[ ${STATUS[TagLib]} == ok ]]; then
        ratio=$(awk -v a="${WALL[$tool]}" -v b="${WALL[TagLib]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    fi
    printf '%-16s %9s %10s %9s %8s\n' "${LABEL[$tool]}" "${WALL[$tool]}" \
        "$(awk -v n="$COUNT" -v w="${WALL[$tool]}" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')" \
        "$ratio" "${CPU[$tool]}"
done
echo "(x TagLib = wall time / TagLib's wall time; below 1.00 is faster than TagLib. CPU s = user + system.)"
echo

if (( PER_KIND )); then
    echo "Per kind: wall ms, two processes per tool and kind (start-up included twice), best of $RUNS runs"
    printf '%-11s %6s %9s %9s %9s %9s %9s %9s\n' kind files TagLib mutagen "mdkit -ns" "mdkit fs" "ns/TL" "fs/TL"
    printf '%-11s %6s %9s %9s %9s %9s %9s %9s\n' ----------- ------ --------- --------- --------- --------- --------- ---------
    for kind in $KIND_NAMES; do
        n=$(awk -F'\t' -v k="$kind" '$2 == k { c++ } END { print c + 0 }' "$CORPUS/manifest.tsv")
        t=${KWALL[TagLib,$kind]:--} ns=${KWALL[mdkit-no-sync,$kind]:--} fs=${KWALL[mdkit-fsync,$kind]:--}
        r1=- r2=-
        if [[ $t =~ ^[0-9.]+$ && $ns =~ ^[0-9.]+$ ]]; then r1=$(awk -v a="$ns" -v b="$t" 'BEGIN { printf "%.2f", a / b }'); fi
        if [[ $t =~ ^[0-9.]+$ && $fs =~ ^[0-9.]+$ ]]; then r2=$(awk -v a="$fs" -v b="$t" 'BEGIN { printf "%.2f", a / b }'); fi
        printf '%-11s %6d %9s %9s %9s %9s %9s %9s\n' "$kind" "$n" "$t" "${KWALL[mutagen,$kind]:--}" "$ns" "$fs" "$r1" "$r2"
    done
    echo "(mdkit -ns = mdkit --no-sync, mdkit fs = mdkit (fsync); ns/TL and fs/TL = their wall time / TagLib's)"
    echo
fi

for tool in mdkit-no-sync mdkit-fsync; do
    [[ -n ${INODES[$tool]:-} ]] || continue
    read -r same grown new <<< "$(head -n 1 <<< "${INODES[$tool]}")"
    echo "${LABEL[$tool]} saves: in place (same inode): $(( same + grown )), rewritten: $new" \
        "(same inode: $same with the same size, $grown with a new size; rewritten = new inode, through a temp file)"
    tail -n +2 <<< "${INODES[$tool]}"
done
echo

failed=0
target_line() {
    local tool=$1 target=$2 ratio
    if [[ ${STATUS[$tool]} != ok || ${STATUS[TagLib]} != ok ]]; then
        echo "Target ${LABEL[$tool]} <= $target × TagLib (wall time): NOT EVALUATED (a timed run failed)"
        failed=1
        return
    fi
    ratio=$(awk -v a="${WALL[$tool]}" -v b="${WALL[TagLib]}" 'BEGIN { printf "%.2f", a / b }')
    if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r <= t) }'; then
        echo "Target ${LABEL[$tool]} <= $target × TagLib (wall time): MET (${LABEL[$tool]} = $ratio × TagLib)"
    else
        echo "Target ${LABEL[$tool]} <= $target × TagLib (wall time): NOT MET (${LABEL[$tool]} = $ratio × TagLib)"
    fi
}
target_line mdkit-no-sync "$TARGET_NOSYNC"
target_line mdkit-fsync "$TARGET_SYNC"
exit "$failed"
