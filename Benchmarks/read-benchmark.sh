#!/usr/bin/env bash
# Read benchmark: `mdkit read --json` against TagLib, mutagen and exiftool over a
# generated corpus of tagged files: by default the four kinds issue 2 asks for (MP3 ID3v2.3
# and 2.4 with covers, M4A with moov first and moov last); KINDS=all adds FLAC, Ogg Vorbis,
# Ogg Opus, WAV and AIFF. See Benchmarks/README.md.
#
# usage: bash Benchmarks/read-benchmark.sh [COUNT]      (from anywhere; default COUNT=1000)
#
# Environment:
#   RUNS=N        timed runs per tool, the best one counts (default 3)
#   BATCH=N       force batches of N files per process (xargs -n N) for every tool;
#                 by default all files go to one process when the argument list fits
#   SKIP_MDKIT=1  do not build, check or time mdkit (time the baselines only)
#   PER_KIND=0    skip the per-kind timings (one process per tool and kind, best of RUNS)
#   KINDS=K       mp3-m4a (default), all (nine kinds), ape-asf (WavPack, Musepack, TrueAudio,
#                 WMA), no-taglib (ADTS AAC, AC-3, DSF, Matroska audio: compared per kind with
#                 mutagen or exiftool, as TagLib 1.13 reads none of them), matroska (Matroska
#                 audio, mkvmerge-made Matroska video with chapters and a cover, WebM: compared
#                 with TagLib when it is 2.2 or newer, else per kind as no-taglib), or a list
#   TARGET=X      the bound on mdkit / TagLib (default 0.5; 1.0 for KINDS=matroska, issue 12's
#                 "at most as much as TagLib")
#   PKG_CONFIG_PATH=DIR  the usual pkg-config variable: point it at another TagLib's taglib.pc
#                 (e.g. a TagLib 2.2+ built from git, see README.md); taglib-read is linked with
#                 an rpath to that TagLib's libdir and rebuilt when the TagLib changes
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
BIN=$WORK/bin
CORPUS=$WORK/corpus-${KINDS:-mp3-m4a}   # one corpus per KINDS value (made once, reused)
SOURCES=$WORK/corpus-sources

COUNT=${1:-1000}
RUNS=${RUNS:-3}
BATCH=${BATCH:-}
SKIP_MDKIT=${SKIP_MDKIT:-0}
PER_KIND=${PER_KIND:-1}
KINDS=${KINDS:-mp3-m4a}
# mdkit wall time must be at most TARGET × TagLib's (issue 12 asks "at most TagLib's" for Matroska)
if [[ $KINDS == matroska ]]; then TARGET=${TARGET:-1.0}; else TARGET=${TARGET:-0.5}; fi

