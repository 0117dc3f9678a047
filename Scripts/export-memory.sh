#!/usr/bin/env bash
# Peak memory of a transcode through the library (issue 39 item 3), and where it goes: makes
# H.264 + AAC inputs of SIZE (default 1280x720) lasting each of DURATIONS seconds (default 10 60)
# with ffmpeg's testsrc2 and sine sources, and measures under GNU time, for each input:
#
#   library   transcode-sample IN OUT (ExportSession at its defaults: x264 medium, 5 Mbit/s,
#             audio copied, 2 pictures in flight, one decoder thread)
#   ffmpeg    ffmpeg -i IN -c:v libx264 -preset medium -b:v 5M -c:a copy OUT (the reference)
#   x264      the x264 CLI alone, same preset and bitrate, reading Y4M from a pipe (the encoder's share)
#   decode    nalu decode IN -o /dev/null --threads 1 (the decoder's share, with the runtime)
#
#   seconds=10 size=1280x720 frames=300 library_kib=… ffmpeg_kib=… x264_kib=… decode_kib=…
#
# Flat library figures show that memory does not grow with the input's length; library − x264
# is nalu's own share (decoding, pictures in flight, muxing, the runtime).
#   Scripts/export-memory.sh [SIZE] [DURATIONS...]   (after swift build --product transcode-sample --product nalu)
#   ONLY_LIBRARY=1 measures the library alone (what NALUExportTests runs).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1280x720}
if [ $# -gt 0 ]; then shift; fi
if [ $# -gt 0 ]; then durations=("$@"); else durations=(10 60); fi
bin=${BIN:-.build/debug}
preset=${PRESET:-medium}
work=$(mktemp -d "${TMPDIR:-/tmp}/nalu-export-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
# peak <name> <command...>: runs the command under GNU time and prints its peak RSS in KiB.
peak() {
    local name=$1; shift
    /usr/bin/time -v "$@" > /dev/null 2> "$work/time-$name.txt"
    sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time-$name.txt"
}
for seconds in "${durations[@]}"; do
    input="$work/in-$seconds.mp4"
    ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds" \
        -f lavfi -i "sine=frequency=440:duration=$seconds" -c:v libx264 -preset ultrafast -g 60 \
        -pix_fmt yuv420p -c:a aac -shortest "$input"
    if [ "$preset" = medium ]; then
        library=$(peak library "$bin/transcode-sample" "$input" "$work/library.mp4")
    else
        library=$(peak library "$bin/export-settings-sample" "$input" "$work/library.mp4" --preset "$preset")
    fi
    frames=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$work/library.mp4")
    line="seconds=$seconds size=$size preset=$preset frames=$frames library_kib=$library"
    if [ -z "${ONLY_LIBRARY:-}" ]; then
        ffmpeg_kib=$(peak ffmpeg ffmpeg -v error -y -i "$input" -c:v libx264 -preset "$preset" -b:v 5M -c:a copy "$work/ffmpeg.mp4")
        ffmpeg -v error -i "$input" -f yuv4mpegpipe -pix_fmt yuv420p - |
            /usr/bin/time -v x264 --quiet --preset "$preset" --bitrate 5000 --demuxer y4m -o "$work/x264.264" - 2> "$work/time-x264.txt"
        x264_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time-x264.txt")
        decode_kib=$(peak decode "$bin/nalu" decode "$input" --threads 1 -o /dev/null)
        line="$line ffmpeg_kib=$ffmpeg_kib x264_kib=$x264_kib decode_kib=$decode_kib"
    fi
    echo "$line"
    rm -f "$input" "$work"/*.mp4 "$work"/*.264
done
