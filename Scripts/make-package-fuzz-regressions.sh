#!/usr/bin/env bash
# Makes the regression inputs of the `package` fuzz target (Fuzz/Harness/PackageHarness.swift) in
# Tests/Fixtures/fuzz-regressions/package: a mode byte (see the harness) followed by the input.
#
#   raw-h264-fmp4-parts      0x14  the Annex-B fixture, fMP4 segments of 1/2 s with 0.25 s parts
#   mp4-ts-single-file       0x09  the MP4 fixture, MPEG-TS segments joined into one file
#   live-annexb-parts        0x54  1 s of x264 Annex-B (ffmpeg), live, 1/2 s segments, parts
#   tfdt-2-62-ts             0x01  2 s of fragmented MP4 (ffmpeg) with 2^62 added to every tfdt,
#                                  MPEG-TS segments (issue 40 item 4: was a trap in the 90 kHz rescale)
#   timescale-1-huge-times   0x00  4 s at 1 fps, timescale 1, 2^55 added to every tfdt (item 4)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Tests/Fixtures/fuzz-regressions/package
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
ff=(ffmpeg -nostdin -v error -f lavfi)
frag=(-movflags frag_keyframe+empty_moov+default_base_moof)
"${ff[@]}" -i testsrc2=size=64x64:rate=30 -t 1 -c:v libx264 -preset ultrafast -g 30 -bf 0 -f h264 -y "$WORK/s.h264"
"${ff[@]}" -i testsrc2=size=64x64:rate=30 -t 2 -c:v libx264 -preset ultrafast -g 30 "${frag[@]}" -y "$WORK/f30.mp4"
"${ff[@]}" -i testsrc2=size=64x64:rate=1 -t 4 -c:v libx264 -preset ultrafast -g 1 -video_track_timescale 1 "${frag[@]}" -y "$WORK/t1.mp4"
python3 - "$OUT" "$WORK" <<'PY'
import struct, sys
out, work = sys.argv[1], sys.argv[2]
def shifted(path, add):
    data = bytearray(open(path, 'rb').read())
    at = data.find(b'tfdt')
    while at >= 0:
        assert data[at + 4] == 1, 'tfdt version 1 expected'
        value = struct.unpack('>Q', data[at + 8:at + 16])[0]
        data[at + 8:at + 16] = struct.pack('>Q', value + add)
        at = data.find(b'tfdt', at + 16)
    return bytes(data)
def put(name, mode, payload):
    open(f'{out}/{name}', 'wb').write(bytes([mode]) + payload)
put('raw-h264-fmp4-parts', 0x14, open('Tests/Fixtures/avc_baseline.h264', 'rb').read())
put('mp4-ts-single-file', 0x09, open('Tests/Fixtures/avc_baseline.mp4', 'rb').read())
put('live-annexb-parts', 0x54, open(f'{work}/s.h264', 'rb').read())
put('tfdt-2-62-ts', 0x01, shifted(f'{work}/f30.mp4', 1 << 62))
put('timescale-1-huge-times', 0x00, shifted(f'{work}/t1.mp4', 1 << 55))
PY
ls -l "$OUT"
