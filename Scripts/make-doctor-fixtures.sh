#!/usr/bin/env bash
# Faulty streams for `nalu doctor` (issue 16), under Tests/Fixtures/doctor: each is a real
# libx264/libx265 encode (through ffmpeg) with one real fault, made by a real tool where one
# exists (ffmpeg bitstream filters, head/tail cuts) and by a documented byte edit where none does.
#
#   cut_mid_gop.h264           tail: starts at the 4th picture, a P picture before any SPS/PPS
#   no_parameter_sets.h264     ffmpeg -bsf:v filter_units=remove_types=7|8 (SPS and PPS stripped)
#   missing_sps.h264           ffmpeg -bsf:v filter_units=remove_types=7 (PPS refers to a missing SPS)
#   missing_pps.h264           ffmpeg -bsf:v filter_units=remove_types=8 (slices refer to a missing PPS)
#   missing_vps.h265           ffmpeg -bsf:v filter_units=remove_types=32 (SPS refers to a missing VPS)
#   level_too_low.h264         320x180 at 25 fps, ffmpeg -bsf:v h264_metadata=level=1
#   level_too_low.h265         320x180 at 25 fps, ffmpeg -bsf:v hevc_metadata=level=1
#   bit_rate_over_level.h264   x264 CRF on noise: level 1.1 by frame size, 100 KB in 5 pictures
#   truncated.h264             head: the last slice cut one byte into its slice header
#   truncated.mp4              head: a faststart MP4 (moov first) missing the last 600 bytes of mdat
#   forbidden_zero_bit.h264    the forbidden_zero_bit of the 6th slice's NAL unit header set (one bit flipped)
#   hev1.mp4                   ffmpeg -tag:v hev1 (libx265 straight to MP4)
#   no_aud.h264                x264 aud=1, then ffmpeg -bsf:v h264_metadata=aud=remove
#   odd_175x99.h264            a 4:4:4 encode of 175x99 (odd display size; cropped in 4:4:4, as testsrc2 rounds to even)
#   no_vui_colour.h265         x265 without colour description
#   no_timing.h264             libopenh264 through `nalu encode --encoder openh264` (needs `swift build`):
#                              no VUI timing, and Annex-B has no container timing
#   open_gop_start.h265        an open-GOP x265 stream cut (tail) at its second keyframe, a CRA
#   open_gop_start.h264        an open-GOP x264 stream cut at its second keyframe, a recovery point
#   record_mismatch.mp4        ffmpeg's MP4 with the avcC's copy of the SPS edited: level_idc (and
#                              AVCLevelIndication) 13 -> 30, so the record's SPS differs from the
#                              in-band one (no tool writes a record that disagrees: a byte edit)
#   non_monotonic.mp4          ffmpeg -bsf:v setts: the 6th sample's PTS moved onto the 7th's (two
#                              samples presented at one time)
#   b_frames_without_ctts.mp4  ffmpeg -bsf:v setts=pts=DTS: B-frames, no ctts box
#   sei_overflow.h264          the first SEI message's payloadSize raised by 64 past its NAL unit (byte edit)
#
# Needs ffmpeg (libx264, libx265) and python3. Re-run from the repo root: Scripts/make-doctor-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/doctor
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q="log-level=error"

# name size frames extra-args... : an Annex-B encode into $tmp/name.h264|h265 by codec of the args
avc() { local name=$1 size=$2 frames=$3; shift 3
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=25" -frames:v "$frames" -c:v libx264 "$@" -f h264 "$tmp/$name.h264"; }
hevc() { local name=$1 size=$2 frames=$3; shift 3
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=25" -frames:v "$frames" -c:v libx265 -preset ultrafast "$@" -f hevc "$tmp/$name.h265"; }

# Prints "start_code_offset header_offset nal_unit_type" for each NAL unit of an Annex-B file.
nals() { python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], "rb").read(); hevc = sys.argv[2] == "hevc"
i = 0; starts = []
while True:
    j = data.find(b"\x00\x00\x01", i)
    if j < 0: break
    sc = j - 1 if j > 0 and data[j - 1] == 0 else j
    starts.append((sc, j + 3)); i = j + 3
for sc, h in starts:
    t = (data[h] >> 1) & 0x3F if hevc else data[h] & 0x1F
    print(sc, h, t)
PY
}

