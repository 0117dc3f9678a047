#!/usr/bin/env bash
# Makes the transport streams the join tests of issue 41 (items 1, 7–9: joins keep every
# picture's own time; MP4 + TS joins carry the audio) need, under Tests/Fixtures/tsjoin, with
# ffmpeg (libx264, its native AAC encoder):
#
#   source.mp4   H.264 High with B-frames (x264 -bf 3) at 25 fps + AAC (48 kHz stereo), 8 s: a
#                moving testsrc2 (a frame counter in every picture: framemd5 finds each by
#                content) and seeded pink noise plus a rising tone (Scripts/avsync.py finds any
#                stretch); a keyframe every 2 s, so -c copy cuts at 4 s are exact.
#   head.mp4     source.mp4's first 4 s, cut by ffmpeg -c copy (MP4, its AAC priming edit).
#   tail.ts      source.mp4 from 4 s to the end, cut by ffmpeg -c copy into MPEG-TS: the mixed
#                MP4 + TS join (its audio frames at their own PTS).
#   vfr.ts       Tests/Fixtures/realworld/vfr.mp4 (variable frame rate: 1/60 s steps and gaps,
#                B-frames, AAC) remuxed by ffmpeg -c copy into MPEG-TS: every picture its own PTS.
#   r25.ts       testsrc2 at 25 fps, 2 s, B-frames, AAC: one piece of a join of two rates.
#   r30.ts       the same at 30 fps, 2 s.
#   wrap.ts      r30.ts's content with ffmpeg's -output_ts_offset putting the 33-bit clock
#                (ISO/IEC 13818-1 2.4.3.7: 90 kHz modulo 2^33) through its wrap 1 s in.
#
# Needs ffmpeg with libx264. Re-run from the repo root: Scripts/make-tsjoin-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/tsjoin
mkdir -p "$out"
ff() { ffmpeg -v error -y -nostdin "$@"; }
audio() { # duration
    echo "anoisesrc=color=pink:amplitude=0.25:seed=11:sample_rate=48000:duration=$1[n];aevalsrc=0.3*sin(2*PI*(330+30*t)*t):s=48000:d=$1[t];[n][t]amix=inputs=2:normalize=0"
}
x264() { # gop
    echo "-c:v libx264 -profile:v high -preset veryfast -crf 30 -bf 3 -g $1 -keyint_min $1 -sc_threshold 0 -pix_fmt yuv420p -x264-params threads=1"
}

# shellcheck disable=SC2046
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=8" -filter_complex "$(audio 8)" \
   $(x264 50) -c:a aac -b:a 64k -ac 2 -fflags +bitexact "$out/source.mp4"
ff -i "$out/source.mp4" -t 4 -map 0 -c copy -fflags +bitexact "$out/head.mp4"
ff -ss 4 -i "$out/source.mp4" -map 0 -c copy -f mpegts "$out/tail.ts"

ff -i Tests/Fixtures/realworld/vfr.mp4 -map 0 -c copy -f mpegts "$out/vfr.ts"

# shellcheck disable=SC2046
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=2" -filter_complex "$(audio 2)" \
   $(x264 25) -c:a aac -b:a 64k -ac 2 -f mpegts "$out/r25.ts"
# shellcheck disable=SC2046
ff -f lavfi -i "testsrc2=size=320x180:rate=30:duration=2" -filter_complex "$(audio 2)" \
   $(x264 30) -c:a aac -b:a 64k -ac 2 -f mpegts "$out/r30.ts"
# 2^33 / 90000 = 95443.7176 s; ffmpeg adds its 1.4 s mux delay: the clock wraps about 1 s after the first picture.
ff -i "$out/r30.ts" -map 0 -c copy -output_ts_offset 95441.3 -f mpegts "$out/wrap.ts"

ls -l "$out"
