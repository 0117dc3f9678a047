#!/usr/bin/env bash
# Makes the clips under Tests/Fixtures/tracks with ffmpeg (libx264, libx265, its native AAC and
# mov_text encoders): files with tracks beside the video and audio, and HDR10 metadata, to cut and
# join without losing any of it (issue 41, items 12, 14 and 16).
#
#   tc_sub_2997.mov  H.264 High (B-frames, GOP 30) at 30000/1001 fps, 320x180, 6.0 s (180
#                    pictures) + AAC (48 kHz stereo) + a `tmcd` timecode track starting at
#                    01:00:00;00 drop-frame (`-timecode 01:00:00;00`) + a `tx3g` subtitle track
#                    (mov_text as `tx3g`, from an SRT of five cues, language eng; the audio fra), location +48.8584+002.2945/
#   hdr10.mp4        HEVC Main 10 (x265 `master-display`, `max-cll`: mastering display colour
#                    volume and content light level SEI on every IRAP picture) at 25 fps, GOP 25,
#                    320x180, 3 s, BT.2020 PQ
#   two_video.mp4    two H.264 video tracks (320x180 testsrc2 and a 160x90 second angle, both 25 fps,
#                    GOP 25, 3 s) + AAC: the output of a cut or join holds one video track, so the
#                    second is a loss to report, never a note
#
# The pictures are testsrc2 (a frame counter in every picture): no two alike, so framemd5 finds
# each by content. Re-run from the repo root: Scripts/make-tracks-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/tracks
mkdir -p "$out"
ff() { ffmpeg -v error -y -nostdin "$@"; }
srt=$(mktemp --suffix=.srt)
trap 'rm -f "$srt"' EXIT
cat > "$srt" <<'SRT'
1
00:00:00,500 --> 00:00:01,400
First cue

2
00:00:01,600 --> 00:00:02,700
Second cue

3
00:00:03,000 --> 00:00:03,900
Third cue

4
00:00:04,200 --> 00:00:04,800
Fourth cue

5
00:00:05,000 --> 00:00:05,800
Fifth cue
SRT

ff -f lavfi -i "testsrc2=size=320x180:rate=30000/1001:duration=6" \
   -f lavfi -i "anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=48000:duration=6" -i "$srt" \
   -map 0:v -map 1:a -map 2:s -c:v libx264 -profile:v high -preset veryfast -crf 32 -bf 3 -g 30 -pix_fmt yuv420p \
   -c:a aac -b:a 48k -ac 2 -c:s mov_text -tag:s tx3g -metadata:s:a:0 language=fra -metadata:s:s:0 language=eng \
   -timecode "01:00:00;00" -metadata location=+48.8584+002.2945/ -fflags +bitexact -f mov "$out/tc_sub_2997.mov"

ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=3" -pix_fmt yuv420p10le \
   -c:v libx265 -preset ultrafast -crf 30 -tag:v hvc1 \
   -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv \
   -x265-params "log-level=error:keyint=25:min-keyint=25:hdr10=1:repeat-headers=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" \
   -fflags +bitexact "$out/hdr10.mp4"

ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=3" -f lavfi -i "smptebars=size=160x90:rate=25:duration=3" \
   -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=3" \
   -map 0:v -map 1:v -map 2:a -c:v libx264 -preset veryfast -crf 32 -g 25 -pix_fmt yuv420p -c:a aac -b:a 32k \
   -fflags +bitexact "$out/two_video.mp4"

ls -l "$out"
