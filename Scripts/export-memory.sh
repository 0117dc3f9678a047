#!/usr/bin/env bash
# Peak memory of a transcode through the library (issue 39 item 3): makes H.264 + AAC inputs of
# SIZE (default 1280x720) lasting each of DURATIONS seconds (default 10 60) with ffmpeg's
# testsrc2 and sine sources, transcodes each with transcode-sample (ExportSession: decode →
# encode → write, 4 pictures in flight) under GNU time, and prints the peak RSS of each run:
#
#   seconds=10 size=1280x720 frames=300 peak_rss_kib=…
#
# Flat figures show that memory does not grow with the input's length.
#   Scripts/export-memory.sh [SIZE] [DURATIONS...]   (after swift build --product transcode-sample)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1280x720}
if [ $# -gt 0 ]; then shift; fi
if [ $# -gt 0 ]; then durations=("$@"); else durations=(10 60); fi
sample=${TRANSCODE_SAMPLE:-.build/debug/transcode-sample}
work=$(mktemp -d "${TMPDIR:-/tmp}/nalu-export-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
for seconds in "${durations[@]}"; do
    input="$work/in-$seconds.mp4"
    ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds" \
        -f lavfi -i "sine=frequency=440:duration=$seconds" -c:v libx264 -preset ultrafast -g 60 \
        -c:a aac -shortest "$input"
    /usr/bin/time -v "$sample" "$input" "$work/out-$seconds.mp4" > /dev/null 2> "$work/time-$seconds.txt"
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time-$seconds.txt")
    frames=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$work/out-$seconds.mp4")
    echo "seconds=$seconds size=$size frames=$frames peak_rss_kib=$rss"
done