# cut_mid_gop: keyint 10, no B-frames; start at the 4th slice (a P picture).
avc gop 176x144 20 -pix_fmt yuv420p -bf 0 -g 10 -x264-params "$q"
cut=$(nals "$tmp/gop.h264" avc | awk '$3==1 || $3==5 {n++; if (n==4) {print $1; exit}}')
tail -c +$((cut + 1)) "$tmp/gop.h264" > "$out/cut_mid_gop.h264"

ffmpeg -v error -y -i "$tmp/gop.h264" -c copy -bsf:v "filter_units=remove_types=7|8" -f h264 "$out/no_parameter_sets.h264"
ffmpeg -v error -y -i "$tmp/gop.h264" -c copy -bsf:v "filter_units=remove_types=7" -f h264 "$out/missing_sps.h264"
ffmpeg -v error -y -i "$tmp/gop.h264" -c copy -bsf:v "filter_units=remove_types=8" -f h264 "$out/missing_pps.h264"

hevc h 176x144 10 -pix_fmt yuv420p -x265-params "$q:keyint=5"
ffmpeg -v error -y -i "$tmp/h.h265" -c copy -bsf:v "filter_units=remove_types=32" -f hevc "$out/missing_vps.h265"

avc big 320x180 5 -pix_fmt yuv420p -x264-params "$q"
ffmpeg -v error -y -i "$tmp/big.h264" -c copy -bsf:v "h264_metadata=level=1" -f h264 "$out/level_too_low.h264"
hevc bigh 320x180 5 -pix_fmt yuv420p -x265-params "$q"
ffmpeg -v error -y -i "$tmp/bigh.h265" -c copy -bsf:v "hevc_metadata=level=1" -f hevc "$out/level_too_low.h265"

# bit_rate_over_level.h264: x264 (CRF, no VBV) picks level 1.1 by frame size and rate alone;
# noisy pictures make 5 of them larger than level 1.1's HRD can deliver.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25" -vf noise=alls=60:allf=t -frames:v 5 -c:v libx264 -pix_fmt yuv420p \
    -profile:v baseline -crf 16 -x264-params "$q" -f h264 "$out/bit_rate_over_level.h264"

# truncated.h264: keep the last slice's NAL unit header and one byte of its slice header.
last=$(nals "$tmp/gop.h264" avc | awk '$3==1 || $3==5 {h=$2} END {print h}')
head -c $((last + 2)) "$tmp/gop.h264" > "$out/truncated.h264"
ffmpeg -v error -y -r 25 -f h264 -i "$tmp/gop.h264" -c copy -movflags +faststart -f mp4 "$tmp/fast.mp4"
size=$(stat -c %s "$tmp/fast.mp4")
head -c $((size - 600)) "$tmp/fast.mp4" > "$out/truncated.mp4"

# forbidden_zero_bit: the 6th slice's header byte with its top bit set.
flip=$(nals "$tmp/gop.h264" avc | awk '$3==1 || $3==5 {n++; if (n==6) {print $2; exit}}')
python3 - "$tmp/gop.h264" "$out/forbidden_zero_bit.h264" "$flip" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read()); data[int(sys.argv[3])] |= 0x80
open(sys.argv[2], "wb").write(data)
PY

# hev1: encoded straight to MP4 (a raw-stream remux would lose the B-frames' composition offsets).
ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25" -frames:v 6 -c:v libx265 -preset ultrafast -pix_fmt yuv420p \
    -x265-params "$q" -tag:v hev1 -f mp4 "$out/hev1.mp4"

avc aud 176x144 6 -pix_fmt yuv420p -x264-params "$q:aud=1"
ffmpeg -v error -y -i "$tmp/aud.h264" -c copy -bsf:v "h264_metadata=aud=remove" -f h264 "$out/no_aud.h264"

