#!/usr/bin/env bash
# Makes the real-world-shaped clips under Tests/Fixtures/realworld with ffmpeg (libx264, libx265,
# its native AAC encoder): the shapes users carry, small enough to commit. Issue 31.
#
#   phone.mp4        H.264 High with B-frames + AAC (48 kHz stereo), 10.0 s at 30 fps (300
#                    pictures), creation_time set: the "phone clip" every remux test starts from
#   hevc_2997.mov    HEVC Main at 30000/1001 fps + AAC in a QuickTime file (qt brand), 4 s
#   sscut.mp4        `ffmpeg -ss 2.3 -i phone.mp4 -c copy`: starts with pictures hidden by an
#                    edit list (video) and AAC priming hidden by the audio edit list
#   vfr.mp4          variable frame rate from `select` + `-fps_mode vfr` (60 fps source, 5 of
#                    every 8 pictures kept: 37.5 fps on average, stts with two deltas) + AAC, 8 s
#   frag.mp4         phone.mp4 copied into a fragmented MP4 (empty moov, moof per keyframe)
#   phone.ts         phone.mp4 copied into MPEG-TS (H.264 + ADTS AAC), as ffmpeg muxes it
#   rotated.mov      phone.mp4's first 3 s in a MOV with a 90° display matrix and creation_time
#   audiolead.mp4    phone.mp4's first 6 s with the video 0.5 s late (`-itsoffset 0.5`: an empty
#                    edit on the video), the audio from 0: the audio leads (issue 41, item 1)
#   cmaf.mp4         phone.mp4's first 6 s as CMAF (`frag_keyframe+empty_moov+default_base_moof`,
#                    `-use_editlist 0`), the AAC re-encoded: the video (B-frames) starts at its
#                    composition offset, 2 frames in, with no edit list; the first AAC sample
#                    lasts until then (issue 41, item 3)
#   sscut44.mp4      `ffmpeg -ss 3.3 -c copy` of an 8 s clip of 25 fps H.264 (B-frames) and
#                    44.1 kHz AAC: both edits start inside a sample (the video's 20 ms into a
#                    picture, the audio's inside an AAC frame) (issue 41, item 6)
#
# The audio is seeded pink noise plus a rising tone: no two windows alike, so
# Scripts/avsync.py can find any stretch of it by content. The pictures are testsrc2
# (a frame counter in every picture): no two pictures alike, so framemd5 finds each by content.
# Needs ffmpeg with libx264/libx265. Re-run from the repo root: Scripts/make-realworld-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/realworld
mkdir -p "$out"
ff() { ffmpeg -v error -y -nostdin "$@"; }
audio() { # duration
    echo "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=$1[n];aevalsrc=0.3*sin(2*PI*(220+40*t)*t):s=48000:d=$1[t];[n][t]amix=inputs=2:normalize=0"
}

ff -f lavfi -i "testsrc2=size=320x180:rate=30:duration=10" -filter_complex "$(audio 10)" \
   -c:v libx264 -profile:v high -preset veryfast -crf 30 -bf 3 -g 60 -pix_fmt yuv420p \
   -c:a aac -b:a 64k -ac 2 -metadata creation_time=2024-05-01T10:20:30.000000Z \
   -fflags +bitexact -movflags +faststart "$out/phone.mp4"

ff -f lavfi -i "testsrc2=size=320x180:rate=30000/1001:duration=4" -filter_complex "$(audio 4)" \
   -c:v libx265 -preset ultrafast -crf 32 -pix_fmt yuv420p -tag:v hvc1 -x265-params log-level=error:keyint=48 \
   -c:a aac -b:a 64k -ac 2 -fflags +bitexact -f mov "$out/hevc_2997.mov"

ff -ss 2.3 -i "$out/phone.mp4" -c copy -fflags +bitexact "$out/sscut.mp4"

ff -f lavfi -i "testsrc2=size=320x180:rate=60:duration=8" -filter_complex "$(audio 8)" \
   -vf "select='lt(mod(n\,8)\,5)'" -fps_mode vfr \
   -c:v libx264 -preset veryfast -crf 30 -bf 2 -g 60 -pix_fmt yuv420p \
   -c:a aac -b:a 64k -ac 2 -fflags +bitexact -video_track_timescale 15360 "$out/vfr.mp4"

ff -i "$out/phone.mp4" -c copy -movflags frag_keyframe+empty_moov+default_base_moof -fflags +bitexact "$out/frag.mp4"

ff -i "$out/phone.mp4" -c copy -fflags +bitexact -f mpegts "$out/phone.ts"

ff -t 3 -i "$out/phone.mp4" -c copy -metadata:s:v:0 rotate=90 \
   -metadata creation_time=2023-07-14T08:09:10.000000Z -fflags +bitexact -f mov "$out/rotated.mov"

ff -itsoffset 0.5 -t 6 -i "$out/phone.mp4" -t 6.5 -i "$out/phone.mp4" -map 0:v -map 1:a -c copy -fflags +bitexact "$out/audiolead.mp4"

ff -t 6 -i "$out/phone.mp4" -c:v copy -c:a aac -b:a 64k -movflags frag_keyframe+empty_moov+default_base_moof -use_editlist 0 \
   -fflags +bitexact "$out/cmaf.mp4"

tmp44=$(mktemp --suffix=.mp4)
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=8" -filter_complex "$(audio 8)" \
   -c:v libx264 -profile:v high -preset veryfast -crf 30 -bf 3 -g 50 -pix_fmt yuv420p \
   -c:a aac -b:a 64k -ac 2 -ar 44100 -fflags +bitexact "$tmp44"
ff -ss 3.3 -i "$tmp44" -c copy -fflags +bitexact "$out/sscut44.mp4"
rm -f "$tmp44"

ls -l "$out"