die() { printf 'read-benchmark: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*"; }

# shellcheck source=corpus.sh
source "$BENCH/corpus.sh"
# shellcheck source=build.sh
source "$BENCH/build.sh"
select_kinds "$KINDS"
[[ $COUNT =~ ^[0-9]+$ ]] && (( COUNT >= kind_count )) || die "COUNT must be a number >= $kind_count, one file per kind (got '$COUNT')"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number (got '$RUNS')"
[[ -z $BATCH || $BATCH =~ ^[1-9][0-9]*$ ]] || die "BATCH must be a positive number (got '$BATCH')"

# --- Requirements ---------------------------------------------------------------------------

missing=()
for tool in ffmpeg exiftool g++ pkg-config python3; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt: time)")
(( SKIP_MDKIT )) || command -v swift > /dev/null || missing+=("swift")
(( ${#missing[@]} == 0 )) || die "missing: ${missing[*]} (see Benchmarks/README.md)"
pkg-config --exists taglib || die "pkg-config cannot find taglib (apt: libtag1-dev)"
python3 -c 'import mutagen' 2> /dev/null || die "python3 cannot import mutagen (pip install mutagen)"

mkdir -p "$BIN"

# --- Build ----------------------------------------------------------------------------------

# The TagLib that pkg-config finds (PKG_CONFIG_PATH may point at a TagLib built from git): its
# libdir goes into the rpath, so the reader runs with the TagLib it was compiled against, and a
# different TagLib (version or libdir) rebuilds the reader.
TAGLIB_VERSION=$(pkg-config --modversion taglib)
TAGLIB_LIBDIR=$(pkg-config --variable=libdir taglib)
taglib_stamp="taglib $TAGLIB_VERSION $TAGLIB_LIBDIR"
if [[ ! -x $BIN/taglib-read || $BENCH/taglib-read.cpp -nt $BIN/taglib-read
      || ! -f $BIN/taglib-read.stamp || $(< "$BIN/taglib-read.stamp") != "$taglib_stamp" ]]; then
    note "building the TagLib reader (g++ -O2, TagLib $TAGLIB_VERSION in $TAGLIB_LIBDIR)"
    # shellcheck disable=SC2046  # pkg-config output is meant to be split
    g++ -O2 -std=c++17 -o "$BIN/taglib-read" "$BENCH/taglib-read.cpp" $(pkg-config --cflags --libs taglib) \
        -Wl,-rpath,"$TAGLIB_LIBDIR"
    printf '%s\n' "$taglib_stamp" > "$BIN/taglib-read.stamp"
fi
# Matroska needs TagLib 2.2 (taglib-read.cpp reads it only then); with an older TagLib the
# Matroska kinds are compared per kind with mutagen/exiftool, as for KINDS=no-taglib.
if [[ ,$KIND_LIST, =~ ,(mka|mkv|webm), ]]; then
    if pkg-config --atleast-version=2.2 taglib; then
        note "TagLib $TAGLIB_VERSION reads Matroska: it is the baseline of the Matroska kinds"
    else
        note "TagLib $TAGLIB_VERSION reads no Matroska (2.2 does): Matroska kinds are compared with mutagen/exiftool"
    fi
fi

if (( ! SKIP_MDKIT )); then
    build_mdkit "$WORK/build-mdkit.log"
fi

# --- Corpus ---------------------------------------------------------------------------------

# Made by corpus.sh (shared with write-benchmark.sh); reused when made for the same COUNT
# by the same generator.
make_corpus "$CORPUS" "$SOURCES" "$COUNT" "$KIND_LIST"

mapfile -t FILES < <(cut -f1 "$CORPUS/manifest.tsv")
(( ${#FILES[@]} == COUNT )) || die "the manifest lists ${#FILES[@]} files, expected $COUNT (rm -rf $CORPUS)"
printf '%s\0' "${FILES[@]}" > "$WORK/files.nul"
corpus_mb=$(du -sm "$CORPUS" | cut -f1)

# One process for all files when the argument list fits comfortably, else batches of 500.
arg_bytes=$(( $(wc -c < "$WORK/files.nul") + 1000 ))
if [[ -z $BATCH ]] && (( arg_bytes > $(getconf ARG_MAX) / 4 )); then BATCH=500; fi
if [[ -n $BATCH ]]; then invocation="xargs -n $BATCH (one process per $BATCH files)"
else invocation="one process for all $COUNT files"; fi

# --- mdkit sanity check ---------------------------------------------------------------------

# A reader that fails, or returns nothing, must not produce a (fast) figure: read a sample of
# every kind and compare the JSON with what the generator wrote.
if (( ! SKIP_MDKIT )); then
    note "checking mdkit on a sample (5 files of each kind)"
    awk -F'\t' 'seen[$2]++ < 5' "$CORPUS/manifest.tsv" > "$WORK/sanity.tsv"
    mapfile -t sample < <(cut -f1 "$WORK/sanity.tsv")
    set +e
    "$BIN/mdkit" read --json "${sample[@]}" > "$WORK/sanity.json" 2> "$WORK/sanity.err"
    sanity_status=$?
    set -e
    if ! python3 - "$WORK/sanity.json" "$WORK/sanity.tsv" "$sanity_status" <<'PY'
import json, sys

json_path, tsv_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [line.rstrip("\n").split("\t") for line in open(tsv_path, encoding="utf-8")]
problems = []
if status != 0:
    problems.append(f"`mdkit read --json` exited with status {status} (expected 0)")
try:
    with open(json_path, encoding="utf-8") as f:
        objects = json.load(f)
except (OSError, ValueError) as error:
    objects = None
    problems.append(f"output is not JSON: {error}")
if objects is not None:
    if not isinstance(objects, list) or len(objects) != len(rows):
        problems.append(f"expected a JSON array of {len(rows)} objects")
    else:
        for (path, kind, title, artist, album, cover_bytes), obj in zip(rows, objects):
            where = f"{path} ({kind})"
            if obj.get("path") != path:
                problems.append(f"{where}: object for path {obj.get('path')!r}")
                continue
            if "error" in obj:
                problems.append(f"{where}: error: {obj['error']}")
                continue
            meta = obj.get("metadata", {})
            for field, want in (("title", title), ("artist", artist), ("album", album)):
                if meta.get(field) != want:
                    problems.append(f"{where}: {field} {meta.get(field)!r}, expected {want!r}")
            art = meta.get("artwork") or []
            if int(cover_bytes) == 0:   # WebM: no attachments, so no cover
                if art:
                    problems.append(f"{where}: artwork {art!r}, expected none")
            elif len(art) != 1 or art[0].get("byteCount") != int(cover_bytes):
                problems.append(f"{where}: artwork {art!r}, expected one picture of {cover_bytes} bytes")
            duration = obj.get("properties", {}).get("duration")
            if not isinstance(duration, (int, float)) or abs(duration - 3.0) > 0.3:
                problems.append(f"{where}: duration {duration!r}, expected about 3 s")
if problems:
    print(f"mdkit sanity check FAILED ({len(problems)} problems; first 10):", file=sys.stderr)
    for problem in problems[:10]:
        print("  - " + problem, file=sys.stderr)
    sys.exit(1)
print(f"mdkit sanity check passed ({len(rows)} files: exit status 0, title/artist/album, "
      "one cover of the right size (none for WebM), duration)")
PY
    then
        [[ -s $WORK/sanity.err ]] && { echo "mdkit stderr (first lines):" >&2; head -n 5 "$WORK/sanity.err" >&2; }
        die "mdkit does not read the corpus correctly, so it is not timed. Fix the readers, or run with SKIP_MDKIT=1 for the baselines only."
    fi
fi

# --- Timing ---------------------------------------------------------------------------------

note "warming the page cache (cat all $COUNT files, $corpus_mb MB)"
xargs -0 -a "$WORK/files.nul" cat > /dev/null

declare -A WALL CPU RSS STATUS

# time_once NAME COMMAND...: one run of COMMAND over all files, the same way for every tool
# (`COMMAND FILES...` or `xargs -0 -n BATCH COMMAND`); keeps the fastest run (wall time) and
# every run's wall time (RUN_WALL[NAME,RUN]). A tool that fails is not run again. exiftool's
# exit status 1 means it read some files and not others (it reads no WavPack or Musepack):
# its time still counts, and the table says so.
time_once() {
    local name=$1 run=$2; shift 2
    local start end status line command
    [[ ${STATUS[$name]:-ok} == ok || ${STATUS[$name]} == partial ]] || return 0
    if [[ -n $BATCH ]]; then command=(xargs -0 -n "$BATCH" -a "$WORK/files.nul" "$@")
    else command=("$@" "${FILES[@]}"); fi
    start=$EPOCHREALTIME   # no fork: date(1) would add its own start-up to every figure
    set +e
    /usr/bin/time -f '%U %S %M' -o "$WORK/time.out" "${command[@]}" \
        > /dev/null 2> "$WORK/stderr-$name.txt"
    status=$?
    set -e
    end=$EPOCHREALTIME
    if (( status == 1 )) && [[ $name == exiftool ]]; then
        STATUS[$name]=partial
    elif (( status != 0 )); then
        STATUS[$name]="FAILED (exit status $status; stderr in $WORK/stderr-$name.txt)"
        return 0
    else
        STATUS[$name]=${STATUS[$name]:-ok}
    fi
    local wall; wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    RUN_WALL[$name,$run]=$wall
    if [[ -z ${WALL[$name]:-} ]] || awk -v a="$wall" -v b="${WALL[$name]}" 'BEGIN { exit !(a < b) }'; then
        line=$(tail -n 1 "$WORK/time.out")
        WALL[$name]=$wall
        CPU[$name]=$(awk '{ printf "%.2f", $1 + $2 }' <<< "$line")
        RSS[$name]=$(awk '{ printf "%.1f", $3 / 1024 }' <<< "$line")
    fi
    printf '    %-10s run %d: %s s\n' "$name" "$run" "$wall"
}

# The tools take turns within each round (TagLib, mdkit, mutagen, exiftool, then again), so
# that the machine's drift (its speed changes from minute to minute) falls on all of them alike.
declare -A RUN_WALL
# each_tool TIMER ARG: `TIMER NAME ARG COMMAND...` for every tool, in the order of a round.
each_tool() {
    local timer=$1 arg=$2
    "$timer" TagLib "$arg" "$BIN/taglib-read"
    if (( ! SKIP_MDKIT )); then "$timer" mdkit "$arg" "$BIN/mdkit" read --json; fi
    "$timer" mutagen "$arg" python3 "$BENCH/mutagen-read.py"
    "$timer" exiftool "$arg" exiftool -j -fast
}
note "timing, best of $RUNS rounds (the tools take turns in each round), $invocation"
for (( run = 1; run <= RUNS; run++ )); do each_tool time_once "$run"; done

# Per kind: one process per tool and kind; RUNS rounds in which the tools take turns (so
# that a burst of load on a shared machine falls on every tool alike), best and median;
# wall time only. Every figure includes one process start-up, so they add up to more than
# the overall figure.
KIND_NAMES=()
mapfile -t KIND_NAMES < <(cut -f2 "$CORPUS/manifest.tsv" | uniq)
declare -A KWALL KRUNS
KIND_FILES=()
time_kind_once() {
    local name=$1 kind=$2; shift 2
    [[ ${KWALL[$name,$kind]:-} == FAILED ]] && return
    local start end
    start=$EPOCHREALTIME
    if ! "$@" "${KIND_FILES[@]}" > /dev/null 2> "$WORK/stderr-$name-$kind.txt"; then
        KWALL[$name,$kind]=FAILED
        return
    fi
    end=$EPOCHREALTIME
    KRUNS[$name,$kind]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) * 1000 }') "
}
if (( PER_KIND )); then
    note "timing per kind (one process per tool and kind, $RUNS rounds, the tools taking turns)"
    for kind in "${KIND_NAMES[@]}"; do
        mapfile -t KIND_FILES < <(awk -F'\t' -v k="$kind" '$2 == k { print $1 }' "$CORPUS/manifest.tsv")
        for (( run = 1; run <= RUNS; run++ )); do each_tool time_kind_once "$kind"; done
        for name in TagLib mdkit mutagen exiftool; do
            [[ ${KWALL[$name,$kind]:-} == FAILED || -z ${KRUNS[$name,$kind]:-} ]] && continue
            KWALL[$name,$kind]=$(tr ' ' '\n' <<< "${KRUNS[$name,$kind]}" | awk 'NF { if (best == "" || $1 < best) best = $1 } END { print best }')
        done
    done
fi

# --- Report ---------------------------------------------------------------------------------

per_kind=$(awk -F'\t' '!($2 in n) { order[++kinds] = $2 } { n[$2]++ }
    END { for (i = 1; i <= kinds; i++) printf "%s%d %s", (i > 1 ? ", " : ""), n[order[i]], order[i] }' "$CORPUS/manifest.tsv")
echo
echo "Read benchmark: $COUNT files ($per_kind), $corpus_mb MB"
echo "Each tool: best of $RUNS rounds (the tools take turns in each round), page cache warm, $invocation, output to /dev/null."
echo "Machine: $(nproc) cores; mdkit reads files concurrently (one thread per core), the others sequentially."
echo "Versions: TagLib $TAGLIB_VERSION ($TAGLIB_LIBDIR), mutagen $(python3 -c 'import mutagen; print(mutagen.version_string)'), exiftool $(exiftool -ver), Python $(python3 -c 'import platform; print(platform.python_version())')"
echo
printf '%-10s %9s %10s %9s %8s %13s\n' tool "wall s" "files/s" "x TagLib" "CPU s" "peak RSS MB"
printf '%-10s %9s %10s %9s %8s %13s\n' ---------- --------- ---------- --------- -------- -------------
names=(TagLib mdkit mutagen exiftool)
for name in "${names[@]}"; do
    if [[ $name == mdkit ]] && (( SKIP_MDKIT )); then
        printf '%-10s %s\n' mdkit "skipped (SKIP_MDKIT=1)"
        continue
    fi
    if [[ ${STATUS[$name]} != ok && ${STATUS[$name]} != partial ]]; then
        printf '%-10s %s\n' "$name" "${STATUS[$name]}"
        continue
    fi
    ratio=-
    if [[ ${STATUS[TagLib]} == ok ]]; then
        ratio=$(awk -v a="${WALL[$name]}" -v b="${WALL[TagLib]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    fi
    printf '%-10s %9s %10s %9s %8s %13s\n' "$name" "${WALL[$name]}" \
        "$(awk -v n="$COUNT" -v w="${WALL[$name]}" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')" \
        "$ratio" "${CPU[$name]}" "${RSS[$name]}"
    [[ ${STATUS[$name]} == partial ]] && printf '%-10s (exit status 1: some files not read; stderr in %s)\n' "" "$WORK/stderr-$name.txt"
done
echo "(x TagLib = wall time / TagLib's wall time; below 1.00 is faster than TagLib. CPU s = user + system.)"
echo
# mdkit / TagLib within each round: the median of these pairs is the figure least moved by drift.
if (( ! SKIP_MDKIT )) && [[ ${STATUS[TagLib]} == ok && ${STATUS[mdkit]} == ok ]]; then
    pairs=()
    for (( run = 1; run <= RUNS; run++ )); do
        [[ -n ${RUN_WALL[mdkit,$run]:-} && -n ${RUN_WALL[TagLib,$run]:-} ]] || continue
        pairs+=("$(awk -v a="${RUN_WALL[mdkit,$run]}" -v b="${RUN_WALL[TagLib,$run]}" 'BEGIN { printf "%.3f", a / b }')")
    done
    median=$(printf '%s\n' "${pairs[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
    echo "mdkit / TagLib in each round: ${pairs[*]} (median $median)"
    echo
fi

# The baseline of a kind is TagLib when it reads the kind, else the faster of mutagen and
# exiftool among those that read it (TagLib 1.13 reads no ADTS, AC-3, DSF or Matroska; TagLib
# 2.2 and newer read Matroska, and are then its baseline).
declare -A KRATIO
kinds_over_target=0
kinds_without_baseline=0
if (( PER_KIND )); then
    echo "Per kind: wall ms, one process per tool and kind (start-up included), best of $RUNS rounds"
    echo "(the tools take turns in each round; 'median' is the median of mdkit / TagLib within the rounds)"
    printf '%-11s %6s %9s %9s %9s %10s %16s %7s\n' kind files TagLib mdkit mutagen exiftool "mdkit/baseline" median
    printf '%-11s %6s %9s %9s %9s %10s %16s %7s\n' ----------- ------ --------- --------- --------- ---------- ---------------- -------
    for kind in "${KIND_NAMES[@]}"; do
        n=$(awk -F'\t' -v k="$kind" '$2 == k { c++ } END { print c + 0 }' "$CORPUS/manifest.tsv")
        t=${KWALL[TagLib,$kind]:-} m=${KWALL[mdkit,$kind]:-skipped}
        base="" base_name=""
        if [[ $t =~ ^[0-9.]+$ ]]; then
            base=$t base_name=TagLib
        else
            for other in mutagen exiftool; do
                w=${KWALL[$other,$kind]:-}
                if [[ $w =~ ^[0-9.]+$ ]] && { [[ -z $base ]] || awk -v a="$w" -v b="$base" 'BEGIN { exit !(a < b) }'; }; then
                    base=$w base_name=$other
                fi
            done
        fi
        ratio=-
        if [[ -n $base && $m =~ ^[0-9.]+$ ]]; then
            ratio=$(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
            awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r > t) }' && kinds_over_target=$((kinds_over_target + 1))
            ratio="$ratio ($base_name)"
        elif [[ $m =~ ^[0-9.]+$ ]]; then
            kinds_without_baseline=$((kinds_without_baseline + 1))
        fi
        KRATIO[$kind]=$ratio
        median=-
        if [[ $base_name == TagLib && $m =~ ^[0-9.]+$ ]]; then
            median=$(paste -d' ' <(tr ' ' '\n' <<< "${KRUNS[mdkit,$kind]}" | awk NF) <(tr ' ' '\n' <<< "${KRUNS[TagLib,$kind]}" | awk NF) \
                | awk '{ print $1 / $2 }' | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
        fi
        printf '%-11s %6d %9s %9s %9s %10s %16s %7s\n' "$kind" "$n" "$t" "$m" \
            "${KWALL[mutagen,$kind]}" "${KWALL[exiftool,$kind]}" "$ratio" "$median"
    done
    echo
fi

if (( SKIP_MDKIT )); then
    echo "Target mdkit <= $TARGET x TagLib (wall time): NOT EVALUATED (SKIP_MDKIT=1)"
elif [[ ${STATUS[mdkit]} == ok && ${STATUS[TagLib]} != ok ]] && (( PER_KIND )); then
    # Kinds TagLib does not read: the target holds per kind against that kind's baseline.
    if (( kinds_over_target == 0 && kinds_without_baseline == 0 )); then
        echo "Target mdkit <= $TARGET x baseline per kind (TagLib, else mutagen/exiftool): MET"
    else
        echo "Target mdkit <= $TARGET x baseline per kind: NOT MET ($kinds_over_target kinds over, $kinds_without_baseline without a baseline)"
    fi
elif [[ ${STATUS[mdkit]} != ok || ${STATUS[TagLib]} != ok ]]; then
    echo "Target mdkit <= $TARGET x TagLib (wall time): NOT EVALUATED (a timed run failed)"
    exit 1
else
    ratio=$(awk -v a="${WALL[mdkit]}" -v b="${WALL[TagLib]}" 'BEGIN { printf "%.2f", a / b }')
    if awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r <= t) }'; then
        echo "Target mdkit <= $TARGET x TagLib (wall time): MET (mdkit = $ratio x TagLib)"
    else
        echo "Target mdkit <= $TARGET x TagLib (wall time): NOT MET (mdkit = $ratio x TagLib)"
    fi
fi
