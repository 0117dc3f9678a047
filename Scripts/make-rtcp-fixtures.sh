#!/usr/bin/env bash
# Captures real RTCP compound packets on 127.0.0.1 into Tests/Fixtures/rtcp (and as seeds of the
# rtcp fuzz target, Tests/Fixtures/fuzz-regressions/rtcp):
#   ffmpeg-sr.bin            ffmpeg -f rtp's first SR (no SDES)
#   gstreamer-sr-sdes-bye.bin GStreamer rtpbin's SR + SDES CNAME + BYE (a short stream ends at once)
#   gstreamer-rr-sdes.bin    GStreamer rtpbin receiving ffmpeg's stream: its RR + SDES CNAME
set -euo pipefail
cd "$(dirname "$0")/.."
IN=Tests/Fixtures/avc_high_bframes.mp4
OUT=Tests/Fixtures/rtcp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT" Tests/Fixtures/fuzz-regressions/rtcp
CAPTURE=Scripts/rtcp-capture.py

# An 8-second H.264 stream (240 frames at 30 fps, B-frames, a keyframe a second): long enough
# for RTCP's 5-second report interval (the RTCP interop tests send it in real time).
ffmpeg -nostdin -y -v error -f lavfi -i testsrc2=size=320x240:rate=30 -t 8 -c:v libx264 -preset veryfast -g 30 -bf 2 \
    -pix_fmt yuv420p -movflags +faststart Tests/Fixtures/rtcp_avc_8s.mp4

python3 $CAPTURE listen 6001 6 "$TMP/ff" >/dev/null & CAP=$!
sleep 0.3
timeout 10 ffmpeg -loglevel error -re -i $IN -map 0:v:0 -c copy -f rtp rtp://127.0.0.1:6000 >/dev/null
wait $CAP
cp "$TMP/ff/00.bin" "$OUT/ffmpeg-sr.bin"

python3 $CAPTURE listen 6101 6 "$TMP/gst" >/dev/null & CAP=$!
sleep 0.3
timeout 10 gst-launch-1.0 -q rtpbin name=b filesrc location=$IN ! qtdemux ! h264parse ! rtph264pay pt=96 ! b.send_rtp_sink_0 \
    b.send_rtp_src_0 ! udpsink host=127.0.0.1 port=6100 b.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=6101 sync=false async=false
wait $CAP
cp "$(ls "$TMP"/gst/*.bin | tail -1)" "$OUT/gstreamer-sr-sdes-bye.bin"

python3 $CAPTURE listen 6205 8 "$TMP/rr" >/dev/null & CAP=$!
timeout 8 gst-launch-1.0 -q rtpbin name=b udpsrc port=6200 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" \
    ! b.recv_rtp_sink_0 udpsrc port=6201 ! b.recv_rtcp_sink_0 b.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=6205 sync=false async=false \
    b. ! rtph264depay ! fakesink & GST=$!
sleep 1
timeout 6 ffmpeg -loglevel error -re -stream_loop 2 -i $IN -map 0:v:0 -c copy -f rtp rtp://127.0.0.1:6200 >/dev/null
wait $GST || true
wait $CAP
cp "$TMP/rr/00.bin" "$OUT/gstreamer-rr-sdes.bin"

cp "$OUT"/*.bin Tests/Fixtures/fuzz-regressions/rtcp/
python3 $CAPTURE decode "$OUT"/*.bin
