#!/usr/bin/env bash
# Makes the clips the join tests (issue 41, items 5, 7 and 8) need beside the real-world ones,
# under Tests/Fixtures/realworld, with ffmpeg (libx264, its native AAC encoder):
#
#   avc_2997.mov     H.264 High with B-frames (x264 -bf 3, B-pyramid) at 30000/1001 fps + AAC
#                    (48 kHz stereo) in a QuickTime file, 6 s (180 pictures): a moving testsrc2
#                    (a frame counter and a moving gradient in every picture), so no two
#                    pictures are alike and framemd5 finds each by content; the audio is seeded
#                    pink noise plus a rising tone, so Scripts/avsync.py finds any stretch of it.
#                    Smart cuts and joins with audio on a 29.97 fps MOV (issue 41, item 5).
#   avc_5994.mov     the same shape at 60000/1001 fps, 3 s (180 pictures): joined with
#                    avc_2997.mov, two rates in one join (issue 41, item 8: 69 of 182 pictures
#                    in GStreamer).
#
# Needs ffmpeg with libx264. Re-run from the repo root: Scripts/make-join-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/realworld
mkdir -p "$out"
ff() { ffmpeg -v error -y -nostdin "$@"; }
audio() { # duration
    echo "anoisesrc=color=pink:amplitude=0.25:seed=11:sample_rate=48000:duration=$1[n];aevalsrc=0.3*sin(2*PI*(330+30*t)*t):s=48000:d=$1[t];[n][t]amix=inputs=2:normalize=0"
}

ff -f lavfi -i "testsrc2=size=320x180:rate=30000/1001:duration=6" -filter_complex "$(audio 6)" \
   -c:v libx264 -profile:v high -preset veryfast -crf 28 -bf 3 -g 48 -keyint_min 48 -sc_threshold 0 -pix_fmt yuv420p \
   -x264-params threads=1 -c:a aac -b:a 64k -ac 2 -fflags +bitexact -f mov "$out/avc_2997.mov"

ff -f lavfi -i "testsrc2=size=320x180:rate=60000/1001:duration=3" -filter_complex "$(audio 3)" \
   -c:v libx264 -profile:v high -preset veryfast -crf 28 -bf 3 -g 96 -keyint_min 96 -sc_threshold 0 -pix_fmt yuv420p \
   -x264-params threads=1 -c:a aac -b:a 64k -ac 2 -fflags +bitexact -f mov "$out/avc_5994.mov"

ls -l "$out/avc_2997.mov" "$out/avc_5994.mov"
