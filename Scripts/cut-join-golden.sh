#!/usr/bin/env bash
# cut-join-golden.sh NALU OUTDIR: runs 54 nalu trim/concat commands (plain, --smart, --keep, concat --smart;
# MP4, MPEG-TS, Annex-B, length-prefixed output; errors) on the fixtures and writes OUTDIR/summary.txt with
# the MD5 of each output, its standard error and exit status. Run it with the nalu built before and after
# a refactor and diff the two summaries: the CLI's output must stay byte-identical (issue 39 item 5).
set -u
NALU="$(realpath "$1")"; OUT="$2"; F="$(cd "$(dirname "$0")/.." && pwd)/Tests/Fixtures"
[ -e "$OUT" ] && { echo "cut-join-golden.sh: $OUT exists; give a new directory" >&2; exit 64; }
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
n=0
run() {
  n=$((n+1)); local ext="$1"; shift
  local o="$OUT/o$n.$ext"
  ( cd "$OUT" && "$NALU" "$@" -o "$o" ) 2> "$OUT/e$n.txt"; echo "rc=$?" >> "$OUT/e$n.txt"
  sed -i "s#$OUT#OUT#g" "$OUT/e$n.txt"
  { echo "== $n: $*"; [ -f "$o" ] && md5sum < "$o" || echo "no output"; cat "$OUT/e$n.txt"; } >> "$OUT/summary.txt"
  rm -f "$o"
}
T=$F/trim_avc_bframes_audio.mp4
run mp4 trim $T --keep 0.5-1.5,2-3 --verbose
run ts trim $T --keep 0.5-1.5,2-3 --verbose
run h264 trim $T --keep 0.5-1.5,2- --verbose
run mp4 trim $T --keep 0.5-1.5,2-3 --no-audio
run mp4 trim $T --keep 0.5-1.5,2-3 --crf 20 --preset ultrafast
run mp4 trim $T --start 0.5 --end 2.5 --smart --verbose
run ts trim $T --start 0.5 --end 2.5 --smart --verbose
run h264 trim $T --start 0.5 --end 2.5 --smart --verbose
run avcc trim $T --start 0.5 --end 2.5 --smart --to avcc
run mp4 trim $T --start 0.5 --end 2.5 --verbose
run ts trim $T --start 0.5 --end 2.5 --verbose
run h264 trim $T --start 0.5 --end 2.5 --verbose
run avcc trim $T --start 0.5 --end 2.5 --to avcc
run mp4 trim $T --start 0.5 --duration 1 --fragmented
run mp4 trim $F/tracks_avc_aac.mp4 --keep 0.3-0.9,1.2- --verbose
run mp4 trim $F/tracks_avc_aac.mp4 --start 0.3 --end 1.5 --smart --verbose
run mp4 trim $F/tracks_avc_aac.mp4 --start 0.3 --end 1.5 --verbose
run ts trim $F/tracks_avc_aac.mp4 --start 0.3 --end 1.5
run mp4 trim $F/ts_avc_aac.ts --keep 0.3-0.9,1.2- --verbose
run mp4 trim $F/ts_hevc_aac.ts --start 0.3 --end 1.5 --smart --verbose
run mp4 trim $F/hevc_main.h265 --start 0.3 --end 1.5 --smart --verbose
run h265 trim $F/trim_hevc_open_gop.h265 --start 0.3 --end 1.5 --smart --verbose
run mp4 trim $F/smart/avc_baseline_cavlc.mp4 --start 0.3 --end 1.5 --smart --encoder openh264
run mp4 trim $F/realworld/phone.mp4 --keep 0.2-0.8,1-1.6 --verbose
run mp4 trim $F/realworld/phone.mp4 --start 0.2 --end 1.6 --smart --verbose
run mp4 trim $F/realworld/rotated.mov --start 0.2 --end 1.6 --smart
run mov trim $F/tracks_mov_aac_pcm.mov --keep 0.2-0.8,1-1.6 --verbose
run mp4 trim $F/avc_main.h264 --start 0.3 --end 1.5 --fps 25 --verbose
run mp4 trim $T --keep 2-1
run mp4 trim $T --keep 0.5-1.5,1-3
run mp4 trim $T --keep 50-60
run avcc trim $T --keep 0.5-1.5
run mp4 trim $T --start 50 --end 60 --smart
run mp4 concat --smart $T@0.5-1.5 $F/mp4_avc_audio.mp4@0.2-1 $T@2- --verbose
run ts concat --smart $T@0.5-1.5 $F/mp4_avc_audio.mp4@0.2-1 --verbose
run h264 concat --smart $T@0.5-1.5 $F/mp4_avc_audio.mp4@0.2-1 --verbose
run mp4 concat --smart $T@0.5-1.5 $F/mp4_hevc_bframes.mp4
run mp4 concat --smart $T@1.5-0.5 $T
run mp4 concat --smart $F/concat_avc_640x360.mp4@0.2-1 $F/concat_avc_1280x720.mp4@-1 --verbose
run mp4 concat --smart $F/tracks_avc_aac.mp4@0.3-0.9 $F/tracks_avc_aac.mp4@1.2- --verbose
run mp4 concat --smart $F/ts_avc_aac.ts@0.3-0.9 $T@1- --verbose
run mp4 concat --smart $F/realworld/avc_2997.mov@0.2-1 $F/realworld/avc_5994.mov@-1 --verbose
run h264 concat --smart $F/realworld/avc_2997.mov@0.2-1 $F/realworld/avc_5994.mov@-1 --verbose
run mp4 concat $T $F/mp4_avc_audio.mp4 --verbose
run ts concat $T $F/mp4_avc_audio.mp4 --verbose
run h264 concat $T $F/mp4_avc_audio.mp4 --verbose
run mp4 concat $F/avc_main.h264 $F/avc_main.h264 --verbose
run mp4 concat $F/tracks_avc_aac.mp4 $F/tracks_avc_aac.mp4 --verbose
run mp4 concat $F/tracks_avc_aac.mp4 $T --verbose
run mp4 concat $F/realworld/avc_2997.mov $F/realworld/avc_5994.mov --verbose
run h264 concat $F/realworld/avc_2997.mov $F/realworld/avc_5994.mov --verbose
run mp4 concat $T $F/mp4_hevc_bframes.mp4
run avcc concat $F/avc_main.h264 $F/avc_main.h264 --to avcc
run mp4 concat $F/mp4_avc_audio.mp4 $F/mp4_avc_audio.mp4 --fps 30
