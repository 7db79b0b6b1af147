# Sourced by read-benchmark.sh and write-benchmark.sh (bash): makes the benchmark corpus,
# or reuses it when it was made for the same COUNT by the same generator. See README.md.
#
# make_corpus CORPUS_DIR SOURCES_DIR COUNT KINDS
#   KINDS: a comma-separated list of make-corpus.py's kinds (see resolve_kinds).
#   SOURCES_DIR gets the ffmpeg-made audio and covers, CORPUS_DIR the COUNT tagged files
#   written by make-corpus.py, with manifest.tsv and a STAMP. Both are deleted and made
#   anew when the STAMP does not match. Needs BENCH (the Benchmarks folder) and the
#   caller's note and die functions.

CORPUS_VERSION=4   # bump when changing the ffmpeg sources below

# resolve_kinds KINDS: prints the comma-separated kinds for KINDS, which is "mp3-m4a" (the
# four MP3 and M4A kinds the issues' benchmarks ask for), "all" (the nine first kinds),
# "ape-asf" (WavPack, Musepack, TrueAudio and WMA: the newer kinds TagLib 1.13 reads too),
# "no-taglib" (ADTS AAC, AC-3, DSF and Matroska audio: kinds TagLib 1.13 does not read, so
# mutagen, or exiftool for Matroska, is the baseline), "matroska" (Matroska audio, mkvmerge-made
# Matroska video and WebM: TagLib is the baseline when it is 2.2 or newer, see
# read-benchmark.sh), or a comma-separated list of kinds.
resolve_kinds() {
    case $1 in
        mp3-m4a) echo "mp3-id3v23,mp3-id3v24,m4a-first,m4a-last" ;;
        all) echo "mp3-id3v23,mp3-id3v24,m4a-first,m4a-last,flac,ogg-vorbis,ogg-opus,wav,aiff" ;;
        ape-asf) echo "wavpack,musepack,tta,wma" ;;
        no-taglib) echo "aac,ac3,dsf,mka" ;;
        matroska) echo "mka,mkv,webm" ;;
        *) echo "$1" ;;
    esac
}

# select_kinds KINDS: checks KINDS and sets KIND_LIST (resolve_kinds) and kind_count.
select_kinds() {
    [[ $1 =~ ^[a-z0-9,-]+$ ]] || die "KINDS must be mp3-m4a, all or a comma-separated list of kinds (got '$1')"
    KIND_LIST=$(resolve_kinds "$1")
    kind_count=$(tr ',' '\n' <<< "$KIND_LIST" | grep -c .)
}

