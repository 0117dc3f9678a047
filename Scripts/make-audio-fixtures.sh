#!/usr/bin/env bash
# Makes the audio-carriage fixtures under Tests/Fixtures/audio with ffmpeg (libx264, its native
# AC-3, MP2 and AAC encoders): what broadcast and multi-language files carry (issue 41, item 13).
#
#   ts_ac3.ts        H.264 (B-frames, 25 fps, 4 s) + AC-3 48 kHz stereo 96 kb/s in MPEG-TS
#                    (ffmpeg's muxer: stream_type 0x81, PES stream_id 0xBD)
#   ts_ac3_dvb.ts    the same as DVB writes it (`-mpegts_flags system_b`: stream_type 0x06 with an
#                    AC-3_descriptor, tag 0x6A)
#   ts_mp2.ts        the same pictures + MPEG-1 Layer II 48 kHz stereo 96 kb/s (stream_type 0x03)
#   three_aac.mp4    the same pictures + three AAC tracks with languages eng, fra, deu (each
#                    its own seeded noise, so no track's bytes equal another's)
#   three_aac.ts     three_aac.mp4 copied into MPEG-TS by ffmpeg (ISO_639_language_descriptors)
#   ac3.mp4, mp2.mp4 ts_ac3.ts and ts_mp2.ts copied into MP4 by ffmpeg (`ac-3` + `dac3`; `mp4a`
#                    with objectTypeIndication 0x6B), the AC-3 track's language set to fra
#   subs_tc.mov      three_aac.mp4's video and first AAC track in a MOV with a tx3g subtitle track
#                    (two cues, eng) and a timecode track starting at 01:00:00:00
#
# The audio is seeded pink noise plus a rising tone, the pictures testsrc2 (a frame counter):
# Scripts/avsync.py finds any stretch of either by content.
# Needs ffmpeg with libx264. Re-run from the repo root: Scripts/make-audio-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/audio
mkdir -p "$out"
ff() { ffmpeg -v error -y -nostdin "$@"; }
audio() { # seed, tone base (Hz)
    echo "anoisesrc=color=pink:amplitude=0.25:seed=$1:sample_rate=48000:duration=4[n];aevalsrc=0.3*sin(2*PI*($2+40*t)*t):s=48000:d=4[t];[n][t]amix=inputs=2:normalize=0"
}
video=(-f lavfi -i "testsrc2=size=320x180:rate=25:duration=4")
x264=(-c:v libx264 -profile:v high -preset veryfast -crf 32 -bf 3 -g 50 -pix_fmt yuv420p)

ff "${video[@]}" -filter_complex "$(audio 7 220)" "${x264[@]}" -c:a ac3 -b:a 96k -ac 2 -fflags +bitexact -f mpegts "$out/ts_ac3.ts"
ff -i "$out/ts_ac3.ts" -map 0 -c copy -mpegts_flags system_b -fflags +bitexact -f mpegts "$out/ts_ac3_dvb.ts"
ff "${video[@]}" -filter_complex "$(audio 7 220)" "${x264[@]}" -c:a mp2 -b:a 96k -ac 2 -fflags +bitexact -f mpegts "$out/ts_mp2.ts"

ff "${video[@]}" -filter_complex "$(audio 7 220)[a0];$(audio 11 330 | sed 's/\[n\]/[n1]/g; s/\[t\]/[t1]/g')[a1];$(audio 13 440 | sed 's/\[n\]/[n2]/g; s/\[t\]/[t2]/g')[a2]" \
   -map 0:v -map '[a0]' -map '[a1]' -map '[a2]' "${x264[@]}" -c:a aac -b:a 48k -ac 2 \
   -metadata:s:a:0 language=eng -metadata:s:a:1 language=fra -metadata:s:a:2 language=deu \
   -fflags +bitexact "$out/three_aac.mp4"
ff -i "$out/three_aac.mp4" -map 0 -c copy -fflags +bitexact -f mpegts "$out/three_aac.ts"

ff -i "$out/ts_ac3.ts" -map 0:v -map 0:a -c copy -metadata:s:a:0 language=fra -fflags +bitexact "$out/ac3.mp4"
ff -i "$out/ts_mp2.ts" -map 0:v -map 0:a -c copy -fflags +bitexact "$out/mp2.mp4"
srt=$(mktemp --suffix=.srt)
printf '1\n00:00:00,500 --> 00:00:01,500\nfirst cue\n\n2\n00:00:02,000 --> 00:00:03,000\nsecond cue\n' > "$srt"
ff -i "$out/three_aac.mp4" -i "$srt" -map 0:v -map 0:a:0 -map 1 -c:v copy -c:a copy -c:s mov_text -metadata:s:s:0 language=eng \
   -timecode 01:00:00:00 -fflags +bitexact -f mov "$out/subs_tc.mov"
rm -f "$srt"

ls -l "$out"

# Issue 41 item 13, `encode`/`concat`/`package` of several audio streams:
#   three_audio.mov  the same pictures in a QuickTime file with three audio tracks of three
#                    codings: AAC (eng), AC-3 (fra), MPEG-1 Layer II (spa)
#   ts_ac3_mp2.ts    the same pictures + AC-3 (eng) and MPEG-1 Layer II (fra) in one MPEG-TS
three_audio() {
ff "${video[@]}" -filter_complex "$(audio 7 220)[a0];$(audio 11 330 | sed 's/\[n\]/[n1]/g; s/\[t\]/[t1]/g')[a1];$(audio 13 440 | sed 's/\[n\]/[n2]/g; s/\[t\]/[t2]/g'),asetnsamples=n=1152:p=0[a2]" \
   -map 0:v -map '[a0]' -map '[a1]' -map '[a2]' "${x264[@]}" -c:a:0 aac -c:a:1 ac3 -c:a:2 mp2 -b:a 96k -ac 2 \
   -metadata:s:a:0 language=eng -metadata:s:a:1 language=fra -metadata:s:a:2 language=spa \
   -fflags +bitexact -f mov "$out/three_audio.mov"
ff "${video[@]}" -filter_complex "$(audio 7 220)[a0];$(audio 11 330 | sed 's/\[n\]/[n1]/g; s/\[t\]/[t1]/g'),asetnsamples=n=1152:p=0[a1]" \
   -map 0:v -map '[a0]' -map '[a1]' "${x264[@]}" -c:a:0 ac3 -c:a:1 mp2 -b:a 96k -ac 2 \
   -metadata:s:a:0 language=eng -metadata:s:a:1 language=fra -fflags +bitexact -f mpegts "$out/ts_ac3_mp2.ts"
}
three_audio
ls -l "$out"/three_audio.mov "$out"/ts_ac3_mp2.ts
