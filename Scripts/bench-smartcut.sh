#!/usr/bin/env bash
# Smart cut at 1080p (issue 39 "Tests and figures"): memory, time and the quality of the
# re-encoded pictures, beside ffmpeg's stream copy and x264 alone on the same pictures.
#
# Source: 20 s of 1080p25 as Scripts/make-smart-bench-input.sh makes it (testsrc2, x264
# superfast CRF 23, 3 B-frames, an IDR every 2 s, AAC 96 kbit/s). Cut --start 6.3 --end 13.7:
# 42 pictures re-encoded before the IDR at 8 s, the rest copied.
#
# Rows (GNU time: wall s, user CPU s, peak RSS KiB; PSNR of the 42 re-encoded pictures against
# the source decoded by ffmpeg; their bytes):
#   nalu-short   nalu trim --smart at its defaults (ShortSegmentEncoding: one thread, no MB-tree)
#   nalu-before  the same cut by BEFORE_BIN when given (a build of the commit before
#                ShortSegmentEncoding: the libraries' own threads and lookahead), else skipped
#   ffmpeg-copy  ffmpeg -ss 6.3 -to 13.7 -i SRC -c copy
#   x264-*       the x264 CLI alone on the same 42 pictures (Y4M), CRF 12 medium, one closed GOP:
#                the library's defaults (3 frame threads, rc-lookahead 40) and the short-run
#                settings (--threads 1 --rc-lookahead 0)
# Then hyperfine (-w 1 -r 5) of nalu-short against ffmpeg-copy for the time ratio.
#   Scripts/bench-smartcut.sh            (after swift build -c release --product nalu)
#   BEFORE_BIN=/path/to/old/nalu Scripts/bench-smartcut.sh
set -euo pipefail
cd "$(dirname "$0")/.."
nalu=${BIN:-.build/release}/nalu
work=$(mktemp -d "${TMPDIR:-/tmp}/nalu-smartcut.XXXXXX")
trap 'rm -rf "$work"' EXIT
src="$work/src.mp4"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=20" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=20" \
    -pix_fmt yuv420p -c:v libx264 -preset superfast -x264-params keyint=50:min-keyint=50:scenecut=0:bframes=3:crf=23 \
    -c:a aac -b:a 96k -shortest "$src"
start=6.3 end=13.7 frames=42
measure() { # measure NAME OUT COMMAND...
    local name=$1 out=$2; shift 2
    /usr/bin/time -f "%e %U %M" -o "$work/time" "$@" > /dev/null 2>&1
    read -r wall user kib < "$work/time"
    local psnr="" bytes=""
    if [ -n "$out" ]; then
        psnr=$(ffmpeg -i "$out" -ss $start -i "$src" -lavfi "[0:v]trim=end_frame=$frames,setpts=PTS-STARTPTS[a];[1:v]trim=end_frame=$frames,setpts=PTS-STARTPTS[b];[a][b]psnr" \
            -f null - 2>&1 | sed -n 's/.*average:\([0-9.inf]*\).*/\1/p')
        bytes=$(ffprobe -v error -select_streams v -show_entries packet=size -of csv=p=0 "$out" | awk -v n=$frames 'NR <= n { s += $1 } END { print s }')
    fi
    echo "$name wall_s=$wall user_s=$user peak_kib=$kib psnr_db=$psnr head_bytes=$bytes"
}
measure nalu-short "$work/short.mp4" "$nalu" trim "$src" --start $start --end $end --smart -o "$work/short.mp4"
if [ -n "${BEFORE_BIN:-}" ]; then
    measure nalu-before "$work/before.mp4" "$BEFORE_BIN" trim "$src" --start $start --end $end --smart -o "$work/before.mp4"
fi
measure ffmpeg-copy "" ffmpeg -v error -y -ss $start -to $end -i "$src" -c copy "$work/copy.mp4"
ffmpeg -v error -ss $start -i "$src" -frames:v $frames -pix_fmt yuv420p -f yuv4mpegpipe "$work/head.y4m"
for settings in "" "--threads 1 --rc-lookahead 0"; do
    name="x264-${settings:-defaults}"; name=${name//--/}
    /usr/bin/time -f "%e %U %M" -o "$work/time" x264 --preset medium --crf 12 --keyint $((frames + 1)) --no-scenecut $settings \
        --psnr -o "$work/x.264" "$work/head.y4m" > /dev/null 2> "$work/x264.log"
    read -r wall user kib < "$work/time"
    echo "${name// /_} wall_s=$wall user_s=$user peak_kib=$kib psnr_db=$(sed -n 's/.*Global:\([0-9.]*\).*/\1/p' "$work/x264.log" | tail -1)"
done
hyperfine -N -w 1 -r 5 --export-markdown "$work/h.md" \
    "$nalu trim $src --start $start --end $end --smart -o $work/short.mp4" \
    "ffmpeg -v error -y -ss $start -to $end -i $src -c copy $work/copy.mp4" > /dev/null
cat "$work/h.md"
