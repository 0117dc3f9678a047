#!/usr/bin/env bash
# The source of the smart-trim figure (issue 34, Docs/performance.md): Benchmarks/data/smart_1080p.mp4,
# 1080p 25 fps testsrc2 with a 440 Hz AAC track, x264 (superfast, B-frames, 2 s closed GOPs),
# MINUTES long (default 10). Not committed. Needs ffmpeg with libx264.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
d=Benchmarks/data
mkdir -p "$d"
out="$d/smart_1080p.mp4"
[ -s "$out" ] && { ls -l "$out"; exit 0; }
seconds=$((minutes * 60))
ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=$seconds" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" \
    -pix_fmt yuv420p -c:v libx264 -preset superfast -x264-params keyint=50:min-keyint=50:scenecut=0:bframes=3:crf=23 \
    -c:a aac -b:a 96k -shortest "$out"
ls -l "$out"
