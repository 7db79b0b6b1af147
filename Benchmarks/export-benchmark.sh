#!/usr/bin/env bash
# Export benchmark: `mdkit export` (passthrough remux of an MP4) against `cp` and
# `ffmpeg -c copy` on one large generated H.264 + AAC file. See Benchmarks/README.md.
#
# usage: bash Benchmarks/export-benchmark.sh [SIZE_MB]   (from anywhere; default 1024)
#
# SIZE_MB is the minimum size of the generated input in MB (1 MB = 2^20 bytes here and in
# the report).
#
# Environment:
#   RUNS=N        timed runs per tool, the fastest counts (default 3)
#   MDKIT=PATH    time this mdkit binary instead of building one
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."   # the repository root
BENCH=Benchmarks
WORK=$BENCH/work
BIN=$WORK/bin
EXP=$WORK/export        # everything this benchmark makes, apart from bin/mdkit
OUTDIR=$EXP/out         # outputs, on the same file system as the input
INPUT=$EXP/input.mp4
STAMP=$EXP/input.params

SIZE_MB=${1:-1024}
RUNS=${RUNS:-3}
MDKIT=${MDKIT:-}
TARGET_WALL=1.2   # mdkit export wall time must be at most TARGET_WALL × cp's
TARGET_RSS=32     # mdkit export peak RSS must be below TARGET_RSS MiB
MIB=1048576

die() { printf 'export-benchmark: %s\n' "$*" >&2; exit 1; }
note() { printf '==> %s\n' "$*"; }

