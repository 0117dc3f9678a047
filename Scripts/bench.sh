#!/usr/bin/env bash
# Whole-process benchmarks of the nalu CLI (release build) next to cp and ffmpeg on the same
# large real streams. Prints a Markdown table; the numbers in Docs/performance.md come from here.
#
#   Scripts/make-bench-input.sh   # once: Benchmarks/data/big.h264, big.h265 and their MP4 remuxes
#   Scripts/bench.sh              # needs hyperfine, ffmpeg, GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product nalu >/dev/null
nalu=$PWD/.build/release/nalu
data=$PWD/Benchmarks/data
tmp=$(mktemp -d /tmp/nalu-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Length-prefixed inputs and records made by nalu itself, once.
for ext in h264 h265; do
    "$nalu" convert "$data/big.$ext" --to avcc -o "$data/big.$ext.lp" --extradata-out "$data/big.$ext.record"
done

peak() { # peak resident memory in MiB of a command
    /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}

row() { # name, command...
    local name=$1; shift
    hyperfine --warmup 1 --runs 5 --export-json "$tmp/h.json" "$*" >/dev/null 2>&1
    local mean sd
    mean=$(python3 -c "import json;r=json.load(open('$tmp/h.json'))['results'][0];print(f\"{r['mean']:.3f}\")")
    sd=$(python3 -c "import json;r=json.load(open('$tmp/h.json'))['results'][0];print(f\"{r['stddev']:.3f}\")")
    local mem
    mem=$(peak bash -c "$*")
    echo "| $name | $mean ± $sd | $mem |"
}

for ext in h264 h265; do
    in=$data/big.$ext
    size=$(stat -c %s "$in")
    echo
    echo "### big.$ext ($((size / 1000000)) MB)"
    echo
    echo "| command | wall time (s) | peak RSS (MiB) |"
    echo "|---|---|---|"
    row "cp" cp "$in" "$tmp/copy"
    row "nalu info" "$nalu" info "$in"
    row "nalu nals > /dev/null" "$nalu" nals "$in" ">/dev/null"
    row "nalu convert --to avcc" "$nalu" convert "$in" --to avcc -o "$tmp/out.lp" --extradata-out "$tmp/out.record"
    row "nalu convert --to annexb (from length-prefixed)" "$nalu" convert "$in.lp" --extradata "$in.record" --to annexb -o "$tmp/out.annexb"
    bsf=h264_mp4toannexb; fmt=h264
    if [ "$ext" = h265 ]; then bsf=hevc_mp4toannexb; fmt=hevc; fi
    row "ffmpeg -c:v copy -bsf:v $bsf (MP4 → Annex-B)" ffmpeg -v error -y -i "$in.mp4" -c:v copy -bsf:v "$bsf" -f "$fmt" "$tmp/ff.annexb"
    row "ffmpeg -c copy (Annex-B → MP4)" ffmpeg -v error -y -r 30 -f "$fmt" -i "$in" -c copy "$tmp/ff.mp4"
    row "ffprobe -count_frames (every frame parsed)" ffprobe -v error -count_packets -show_entries stream=nb_read_packets "$in"
done
