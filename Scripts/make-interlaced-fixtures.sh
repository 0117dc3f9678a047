#!/bin/sh
# Interlaced fixtures (issue 41 item 15), made from ffmpeg's testsrc2 woven into fields by its
# `interlace` filter (each frame's two fields from two successive 59.94/50 Hz source frames,
# so the fields really differ in time):
#   avc_480i_tff.mp4  720x480i 29.97, top field first: libx264 MBAFF (+ildct+ilme, tff=1), GOPs
#                     of 15 with B-frames, picture timing SEI (pic_struct 3), AAC audio (pink noise
#                     and a rising tone, as Scripts/avsync.py needs: no two windows alike); 60 frames.
#   avc_576i_bff.ts   720x576i 25, bottom field first (bff=1) in MPEG-TS with AAC; 50 frames.
#   avc_1080i_tff.mp4 1920x1080i 29.97, top field first, GOPs of 6; 12 frames (broadcast shape).
#   hevc_fields_tff.h265  720x480i as x265 writes interlaced video: 120 field pictures of
#                     720x240 at 59.94 fields/s (`--interlace tff`: field_seq_flag 1, pic_struct
#                     1/2 per field), GOPs of 30.
set -eu
out="${1:-Tests/Fixtures/interlaced}"
mkdir -p "$out"
audio() { # duration
    echo "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=$1[n];aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=$1[t];[n][t]amix=inputs=2:normalize=0"
}
ffmpeg -v error -f lavfi -i testsrc2=size=720x480:rate=60000/1001 -filter_complex "$(audio 2.002)" \
  -vf "interlace=scan=tff,setfield=tff" -t 2.002 -pix_fmt yuv420p -c:v libx264 -preset medium -crf 26 \
  -flags +ildct+ilme -x264-params tff=1:pic-struct=1:keyint=15:min-keyint=15:scenecut=0:bframes=2 \
  -c:a aac -b:a 64k -y "$out/avc_480i_tff.mp4"
ffmpeg -v error -f lavfi -i testsrc2=size=720x576:rate=50 -filter_complex "$(audio 2)" \
  -vf "interlace=scan=bff,setfield=bff" -t 2 -pix_fmt yuv420p -c:v libx264 -preset medium -crf 28 \
  -flags +ildct+ilme -x264-params bff=1:pic-struct=1:keyint=12:min-keyint=12:scenecut=0:bframes=2 \
  -c:a aac -b:a 64k -y "$out/avc_576i_bff.ts"
ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=60000/1001 \
  -vf "interlace=scan=tff,setfield=tff" -frames:v 12 -pix_fmt yuv420p -c:v libx264 -preset medium -crf 32 \
  -flags +ildct+ilme -x264-params tff=1:pic-struct=1:keyint=6:min-keyint=6:scenecut=0:bframes=2 \
  -y "$out/avc_1080i_tff.mp4"
ffmpeg -v error -f lavfi -i testsrc2=size=720x480:rate=60000/1001 -vf "interlace=scan=tff,separatefields" -frames:v 120 \
  -pix_fmt yuv420p -f yuv4mpegpipe - \
  | x265 --log-level none --no-progress --y4m --input - --interlace tff --preset medium --crf 28 --keyint 30 --min-keyint 30 \
      --no-scenecut --output "$out/hevc_fields_tff.h265"
ls -l "$out"