make_corpus() {
    local corpus=$1 sources=$2 count=$3 kinds=$4
    local stamp
    stamp="count=$count kinds=$kinds sources=$CORPUS_VERSION generator=$(sha1sum < "$BENCH/make-corpus.py" | cut -c1-12)"
    if [[ -f $corpus/STAMP && $(< "$corpus/STAMP") == "$stamp" ]]; then
        note "reusing the corpus in $corpus ($count files)"
        return
    fi
    note "generating the corpus in $corpus ($count files, kinds: $kinds)"
    rm -rf "$corpus" "$sources"
    mkdir -p "$corpus" "$sources"
    local ff=(ffmpeg -nostdin -hide_banner -loglevel error -y)
    local tone=(-f lavfi -i "sine=frequency=440:sample_rate=44100:duration=3" -ac 2 -map_metadata -1)
    "${ff[@]}" "${tone[@]}" -c:a libmp3lame -b:a 128k "$sources/audio.mp3"
    "${ff[@]}" "${tone[@]}" -c:a aac -b:a 128k "$sources/moov-last.m4a"
    "${ff[@]}" "${tone[@]}" -c:a aac -b:a 128k -movflags +faststart "$sources/moov-first.m4a"
    "${ff[@]}" "${tone[@]}" -c:a flac "$sources/audio.flac"
    "${ff[@]}" "${tone[@]}" -c:a libvorbis -q:a 4 "$sources/vorbis.ogg"
    "${ff[@]}" "${tone[@]}" -c:a libopus -b:a 96k "$sources/opus.ogg"   # resampled to 48 kHz
    # WAV and AIFF are uncompressed: 3 s of mono 22.05 kHz 16-bit PCM (~130 KB) each.
    local pcm=(-f lavfi -i "sine=frequency=440:sample_rate=22050:duration=3" -ac 1 -map_metadata -1)
    "${ff[@]}" "${pcm[@]}" -c:a pcm_s16le -bitexact "$sources/audio.wav"
    "${ff[@]}" "${pcm[@]}" -c:a pcm_s16be -bitexact "$sources/audio.aiff"
    # The newer kinds: only made when asked for (mpcenc comes from musepack-tools).
    if [[ ,$kinds, == *,wavpack,* ]]; then "${ff[@]}" "${tone[@]}" -c:a wavpack "$sources/audio.wv"; fi
    if [[ ,$kinds, == *,tta,* ]]; then "${ff[@]}" "${pcm[@]}" -c:a tta -f tta "$sources/audio.tta"; fi
    if [[ ,$kinds, == *,wma,* ]]; then "${ff[@]}" "${tone[@]}" -c:a wmav2 -b:a 128k "$sources/audio.wma"; fi
    if [[ ,$kinds, == *,aac,* ]]; then "${ff[@]}" "${tone[@]}" -c:a aac -b:a 128k -f adts "$sources/audio.aac"; fi
    if [[ ,$kinds, == *,ac3,* ]]; then "${ff[@]}" "${tone[@]}" -c:a ac3 -b:a 192k "$sources/audio.ac3"; fi
    if [[ ,$kinds, == *,mka,* ]]; then "${ff[@]}" "${tone[@]}" -c:a libvorbis -q:a 4 "$sources/audio.mka"; fi
    if [[ ,$kinds, == *,mkv,* || ,$kinds, == *,webm,* ]]; then
        local picture=(-f lavfi -i "testsrc=size=320x240:rate=25:duration=3")
        printf ';FFMETADATA1\n' > "$sources/chapters.ffmeta"
        local start
        for start in 0 1000 2000; do
            printf '[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=Chapter %d\n' \
                "$start" $((start + 1000)) $((start / 1000 + 1)) >> "$sources/chapters.ffmeta"
        done
    fi
    if [[ ,$kinds, == *,mkv,* ]]; then
        "${ff[@]}" "${picture[@]}" "${tone[@]}" -c:v libx264 -preset veryfast -pix_fmt yuv420p \
            -c:a libvorbis -q:a 4 "$sources/video.mkv"
    fi
    if [[ ,$kinds, == *,webm,* ]]; then
        "${ff[@]}" "${picture[@]}" "${tone[@]}" -c:v libvpx -b:v 200k -c:a libopus -b:a 96k "$sources/video.webm"
    fi
    if [[ ,$kinds, == *,musepack,* ]]; then
        command -v mpcenc > /dev/null || die "mpcenc is missing (apt: musepack-tools)"
        "${ff[@]}" "${tone[@]}" -c:a pcm_s16le "$sources/musepack-input.wav"
        mpcenc --silent --overwrite "$sources/musepack-input.wav" "$sources/audio.mpc"
    fi
    "${ff[@]}" -f lavfi -i "testsrc=size=500x500" -frames:v 1 -q:v 2 "$sources/cover.jpg"
    "${ff[@]}" -f lavfi -i "mandelbrot=size=240x240" -frames:v 1 "$sources/cover.png"
    note "covers: cover.jpg $(stat -c %s "$sources/cover.jpg") bytes, cover.png $(stat -c %s "$sources/cover.png") bytes"
    python3 "$BENCH/make-corpus.py" "$sources" "$corpus" "$count" "$kinds"
    printf '%s\n' "$stamp" > "$corpus/STAMP"
}
