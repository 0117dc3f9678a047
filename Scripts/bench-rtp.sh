#!/usr/bin/env bash
# RTP measurements of issue 42 (release build), printed as the Markdown of Docs/performance.md
# ("RTP"):
#   (a) packetizing throughput: `nalu rtp send IN --rtpdump /dev/shm/…` (no network) against
#       `gst-launch-1.0 filesrc ! qtdemux ! h264parse ! rtph264pay ! fakesink` on the same 720p and
#       1080p H.264 streams (hyperfine);
#   (b) receive-side CPU per Mbit/s: `nalu rtp receive --rtpdump` replaying those packets against
#       ffmpeg reading the same packets sent over loopback UDP (ffmpeg does not read rtpdump), user +
#       system CPU from GNU time, divided by the stream's bit rate;
#   (c) end-to-end latency on loopback: `nalu rtp send --realtime --timing` → `nalu rtp receive
#       --timing`: per access unit, complete at the receiver − last packet sent (CLOCK_MONOTONIC),
#       median and 99th percentile.
#
#   Scripts/bench-rtp.sh [runs]    # needs hyperfine, ffmpeg (libx264), gst-launch-1.0, GNU time
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
swift build -c release --product nalu >/dev/null
nalu=$PWD/.build/release/nalu
tmp=$(mktemp -d /dev/shm/nalu-bench-rtp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inputs=${NALU_BENCH_DATA:-/dev/shm/nalu-bench-rtp-inputs}
mkdir -p "$inputs"

# Real x264 streams with film-like noise (so the frames are large), 10 s at 30 fps, in MP4.
make_input() { # size, crf, output (kept between runs)
    [ -s "$3" ] && return
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$1:rate=30" -f lavfi -i "nullsrc=size=$1,geq=random(1)*255:128:128" \
        -filter_complex "[0][1]blend=all_mode=addition:all_opacity=0.08,format=yuv420p" -frames:v 300 \
        -c:v libx264 -preset veryfast -crf "$2" -g 60 -bf 2 "$3"
}
make_input 1280x720 20 "$inputs/720p.mp4"
make_input 1920x1080 20 "$inputs/1080p.mp4"
cp "$inputs/720p.mp4" "$inputs/1080p.mp4" "$tmp/"

mean() { python3 -c "import json;r=json.load(open('$1'))['results'][0];print(f\"{r['mean']:.3f} ± {r['stddev']:.3f}\")"; }
cpumean() { python3 -c "import json;r=json.load(open('$1'))['results'][0];print(f\"{r['user'] + r['system']:.3f}\")"; }
meanvalue() { python3 -c "import json;print(json.load(open('$1'))['results'][0]['mean'])"; }
cpu() { # user+system seconds of a command
    /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.3f", $1 + $2}'
}

echo "### Packetizing (a)"
echo
echo "| stream | MB | Mbit/s | nalu rtp send --rtpdump: wall (s) | CPU (s) | rtph264pay ! fakesink: wall (s) | CPU (s) | GStreamer ÷ nalu, wall | CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for name in 720p 1080p; do
    in=$tmp/$name.mp4
    bytes=$(stat -c %s "$in")
    mbits=$(python3 -c "print(f'{$bytes * 8 / 10 / 1e6:.1f}')")
    hyperfine --warmup 1 --runs "$runs" --export-json "$tmp/n.json" \
        "$nalu rtp send $in --rtpdump $tmp/$name.rtpdump --sdp $tmp/$name.sdp --mtu 1400" >/dev/null 2>&1
    hyperfine --warmup 1 --runs "$runs" --export-json "$tmp/g.json" \
        "gst-launch-1.0 -q filesrc location=$in ! qtdemux ! h264parse ! rtph264pay mtu=1400 ! fakesink" >/dev/null 2>&1
    ratio=$(python3 -c "print(f'{$(meanvalue "$tmp/g.json") / $(meanvalue "$tmp/n.json"):.2f}')")
    cpuratio=$(python3 -c "print(f'{$(cpumean "$tmp/g.json") / max($(cpumean "$tmp/n.json"), 0.001):.2f}')")
    echo "| $name | $(python3 -c "print(f'{$bytes/1e6:.1f}')") | $mbits | $(mean "$tmp/n.json") | $(cpumean "$tmp/n.json") | $(mean "$tmp/g.json") | $(cpumean "$tmp/g.json") | $ratio× | $cpuratio× |"
done
echo

echo "### Receiving (b)"
echo
echo "| stream | Mbit/s | nalu rtp receive --rtpdump: CPU s | per Mbit/s (ms) | nalu rtp receive over UDP: CPU s | per Mbit/s (ms) | ffmpeg -i sdp -c copy over UDP: CPU s | per Mbit/s (ms) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for name in 720p 1080p; do
    in=$tmp/$name.mp4
    mbits=$(python3 -c "print($(stat -c %s "$in") * 8 / 10 / 1e6)")
    nalu_cpu=$(cpu "$nalu" rtp receive --sdp "$tmp/$name.sdp" --rtpdump "$tmp/$name.rtpdump" -o "$tmp/$name-nalu.h264")
    # ffmpeg reads the same packets from loopback UDP (nalu sends them at the stream's pace);
    # it stops after 9.5 s of stream (the stream is 10 s).
    port=$(python3 -c "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('127.0.0.1',0));print(s.getsockname()[1])")
    sed "s/^m=video 5004 /m=video $port /" "$tmp/$name.sdp" > "$tmp/$name-udp.sdp"
    /usr/bin/time -f "%U %S" -o "$tmp/ffmpeg.time" timeout 60 ffmpeg -v error -y -protocol_whitelist file,udp,rtp \
        -i "$tmp/$name-udp.sdp" -t 9.5 -c copy -f h264 "$tmp/$name-ffmpeg.h264" &
    sleep 2
    "$nalu" rtp send "$in" --to 127.0.0.1:$port --realtime >/dev/null
    wait
    ffmpeg_cpu=$(awk '{printf "%.3f", $1 + $2}' "$tmp/ffmpeg.time")
    # nalu the same way: over UDP at the stream's pace, ending 2 s after the last packet.
    /usr/bin/time -f "%U %S" -o "$tmp/nalu.time" "$nalu" rtp receive --sdp "$tmp/$name-udp.sdp" -o "$tmp/$name-udp.h264" --idle 2 &
    sleep 2
    "$nalu" rtp send "$in" --to 127.0.0.1:$port --realtime >/dev/null
    wait
    udp_cpu=$(awk '{printf "%.3f", $1 + $2}' "$tmp/nalu.time")
    per() { python3 -c "print(f'{$1 / $mbits * 1000:.2f}')"; }
    echo "| $name | $(python3 -c "print(f'{$mbits:.1f}')") | $nalu_cpu | $(per $nalu_cpu) | $udp_cpu | $(per $udp_cpu) | $ffmpeg_cpu | $(per $ffmpeg_cpu) |"
done
echo

echo "### Latency (c)"
echo
echo "| stream | access units | median (ms) | p99 (ms) | max (ms) |"
echo "|---|---:|---:|---:|---:|"
for name in 720p 1080p; do
    in=$tmp/$name.mp4
    port=$(python3 -c "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('127.0.0.1',0));print(s.getsockname()[1])")
    sed "s/^m=video 5004 /m=video $port /" "$tmp/$name.sdp" > "$tmp/$name-lat.sdp"
    "$nalu" rtp receive --sdp "$tmp/$name-lat.sdp" -o "$tmp/$name-lat.h264" --idle 2 --timing "$tmp/$name-recv.jsonl" &
    receiver=$!
    sleep 1
    "$nalu" rtp send "$in" --to 127.0.0.1:$port --realtime --timing "$tmp/$name-sent.jsonl" >/dev/null
    wait $receiver
    python3 - "$tmp/$name-sent.jsonl" "$tmp/$name-recv.jsonl" "$name" <<'PY'
import json, sys
sent = {j["rtp_timestamp"]: j["monotonic_ns"] for j in map(json.loads, open(sys.argv[1]))}
got = {j["rtp_timestamp"]: j["monotonic_ns"] for j in map(json.loads, open(sys.argv[2]))}
lat = sorted((got[t] - sent[t]) / 1e6 for t in got if t in sent)
assert len(lat) == len(sent), f"{len(lat)} of {len(sent)} access units matched"
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"| {sys.argv[3]} | {len(lat)} | {p(0.5):.2f} | {p(0.99):.2f} | {lat[-1]:.2f} |")
PY
done
