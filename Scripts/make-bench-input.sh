#!/usr/bin/env bash
# Makes the large real streams the benchmarks read (not committed): Benchmarks/data/big.h264 and
# big.h265, each at least 200 MB, plus their MP4 remuxes (length-prefixed samples) for the
# ffmpeg comparisons. Needs ffmpeg with libx264/libx265.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Benchmarks/data
d=Benchmarks/data
if [ ! -s "$d/big.h264" ]; then
    # 1080p x264 at a high constant quantiser: ~230 MB in 12 s of 30 fps video.
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -f lavfi -i "nullsrc=size=1920x1080,geq=random(1)*255:128:128" \
        -filter_complex "[0][1]blend=all_mode=addition:all_opacity=0.15,format=yuv420p" -frames:v 360 \
        -c:v libx264 -preset ultrafast -qp 14 -g 60 -bf 0 -f h264 "$d/big.h264"
fi
if [ ! -s "$d/big.h265" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -f lavfi -i "nullsrc=size=1920x1080,geq=random(1)*255:128:128" \
        -filter_complex "[0][1]blend=all_mode=addition:all_opacity=0.15,format=yuv420p" -frames:v 360 \
        -c:v libx265 -preset ultrafast -x265-params log-level=error:qp=8:keyint=60 -f hevc "$d/big.h265"
fi
for ext in h264 h265; do
    [ -s "$d/big.$ext.mp4" ] || ffmpeg -v error -y -r 30 -i "$d/big.$ext" -c copy "$d/big.$ext.mp4"
done
ls -l "$d"