avc odd 176x144 4 -vf format=yuv444p,crop=175:99:0:0 -pix_fmt yuv444p -x264-params "$q"
cp "$tmp/odd.h264" "$out/odd_175x99.h264"

hevc plain 176x144 4 -pix_fmt yuv420p -x265-params "$q"
cp "$tmp/plain.h265" "$out/no_vui_colour.h265"
# OpenH264 (as WebRTC uses it) writes no VUI timing; x265's vui-timing-info=0 writes an SPS
# without its rbsp_stop_one_bit (ffmpeg's trace_headers rejects it too), so it is not used.
.build/debug/nalu encode --test-pattern --size 176x144 --frames 4 --encoder openh264 --quiet -o "$out/no_timing.h264"

# open_gop_start: from the second VPS (the CRA's access unit) on.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25" -frames:v 20 -c:v libx265 -preset fast -pix_fmt yuv420p \
    -x265-params "$q:keyint=10:min-keyint=10:scenecut=0:open-gop=1:bframes=3" -f hevc "$tmp/open.h265"
cut=$(nals "$tmp/open.h265" hevc | awk '$3==32 {n++; if (n==2) {print $1; exit}}')
tail -c +$((cut + 1)) "$tmp/open.h265" > "$out/open_gop_start.h265"

# open_gop_start.h264: x264's open GOP cut at its second keyframe, an I picture with a recovery point SEI.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25" -frames:v 20 -c:v libx264 -pix_fmt yuv420p -bf 3 \
    -x264-params "$q:open-gop=1:keyint=10:min-keyint=10:scenecut=0" -f h264 "$tmp/openavc.h264"
cut=$(nals "$tmp/openavc.h264" avc | awk '$3==7 {n++; if (n==2) {print $1; exit}}')
tail -c +$((cut + 1)) "$tmp/openavc.h264" > "$out/open_gop_start.h264"

# record_mismatch: the avcC's SPS says level 3 (level_idc 30), the in-band SPS 1.3 (13).
# A remux of a raw stream keeps the in-band SPS/PPS in the samples; no B-frames, as a raw-stream
# remux has no composition offsets.
avc recsrc 176x144 6 -pix_fmt yuv420p -bf 0 -x264-params "$q"
ffmpeg -v error -y -r 25 -f h264 -i "$tmp/recsrc.h264" -c copy -f mp4 "$tmp/rec.mp4"
python3 - "$tmp/rec.mp4" "$out/record_mismatch.mp4" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
i = data.find(b"avcC") + 4          # configurationVersion
assert data[i] == 1
data[i + 3] = 30                    # AVCLevelIndication
sps = i + 8                         # after numOfSequenceParameterSets and sequenceParameterSetLength
assert data[sps] & 0x1F == 7
data[sps + 3] = 30                  # level_idc of the SPS copy
open(sys.argv[2], "wb").write(data)
PY

ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25" -frames:v 12 -c:v libx264 -pix_fmt yuv420p -bf 2 -g 12 \
    -x264-params "$q" -f mp4 "$tmp/bf.mp4"
ffmpeg -v error -y -i "$tmp/bf.mp4" -c copy -bsf:v "setts=pts=if(eq(N\,5)\,PTS+512\,PTS)" -f mp4 "$out/non_monotonic.mp4"
ffmpeg -v error -y -i "$tmp/bf.mp4" -c copy -bsf:v "setts=pts=DTS" -f mp4 "$out/b_frames_without_ctts.mp4"

# sei_overflow: x264's user_data_unregistered SEI with payloadSize 64 bytes past the NAL unit.
python3 - "$tmp/aud.h264" "$out/sei_overflow.h264" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
i = data.find(b"\x00\x00\x01\x06") + 4  # SEI NAL header, then last_payload_type_byte
assert data[i] == 5
i += 1
while data[i] == 0xFF: i += 1           # ff_bytes of payloadSize
assert data[i] + 64 < 0xFF
data[i] += 64                           # last_payload_size_byte
open(sys.argv[2], "wb").write(data)
PY
ls -l "$out" | awk '{s+=$5} END {print "doctor fixtures:", NR-1, "files,", s, "bytes"}'
