#!/usr/bin/env bash
# Whole-process benchmarks of nalu's MP4 paths (release build) next to cp and ffmpeg on the large
# real streams. Prints the Markdown tables of Docs/performance.md ("Every MP4 path").
#
#   Scripts/make-bench-input.sh   # once: Benchmarks/data/big.h264, big.h265 and their MP4 remuxes
#   Scripts/bench-mp4.sh [runs]   # needs hyperfine, ffmpeg, GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
swift build -c release --product nalu >/dev/null
nalu=$PWD/.build/release/nalu
data=${NALU_BENCH_DATA:-$PWD/Benchmarks/data}
tmp=$(mktemp -d /tmp/nalu-bench-mp4.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

peak() { # peak resident memory in MiB of a command
    /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'
}

row() { # name, command...
    local name=$1; shift
    hyperfine --warmup 2 --runs "$runs" --export-json "$tmp/h.json" "$*" >/dev/null 2>&1
    local mean sd
    mean=$(python3 -c "import json;r=json.load(open('$tmp/h.json'))['results'][0];print(f\"{r['mean']:.3f}\")")
    sd=$(python3 -c "import json;r=json.load(open('$tmp/h.json'))['results'][0];print(f\"{r['stddev']:.3f}\")")
    echo "$mean" > "$tmp/last"
    echo "| $name | $mean ± $sd | RATIO | $(peak bash -c "$*") |"
}

for ext in h264 h265; do
    in=$data/big.$ext
    mp4=$in.mp4
    bsf=h264_mp4toannexb; fmt=h264
    if [ "$ext" = h265 ]; then bsf=hevc_mp4toannexb; fmt=hevc; fi
    cat "$mp4" "$in" > /dev/null   # into the page cache
    echo
    echo "### big.$ext.mp4 ($(( $(stat -c %s "$mp4") / 1000000 )) MB)"
    echo
    echo "| command | wall time (s) | × cp | peak RSS (MiB) |"
    echo "|---|---:|---:|---:|"
    line=$(row "cp big.$ext.mp4" cp "$mp4" "$tmp/copy"); cp_time=$(cat "$tmp/last"); echo "${line/RATIO/1.00}"
    ratio() { python3 -c "print(f'{$(cat "$tmp/last")/$cp_time:.2f}')"; }
    line=$(row "nalu convert big.$ext.mp4 --to annexb" "$nalu" convert "$mp4" --to annexb -o "$tmp/out.$ext"); echo "${line/RATIO/$(ratio)}"
    line=$(row "ffmpeg -c:v copy -bsf:v $bsf -f $fmt" ffmpeg -v error -y -i "$mp4" -c:v copy -bsf:v "$bsf" -f "$fmt" "$tmp/ff.$ext"); echo "${line/RATIO/$(ratio)}"
    line=$(row "nalu info big.$ext.mp4" "$nalu" info "$mp4" ">/dev/null"); echo "${line/RATIO/$(ratio)}"
    line=$(row "nalu keyframes big.$ext.mp4" "$nalu" keyframes "$mp4" ">/dev/null"); echo "${line/RATIO/$(ratio)}"
    line=$(row "nalu convert big.$ext --to mp4" "$nalu" convert "$in" --to mp4 -o "$tmp/out.mp4"); echo "${line/RATIO/$(ratio)}"
    line=$(row "nalu convert big.$ext --to mp4 --faststart" "$nalu" convert "$in" --to mp4 --faststart -o "$tmp/out.mp4"); echo "${line/RATIO/$(ratio)}"
    line=$(row "nalu convert big.$ext --to mp4 --fragmented" "$nalu" convert "$in" --to mp4 --fragmented -o "$tmp/out.mp4"); echo "${line/RATIO/$(ratio)}"
    line=$(row "ffmpeg -f $fmt -i big.$ext -c copy out.mp4" ffmpeg -v error -y -r 30 -f "$fmt" -i "$in" -c copy "$tmp/ff.mp4"); echo "${line/RATIO/$(ratio)}"
done
