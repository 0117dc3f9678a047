#!/usr/bin/env bash
# Speed of a transcode (issue 39, "Tests and figures"): the library (export-settings-sample:
# one ExportSession, decode → encode → write with back-pressure), `nalu encode IN -o OUT.mp4` and
# `ffmpeg -i IN -c:v libx264 -preset P -c:a copy OUT` on the same H.264 + AAC input, in one
# hyperfine run (Markdown table on standard output), then the peak RSS of one run of each (GNU time).
# All three decode with libavcodec and encode with libx264 at the same preset and 5 Mbit/s, and
# copy the audio.
#
#   Scripts/bench-transcode.sh [SIZE=1280x720] [SECONDS=10] [PRESET=medium] [RUNS=3]
#
# Needs a release build (swift build -c release --product nalu --product export-settings-sample),
# ffmpeg, hyperfine and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1280x720}
seconds=${2:-10}
preset=${3:-medium}
runs=${4:-3}
bin=${BIN:-.build/release}
work=$(mktemp -d "${TMPDIR:-/tmp}/nalu-bench-transcode.XXXXXX")
trap 'rm -rf "$work"' EXIT
for tool in "$bin/nalu" "$bin/export-settings-sample"; do
    [ -x "$tool" ] || { echo "build first: swift build -c release --product nalu --product export-settings-sample" >&2; exit 1; }
done
input="$work/in.mp4"
ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds" -f lavfi -i "sine=frequency=440:duration=$seconds" \
    -c:v libx264 -preset ultrafast -g 60 -pix_fmt yuv420p -c:a aac -shortest "$input"
library=("$bin/export-settings-sample" "$input" "$work/library.mp4" --preset "$preset")
cli=("$bin/nalu" encode "$input" --preset "$preset" --bitrate 5M -o "$work/cli.mp4" --quiet)
ffmpeg_cmd=(ffmpeg -v error -y -i "$input" -c:v libx264 -preset "$preset" -b:v 5M -c:a copy "$work/ffmpeg.mp4")
hyperfine -w 1 -r "$runs" --export-markdown "$work/table.md" \
    -n "library (ExportSession)" "${library[*]}" \
    -n "nalu encode" "${cli[*]}" \
    -n "ffmpeg -c:v libx264 -c:a copy" "${ffmpeg_cmd[*]}" > /dev/null
cat "$work/table.md"
echo
for name in library cli ffmpeg_cmd; do
    declare -n command=$name
    /usr/bin/time -v "${command[@]}" > /dev/null 2> "$work/time.txt"
    echo "$name peak_rss_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")"
done