[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive number (got '$SIZE_MB')"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number (got '$RUNS')"

# --- Requirements ---------------------------------------------------------------------------

missing=()
for tool in ffmpeg ffprobe od; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt: time)")
[[ -n $MDKIT ]] || command -v swift > /dev/null || missing+=("swift")
(( ${#missing[@]} == 0 )) || die "missing: ${missing[*]} (see Benchmarks/README.md)"
[[ $(ffmpeg -hide_banner -encoders 2> /dev/null) == *" libx264 "* ]] \
    || die "this ffmpeg has no libx264 encoder (needed to make the input)"

mkdir -p "$BIN" "$EXP" "$OUTDIR"

# --- Build ----------------------------------------------------------------------------------

# shellcheck source=build.sh
source "$BENCH/build.sh"
if [[ -n $MDKIT ]]; then
    [[ -x $MDKIT ]] || die "MDKIT=$MDKIT is not an executable file"
    MDKIT_BIN=$MDKIT
else
    build_mdkit "$EXP/build-mdkit.log"
    MDKIT_BIN=$BIN/mdkit
fi

# --- Input ----------------------------------------------------------------------------------

# 1080p30 test pattern, H.264 (libx264 ultrafast, CBR 60 Mbit/s with filler so that the size
# is predictable) + AAC 128 kbit/s stereo, 48 kHz; ffmpeg's default layout (mdat, then moov).
# Reused when it was made with the same parameters and is large enough.
VIDEO_RATE=60   # Mbit/s
PARAMS="size_mb=$SIZE_MB generator=1 testsrc2 1920x1080 30fps libx264 ultrafast cbr ${VIDEO_RATE}M sine aac 128k stereo 48kHz"
need_bytes=$(( SIZE_MB * MIB ))

file_bytes() { stat -c %s "$1"; }

make_input() {
    # The encoder starts a little below the rate (about 59 of 60 Mbit/s); count on 58 Mbit/s
    # for video and audio together, plus 2 s.
    local seconds=$(( (need_bytes * 8 + 58000000 - 1) / 58000000 + 2 )) attempt got
    rm -f "$INPUT" "$STAMP"
    for attempt in 1 2; do
        note "generating the input: ${seconds} s of 1080p30 H.264 at ${VIDEO_RATE} Mbit/s + AAC (at least $SIZE_MB MB)"
        ffmpeg -nostdin -v error -y \
            -f lavfi -i testsrc2=size=1920x1080:rate=30 \
            -f lavfi -i sine=frequency=440:sample_rate=48000 \
            -map 0:v -map 1:a -t "$seconds" \
            -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
            -b:v "${VIDEO_RATE}M" -minrate "${VIDEO_RATE}M" -maxrate "${VIDEO_RATE}M" \
            -bufsize "${VIDEO_RATE}M" -x264-params nal-hrd=cbr \
            -c:a aac -b:a 128k -ac 2 \
            "$EXP/input.tmp.mp4" || die "ffmpeg could not make the input"
        got=$(file_bytes "$EXP/input.tmp.mp4")
        if (( got >= need_bytes )); then
            mv -f "$EXP/input.tmp.mp4" "$INPUT"
            printf '%s\n' "$PARAMS" > "$STAMP"
            return
        fi
        # Too small (the encoder undershot): scale the duration up and try once more.
        seconds=$(( seconds * need_bytes / got + 3 ))
    done
    rm -f "$EXP/input.tmp.mp4"
    die "the generated input is $got bytes, less than $SIZE_MB MB ($need_bytes bytes)"
}

if [[ -f $INPUT && -f $STAMP && $(< "$STAMP") == "$PARAMS" ]] && (( $(file_bytes "$INPUT") >= need_bytes )); then
    note "reusing $INPUT"
else
    make_input
fi
in_bytes=$(file_bytes "$INPUT")
in_mb=$(awk -v b="$in_bytes" -v m="$MIB" 'BEGIN { printf "%.1f", b / m }')
(( in_bytes >= need_bytes )) || die "$INPUT is smaller than $SIZE_MB MB"

# Room for one output at a time (outputs are deleted after every run) plus a margin.
avail_kb=$(df -Pk "$OUTDIR" | awk 'NR == 2 { print $4 }')
(( avail_kb * 1024 > in_bytes * 11 / 10 + 256 * MIB )) \
    || die "not enough free space in $OUTDIR for one output of about $in_mb MB (df -h $OUTDIR)"

# --- Helpers --------------------------------------------------------------------------------

# top_boxes FILE: the types of the top-level boxes, in order (reads only the box headers).
top_boxes() {
    local file=$1 off=0 total size type types=() b
    total=$(file_bytes "$file")
    while (( off + 8 <= total )); do
        read -r -a b < <(od -An -v -tx1 -N16 -j "$off" "$file" | tr '\n' ' ')
        size=$(( 16#${b[0]}${b[1]}${b[2]}${b[3]} ))
        printf -v type '%b' "\\x${b[4]}\\x${b[5]}\\x${b[6]}\\x${b[7]}"
        if (( size == 1 )); then
            size=$(( 16#${b[8]}${b[9]}${b[10]}${b[11]}${b[12]}${b[13]}${b[14]}${b[15]} ))
        elif (( size == 0 )); then
            size=$(( total - off ))
        fi
        if (( size < 8 )); then types+=("(bad size $size at $off)"); break; fi
        types+=("$type")
        off=$(( off + size ))
    done
    (( off == total )) || types+=("(ends at $off of $total bytes)")
    echo "${types[*]}"
}

# comes_before A B WORD...: whether A occurs among the words, before any B.
comes_before() {
    local first=$1 second=$2 word; shift 2
    for word in "$@"; do
        [[ $word == "$first" ]] && return 0
        [[ $word == "$second" ]] && return 1
    done
    return 1
}

# stream_types FILE: "0:video 1:audio ..." from ffprobe.
stream_types() {
    ffprobe -v error -show_entries stream=index,codec_type -of csv=p=0 "$1" | tr ',\n' ': ' | sed 's/ $//'
}

# stream_hash FILE N: the SHA-256 of the packets of stream N, demuxed and copied by ffmpeg;
# anything ffmpeg reports (-v error) goes to $EXP/check.err.
stream_hash() {
    ffmpeg -nostdin -v error -i "$1" -map "0:$2" -c copy -f streamhash - 2>> "$EXP/check.err"
}

# --- Check mdkit's output -------------------------------------------------------------------

# An export that fails, or writes something else than the input's packets, must not produce
# a (fast) figure: export once without and once with --faststart, and compare every stream's
# packets with the input's.
note "checking mdkit export: same packets per stream as the input, ffprobe silent, box order"
in_streams=$(stream_types "$INPUT")
declare -A IN_HASH
for n in $(ffprobe -v error -show_entries stream=index -of csv=p=0 "$INPUT"); do
    : > "$EXP/check.err"
    IN_HASH[$n]=$(stream_hash "$INPUT" "$n")
    [[ -n ${IN_HASH[$n]} && ! -s $EXP/check.err ]] \
        || die "ffmpeg cannot hash stream $n of the input: $(head -n 3 "$EXP/check.err")"
done
problems=()
for variant in plain faststart; do
    out=$OUTDIR/check-$variant.mp4
    flags=()
    [[ $variant == faststart ]] && flags=(--faststart)
    rm -f "$out"
    set +e
    "$MDKIT_BIN" export "$INPUT" "$out" "${flags[@]}" > "$EXP/check-$variant.out" 2> "$EXP/check-$variant.err"
    status=$?
    set -e
    label="mdkit export${flags[*]:+ ${flags[*]}}"
    if (( status != 0 )); then
        problems+=("$label: exit status $status: $(head -n 3 "$EXP/check-$variant.err")")
        rm -f "$out"
        continue
    fi
    [[ -f $out ]] || { problems+=("$label: exit status 0 but no output file"); continue; }
    out_streams=$(stream_types "$out")
    [[ $out_streams == "$in_streams" ]] \
        || problems+=("$label: streams '$out_streams', input has '$in_streams'")
    probe=$(ffprobe -v error "$out" 2>&1 || echo "(ffprobe exit status $?)")
    [[ -z $probe ]] || problems+=("$label: ffprobe -v error says: $(head -n 3 <<< "$probe")")
    for n in "${!IN_HASH[@]}"; do
        : > "$EXP/check.err"
        hash=$(stream_hash "$out" "$n" || true)
        [[ $hash == "${IN_HASH[$n]}" ]] \
            || problems+=("$label: stream $n: '${hash:-no hash}', input: '${IN_HASH[$n]}'")
        [[ ! -s $EXP/check.err ]] \
            || problems+=("$label: ffmpeg reading stream $n says: $(head -n 3 "$EXP/check.err")")
    done
    boxes=$(top_boxes "$out")
    case $variant in
        plain)     comes_before mdat moov $boxes || problems+=("$label: top-level boxes '$boxes', expected mdat before moov") ;;
        faststart) comes_before moov mdat $boxes || problems+=("$label: top-level boxes '$boxes', expected moov before mdat") ;;
    esac
    printf '    %-26s %s bytes (input %s), boxes: %s\n' "$label:" "$(file_bytes "$out")" "$in_bytes" "$boxes"
    rm -f "$out"
done
if (( ${#problems[@]} > 0 )); then
    echo "mdkit export check FAILED:" >&2
    printf '  - %s\n' "${problems[@]}" >&2
    die "mdkit export does not copy the input correctly, so it is not timed"
fi
echo "    passed: ${#IN_HASH[@]} streams ($in_streams), identical packets (streamhash, SHA-256) in both outputs, ffprobe silent"

# --- Timing ---------------------------------------------------------------------------------

declare -A WALL RSS STATUS OUTSIZE

# time_tool NAME OUT COMMAND...: RUNS runs of COMMAND (which writes OUT); keeps the fastest
# wall time and the highest peak RSS. Before every run: delete OUT, sync (so that the write-back
# of the previous run does not fall into this one) and cat the input (page cache warm).
time_tool() {
    local name=$1 out=$2; shift 2
    local run start end status wall rss best="" slug=${name//[^A-Za-z0-9]/_} extra
    STATUS[$name]=ok
    RSS[$name]=0
    for (( run = 1; run <= RUNS; run++ )); do
        rm -f "$out"
        sync
        cat "$INPUT" > /dev/null
        start=$EPOCHREALTIME   # no fork: date(1) would add its own start-up to every figure
        set +e
        /usr/bin/time -f '%M' -o "$EXP/time.out" "$@" > "$EXP/stdout-$slug.txt" 2> "$EXP/stderr-$slug.txt"
        status=$?
        set -e
        end=$EPOCHREALTIME
        if (( status != 0 )); then
            STATUS[$name]="FAILED (exit status $status: $(head -n 1 "$EXP/stderr-$slug.txt"); stderr in $EXP/stderr-$slug.txt)"
            rm -f "$out"
            return
        fi
        # A tool that exits 0 without writing the copy must not produce a figure.
        if [[ ! -f $out ]] || (( $(file_bytes "$out") < in_bytes * 99 / 100 )); then
            STATUS[$name]="FAILED (output missing or smaller than 99 % of the input)"
            rm -f "$out"
            return
        fi
        OUTSIZE[$name]=$(file_bytes "$out")
        rm -f "$out"
        extra=$(find "$OUTDIR" -mindepth 1 -print -quit)
        if [[ -n $extra ]]; then
            STATUS[$name]="FAILED (left $extra behind)"
            return
        fi
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        rss=$(tail -n 1 "$EXP/time.out")
        if (( rss > ${RSS[$name]} )); then RSS[$name]=$rss; fi
        if [[ -z $best ]] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$wall
            WALL[$name]=$wall
        fi
        printf '    %-26s run %d: %s s, peak RSS %s KB\n' "$name" "$run" "$wall" "$rss"
    done
}

NAMES=(cp "ffmpeg -c copy" "mdkit export" "mdkit export --faststart")
note "timing, best of $RUNS, page cache warm, input $in_mb MB"
time_tool "${NAMES[0]}" "$OUTDIR/out.mp4" cp "$INPUT" "$OUTDIR/out.mp4"
time_tool "${NAMES[1]}" "$OUTDIR/out.mp4" ffmpeg -nostdin -v error -i "$INPUT" -map 0 -c copy "$OUTDIR/out.mp4"
time_tool "${NAMES[2]}" "$OUTDIR/out.mp4" "$MDKIT_BIN" export "$INPUT" "$OUTDIR/out.mp4"
time_tool "${NAMES[3]}" "$OUTDIR/out.mp4" "$MDKIT_BIN" export "$INPUT" "$OUTDIR/out.mp4" --faststart

# --- Report ---------------------------------------------------------------------------------

commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
[[ -z $(git status --porcelain -- Sources Package.swift 2> /dev/null) ]] || commit="$commit + local changes"
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$INPUT")
echo
echo "Export benchmark: $in_mb MB input ($in_bytes bytes, $(printf '%.0f' "$duration") s of 1080p30 H.264 ${VIDEO_RATE} Mbit/s + AAC; mdat then moov)"
echo "Each tool: best of $RUNS runs, page cache warm, output on the same file system, sync before each run."
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB RAM, $(df -PT "$OUTDIR" | awk 'NR == 2 { print $2 }') file system"
echo "Versions: $(cp --version | head -n 1), $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), mdkit $MDKIT_BIN ($commit)"
echo
printf '%-26s %8s %8s %7s %13s\n' tool "wall s" "MB/s" "x cp" "peak RSS MiB"
printf '%-26s %8s %8s %7s %13s\n' -------------------------- -------- -------- ------- -------------
for name in "${NAMES[@]}"; do
    if [[ ${STATUS[$name]} != ok ]]; then
        printf '%-26s %s\n' "$name" "${STATUS[$name]}"
        continue
    fi
    ratio=-
    [[ ${STATUS[cp]} == ok ]] && ratio=$(awk -v a="${WALL[$name]}" -v b="${WALL[cp]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-26s %8s %8s %7s %13s\n' "$name" "${WALL[$name]}" \
        "$(awk -v m="$in_mb" -v w="${WALL[$name]}" 'BEGIN { printf "%.0f", (w > 0 ? m / w : 0) }')" \
        "$ratio" "$(awk -v k="${RSS[$name]}" 'BEGIN { printf "%.1f", k / 1024 }')"
done
echo "(MB = 2^20 bytes of input. x cp = wall time / cp's. Peak RSS: the highest of the runs, from /usr/bin/time.)"
sizes=()
for name in "${NAMES[@]}"; do
    [[ -n ${OUTSIZE[$name]:-} ]] && sizes+=("$name $(awk -v b="${OUTSIZE[$name]}" -v i="$in_bytes" 'BEGIN { printf "%+.3f %%", (b - i) * 100 / i }')")
done
(( ${#sizes[@]} == 0 )) || echo "Output size vs. input: $(IFS=,; echo "${sizes[*]}" | sed 's/,/, /g')"
echo

failed=0
for name in "${NAMES[@]}"; do [[ ${STATUS[$name]} == ok ]] || failed=1; done
for name in "${NAMES[@]:2}"; do
    if [[ ${STATUS[$name]} != ok || ${STATUS[cp]} != ok ]]; then
        echo "Target $name <= $TARGET_WALL × cp (wall): NOT EVALUATED (a timed run failed)"
    else
        ratio=$(awk -v a="${WALL[$name]}" -v b="${WALL[cp]}" 'BEGIN { printf "%.2f", a / b }')
        verdict="NOT MET"
        awk -v r="$ratio" -v t="$TARGET_WALL" 'BEGIN { exit !(r <= t) }' && verdict=MET
        echo "Target $name <= $TARGET_WALL × cp (wall): $verdict ($ratio ×)"
    fi
    if [[ ${STATUS[$name]} != ok ]]; then
        echo "Target $name peak memory < $TARGET_RSS MiB: NOT EVALUATED (a timed run failed)"
    else
        mib=$(awk -v k="${RSS[$name]}" 'BEGIN { printf "%.1f", k / 1024 }')
        verdict="NOT MET"
        awk -v k="${RSS[$name]}" -v t="$TARGET_RSS" 'BEGIN { exit !(k < t * 1024) }' && verdict=MET
        echo "Target $name peak memory < $TARGET_RSS MiB: $verdict ($mib MiB)"
    fi
done
exit "$failed"
