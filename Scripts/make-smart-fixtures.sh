#!/bin/sh
# Fixtures for `nalu trim --smart` (issue 34): 160x90, 25 fps, 75 frames (3 s), GOPs of 12,
# encoded by libx264/libx265 through ffmpeg (the x264/x265 CLIs write no MP4, and ffmpeg's raw
# H.264 demuxer loses the B-frames' presentation times), from testsrc2. One has AAC audio.
set -eu
out="${1:-Tests/Fixtures/smart}"
mkdir -p "$out"
src="-f lavfi -i testsrc2=size=160x90:rate=25:duration=3"
enc() { name=$1; shift; ffmpeg -v error $src "$@" -y "$out/$name.mp4"; }
# Closed GOP, B-pyramid, CABAC, BT.709 colour, SAR 1:1; AAC audio (sine, 3 s).
ffmpeg -v error $src -f lavfi -i sine=frequency=440:sample_rate=48000:duration=3 -pix_fmt yuv420p -c:v libx264 \
  -x264-params keyint=12:min-keyint=12:scenecut=0:bframes=3:b-pyramid=normal:crf=20:colorprim=bt709:transfer=bt709:colormatrix=bt709:sar=1/1 \
  -c:a aac -b:a 64k -shortest -y "$out/avc_closed_bpyramid.mp4"
# CAVLC Baseline.
enc avc_baseline_cavlc -pix_fmt yuv420p -c:v libx264 -profile:v baseline -x264-params keyint=12:min-keyint=12:scenecut=0:crf=20
# Several slices per picture.
enc avc_slices -pix_fmt yuv420p -c:v libx264 -x264-params keyint=12:min-keyint=12:scenecut=0:slices=3:crf=20
# High 10.
enc avc_high10 -pix_fmt yuv420p10le -c:v libx264 -x264-params keyint=12:min-keyint=12:scenecut=0:crf=20
# HEVC open GOP: CRA keyframes with RASL pictures.
enc hevc_open_gop -pix_fmt yuv420p -c:v libx265 -tag:v hvc1 -x265-params log-level=none:keyint=12:min-keyint=12:scenecut=0:open-gop=1:bframes=3:crf=24
# HEVC Main 10, closed GOP.
enc hevc_main10 -pix_fmt yuv420p10le -c:v libx265 -tag:v hvc1 -x265-params log-level=none:keyint=12:min-keyint=12:scenecut=0:open-gop=0:crf=24
ls -l "$out"
