#!/usr/bin/env bash
# Makes the real streams under Tests/Fixtures with ffmpeg (libx264, libx265) and records what
# ffprobe and ffmpeg's own MP4 muxer say about them, so tests compare nalu against real tools.
#
# For each fixture NAME:
#   NAME.h264 | NAME.h265   the Annex-B elementary stream (ffmpeg -f h264/hevc)
#   NAME.ffprobe.json       ffprobe's stream facts, per-frame key_frame/pict_type (output order)
#                           per-packet byte offset and K flag (decode order), and the NAL unit
#                           types ffmpeg's trace_headers bitstream filter sees, packet by packet
#   NAME.mp4                ffmpeg's remux to MP4 (-c copy), for its avcC/hvcC and samples
#   NAME.avcC | NAME.hvcC   the decoder configuration record ffmpeg wrote in that MP4
#   NAME.lp                 the MP4's samples back to back: a length-prefixed (4-byte) stream
#   NAME.mp4toannexb.h264|h265  ffmpeg's h264_mp4toannexb/hevc_mp4toannexb output of the MP4
#
# Needs: ffmpeg, ffprobe (apt-get install -y ffmpeg), python3. Re-run from the repo root:
#   Scripts/make-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures
mkdir -p "$out"
src="testsrc2=size=%s:rate=%s"

# name codec size rate frames extra-ffmpeg-args...
make() {
    local name=$1 codec=$2 size=$3 rate=$4 frames=$5; shift 5
    local ext=h264 enc=libx264 fmt=h264 bsf=h264_mp4toannexb
    if [ "$codec" = hevc ]; then ext=h265 enc=libx265 fmt=hevc bsf=hevc_mp4toannexb; fi
    local file="$out/$name.$ext"
    ffmpeg -v error -y -f lavfi -i "$(printf "$src" "$size" "$rate")" -frames:v "$frames" \
        -c:v "$enc" "$@" -f "$fmt" "$file"
    ffmpeg -v error -y -r "$rate" -f "$fmt" -i "$file" -c copy -f mp4 "$out/$name.mp4"
    ffmpeg -v error -y -i "$out/$name.mp4" -c:v copy -bsf:v "$bsf" -f "$fmt" "$out/$name.mp4toannexb.$ext"
    ffprobe -v error -select_streams v:0 \
        -show_entries stream=codec_name,profile,level,width,height,coded_width,coded_height,pix_fmt,r_frame_rate,field_order:frame=key_frame,pict_type,pkt_pos,interlaced_frame \
        -of json "$file" > "$out/$name.ffprobe.raw.json"
    ffprobe -v error -select_streams v:0 -show_entries packet=pos,flags -of json "$file" > "$out/$name.packets.raw.json"
    ffmpeg -hide_banner -nostats -i "$file" -c:v copy -bsf:v trace_headers -f null - -loglevel trace 2> "$out/$name.trace.txt" || true
    python3 Scripts/fixture_facts.py "$name" "$codec" "$out"
    rm -f "$out/$name.ffprobe.raw.json" "$out/$name.packets.raw.json" "$out/$name.trace.txt"
}

# MP4/MOV files as ffmpeg writes them, for NALUMP4 (issue 5). For each NAME.mp4|NAME.mov:
#   NAME.mp4facts.json          ffprobe's video packets (pts, dts, duration, size, pos, K flag),
#                               stream timing and ffmpeg's decoded-frame md5s (-f framemd5)
#   NAME.mp4toannexb.h264|h265  ffmpeg's h264_mp4toannexb/hevc_mp4toannexb output
# name container codec frames encoder-and-muxer-args...
make_container() {
    local name=$1 container=$2 codec=$3 frames=$4; shift 4
    local ext=h264 enc=libx264 fmt=h264 bsf=h264_mp4toannexb
    if [ "$codec" = hevc ]; then ext=h265 enc=libx265 fmt=hevc bsf=hevc_mp4toannexb; fi
    local file="$out/$name.$container"
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=30:duration=2" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=1" \
        -frames:v "$frames" -c:v "$enc" -pix_fmt yuv420p "$@" -fflags +bitexact -f "$container" "$file"
    ffmpeg -v error -y -i "$file" -map 0:v -c:v copy -bsf:v "$bsf" -f "$fmt" "$out/$name.mp4toannexb.$ext"
    ffprobe -v error -select_streams v:0 -show_entries packet=pts,dts,duration,size,pos,flags:stream=codec_name,codec_tag_string,time_base,nb_frames,duration_ts,r_frame_rate,index \
        -of json "$file" > "$out/$name.packets.raw.json"
    ffmpeg -v error -y -i "$file" -map 0:v -f framemd5 "$out/$name.framemd5.txt"
    python3 Scripts/mp4_fixture_facts.py "$name" "$container" "$codec" "$out"
    rm -f "$out/$name.packets.raw.json" "$out/$name.framemd5.txt"
}

if [ "${NALU_FIXTURES:-all}" = mp4 ] || [ "${NALU_FIXTURES:-all}" = all ]; then
x264q="log-level=error"
x265q="log-level=error"
make_container mp4_avc_bframes      mp4 h264 30 -an -bf 3 -g 12 -x264-params "$x264q:b-pyramid=normal"
make_container mp4_avc_faststart    mp4 h264 20 -an -bf 2 -g 10 -x264-params "$x264q" -movflags +faststart
make_container mp4_avc_negcts       mp4 h264 20 -an -bf 2 -g 10 -x264-params "$x264q" -movflags +negative_cts_offsets
make_container mp4_avc_audio        mp4 h264 20 -map 1:a -map 0:v -c:a aac -bf 2 -g 10 -x264-params "$x264q"
make_container mp4_avc_frag         mp4 h264 30 -an -bf 2 -g 10 -x264-params "$x264q" -movflags frag_keyframe+empty_moov
make_container mp4_hevc_bframes     mp4 hevc 30 -an -preset fast -x265-params "$x265q:bframes=3:keyint=12:min-keyint=12:scenecut=0"
make_container mp4_hevc_hvc1        mp4 hevc 20 -an -tag:v hvc1 -preset fast -x265-params "$x265q:bframes=2:keyint=10:min-keyint=10:scenecut=0"
make_container mp4_hevc_frag        mp4 hevc 30 -an -preset fast -x265-params "$x265q:bframes=2:keyint=10:min-keyint=10:scenecut=0" -movflags frag_keyframe+empty_moov+default_base_moof
make_container mov_avc              mov h264 20 -an -bf 2 -g 10 -x264-params "$x264q"
fi
# Colour, aspect ratio and HDR metadata (issue 16): NAME.h264|h265, NAME.mp4 (ffmpeg's remux), and
# NAME.colour.json = ffprobe -show_streams -show_frames (first frame) of the elementary stream,
# with the trace_headers values of the VUI timing, reordering and HRD fields nalu info reports.
# Only these: NALU_FIXTURES=colour Scripts/make-fixtures.sh
# NAME.colour.json of an existing NAME.EXT (no re-encoding).
probe_colour() {
    local name=$1 ext=$2
    local file="$out/$name.$ext"
    ffprobe -v error -select_streams v:0 -show_streams -show_frames -read_intervals "%+#1" -of json "$file" > "$out/$name.probe.raw.json"
    ffmpeg -hide_banner -nostats -i "$file" -c:v copy -bsf:v trace_headers -f null - -loglevel trace 2> "$out/$name.trace.txt" || true
    python3 - "$out/$name" <<'PY'
import json, re, sys
base = sys.argv[1]
probe = json.load(open(base + ".probe.raw.json"))
fields = {}
for line in open(base + ".trace.txt", errors="replace"):
    m = re.search(r"\]\s+\d+\s+(\w+(?:\[\d+\])*)\s+[01]+ = (-?\d+)", line)
    if m and m.group(1) not in fields:
        fields[m.group(1)] = int(m.group(2))
keep = ["num_units_in_tick", "time_scale", "fixed_frame_rate_flag", "vui_num_units_in_tick", "vui_time_scale",
        "max_num_reorder_frames", "max_dec_frame_buffering", "sps_max_num_reorder_pics[0]", "sps_max_dec_pic_buffering_minus1[0]",
        "nal_hrd_parameters_present_flag", "vcl_hrd_parameters_present_flag", "bit_rate_scale", "cpb_size_scale",
        "bit_rate_value_minus1[0]", "cpb_size_value_minus1[0]", "cbr_flag[0]", "video_signal_type_present_flag",
        "aspect_ratio_idc", "sar_width", "sar_height"]
probe["trace_headers"] = {k: fields[k] for k in keep if k in fields}
json.dump(probe, open(base + ".colour.json", "w"), indent=1, sort_keys=True)
PY
    rm -f "$out/$name.probe.raw.json" "$out/$name.trace.txt"
}
colour() {
    local name=$1 codec=$2 size=$3; shift 3
    local ext=h264 enc=libx264 fmt=h264
    if [ "$codec" = hevc ]; then ext=h265 enc=libx265 fmt=hevc; fi
    local file="$out/$name.$ext"
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=25" -frames:v 5 -c:v "$enc" "$@" -f "$fmt" "$file"
    ffmpeg -v error -y -r 25 -f "$fmt" -i "$file" -c copy -f mp4 "$out/$name.mp4"
    probe_colour "$name" "$ext"
}
colour_fixtures() {
    colour colour_avc_bt709_tv   h264 176x144 -pix_fmt yuv420p -color_primaries bt709 -color_trc bt709 -colorspace bt709 -color_range tv -x264-params log-level=error
    colour colour_avc_pc_sar43   h264 176x144 -pix_fmt yuv420p -color_primaries smpte170m -color_trc smpte170m -colorspace smpte170m -color_range pc -vf setsar=4/3 -x264-params log-level=error
    colour colour_avc_hrd        h264 176x144 -pix_fmt yuv420p -color_primaries bt470bg -color_trc gamma28 -colorspace bt470bg -maxrate 300k -bufsize 600k -x264-params log-level=error:nal-hrd=vbr
    colour colour_hevc_hdr10     hevc 176x144 -pix_fmt yuv420p10le -preset ultrafast -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv \
        -x265-params "log-level=error:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400:vbv-bufsize=1000:vbv-maxrate=800:hrd=1"
    for f in "$out"/avc_*.h264 "$out"/hevc_*.h265; do
        case "$f" in *.mp4toannexb.*) continue;; esac
        local base=${f##*/}; probe_colour "${base%.*}" "${base##*.}"
    done
    # The container's colr says BT.709 full range, the VUI BT.2020 PQ limited range: info notes it.
    ffmpeg -v error -y -r 25 -f hevc -i "$out/colour_hevc_hdr10.h265" -c copy -color_primaries bt709 -color_trc bt709 \
        -colorspace bt709 -color_range pc -f mp4 "$out/colour_hevc_colr_mismatch.mp4"
    # x264's own CLI writes no aspect_ratio_info and no video signal type: ffprobe omits those keys.
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 5 -pix_fmt yuv420p -f rawvideo "$out/colour_avc_nosar.yuv"
    x264 --quiet --no-progress --input-res 176x144 --fps 25 -o "$out/colour_avc_nosar.h264" "$out/colour_avc_nosar.yuv"
    rm -f "$out/colour_avc_nosar.yuv"
    probe_colour colour_avc_nosar h264
    colour colour_hevc_hlg_sar   hevc 176x144 -pix_fmt yuv420p10le -preset ultrafast -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -color_range pc -vf setsar=16/11 -x265-params log-level=error
}
# MPEG-TS input (issue 15): NAME.ts|NAME.m2ts as ffmpeg's mpegts muxer writes them (video PID 0x100,
# AAC audio 0x101), with
#   NAME.demux.h264|h265   ffmpeg's own demux: -map 0:v -c copy -f h264|hevc
#   NAME.tspackets.csv     ffprobe's video packets: pts,dts,flags (90 kHz), one line each
# Only these: NALU_FIXTURES=ts Scripts/make-fixtures.sh
# name extension codec frames encoder-and-muxer-args...
make_ts() {
    local name=$1 container=$2 codec=$3 frames=$4; shift 4
    local ext=h264 enc=libx264 fmt=h264
    if [ "$codec" = hevc ]; then ext=h265 enc=libx265 fmt=hevc; fi
    local file="$out/$name.$container"
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=30:duration=2" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=1" \
        -frames:v "$frames" -c:v "$enc" -pix_fmt yuv420p -c:a aac "$@" -fflags +bitexact -f mpegts "$file"
    ffmpeg -v error -y -i "$file" -map 0:v -c copy -f "$fmt" "$out/$name.demux.$ext"
    ffprobe -v error -select_streams v:0 -show_entries packet=pts,dts,flags -of csv=p=0 "$file" > "$out/$name.tspackets.csv"
}
ts_fixtures() {
    make_ts ts_avc_aac   ts   h264 30 -bf 2 -g 10 -x264-params log-level=error
    make_ts ts_hevc_aac  ts   hevc 30 -preset fast -x265-params "log-level=error:bframes=3:keyint=12:min-keyint=12:scenecut=0"
    make_ts m2ts_avc_aac m2ts h264 30 -bf 2 -g 10 -x264-params log-level=error -mpegts_m2ts_mode 1
}
[ "${NALU_FIXTURES:-all}" = ts ] && { ts_fixtures; exit 0; }
[ "${NALU_FIXTURES:-all}" = colour ] && { colour_fixtures; exit 0; }

# Cutting and joining (issue 15, nalu trim/concat): a 3-second 25 fps H.264 B-frame MP4 with AAC
# audio, keyframes every 0.48 s (so a cut at 1 s needs lead-in pictures), and two 1-second clips
# of different sizes with audio for concat. Only these: NALU_FIXTURES=trim Scripts/make-fixtures.sh
trim_fixtures() {
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25:duration=3" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=3" \
        -c:v libx264 -pix_fmt yuv420p -bf 3 -g 12 -keyint_min 12 -sc_threshold 0 -x264-params "log-level=error:b-pyramid=normal" \
        -c:a aac -b:a 32k -fflags +bitexact -f mp4 "$out/trim_avc_bframes_audio.mp4"
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=176x144:rate=25:duration=3" \
        -c:v libx265 -pix_fmt yuv420p -preset fast -x265-params "log-level=error:keyint=12:min-keyint=12:scenecut=0:open-gop=1:bframes=3" \
        -f hevc "$out/trim_hevc_open_gop.h265"
    local size
    for size in 640x360 1280x720; do
        ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=25:duration=1" -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=1" \
            -c:v libx264 -pix_fmt yuv420p -bf 2 -g 12 -crf 40 -x264-params log-level=error -c:a aac -b:a 32k \
            -fflags +bitexact -f mp4 "$out/concat_avc_$size.mp4"
        ffmpeg -v error -y -i "$out/concat_avc_$size.mp4" -map 0:v -c:v copy -bsf:v h264_mp4toannexb -f h264 "$out/concat_avc_$size.h264"
    done
}
[ "${NALU_FIXTURES:-all}" = trim ] && { trim_fixtures; exit 0; }
[ "${NALU_FIXTURES:-all}" = mp4 ] && exit 0

# H.264 (ITU-T H.264 profiles as x264 makes them)
make avc_baseline        h264 176x144 30 20 -profile:v baseline -pix_fmt yuv420p -g 10 -x264-params log-level=error
make avc_main            h264 176x144 30 20 -profile:v main -pix_fmt yuv420p -bf 2 -g 10
make avc_high_bframes    h264 320x180 30 30 -profile:v high -pix_fmt yuv420p -bf 3 -g 15 -x264-params b-pyramid=normal
make avc_high10          h264 176x144 30 12 -profile:v high10 -pix_fmt yuv420p10le
make avc_high422         h264 176x144 30 12 -profile:v high422 -pix_fmt yuv422p
make avc_high444         h264 176x144 30 12 -profile:v high444 -pix_fmt yuv444p
make avc_interlaced      h264 176x144 25 12 -pix_fmt yuv420p -flags +ilme+ildct -x264-params tff=1
make avc_multislice      h264 320x180 30 12 -pix_fmt yuv420p -slices 4 -bf 2
make avc_odd_174x98      h264 174x98 30 12 -pix_fmt yuv420p
make avc_ntsc_aud        h264 176x144 30000/1001 15 -pix_fmt yuv420p -x264-params aud=1:keyint=5
make avc_intra_refresh   h264 176x144 30 30 -pix_fmt yuv420p -intra-refresh 1 -g 10 -bf 0
make avc_open_gop        h264 176x144 30 30 -pix_fmt yuv420p -bf 3 -x264-params open-gop=1:keyint=10:min-keyint=10:scenecut=0
make avc_cqm_jvt         h264 176x144 30 8 -pix_fmt yuv420p -x264-params cqm=jvt

# H.265
x265q="log-level=error"
make hevc_main           hevc 176x144 30 20 -pix_fmt yuv420p -preset ultrafast -x265-params "$x265q:keyint=10"
make hevc_main10         hevc 176x144 30 12 -pix_fmt yuv420p10le -preset ultrafast -x265-params "$x265q"
make hevc_rext422_10     hevc 176x144 30 12 -pix_fmt yuv422p10le -preset ultrafast -x265-params "$x265q"
make hevc_rext444        hevc 176x144 30 12 -pix_fmt yuv444p -preset ultrafast -x265-params "$x265q"
make hevc_odd_174x98     hevc 174x98 30000/1001 12 -pix_fmt yuv420p -preset ultrafast -x265-params "$x265q"
make hevc_open_gop       hevc 176x144 30 30 -pix_fmt yuv420p -preset fast -x265-params "$x265q:keyint=10:min-keyint=10:scenecut=0:open-gop=1:bframes=3"
make hevc_closed_gop     hevc 176x144 30 30 -pix_fmt yuv420p -preset fast -x265-params "$x265q:keyint=10:min-keyint=10:scenecut=0:open-gop=0:bframes=3"
make hevc_wpp_aud        hevc 320x180 30 12 -pix_fmt yuv420p -preset ultrafast -x265-params "$x265q:wpp=1:aud=1:repeat-headers=1:keyint=6"
make hevc_slices         hevc 320x180 30 12 -pix_fmt yuv420p -preset ultrafast -x265-params "$x265q:slices=3"

colour_fixtures
trim_fixtures
ts_fixtures
# Damaged and unusual MPEG-TS made from ffmpeg's TS of avc_main.mp4 (issue 32 item 5).
python3 Scripts/make-ts-damage.py --out "$out"

# AAC in ADTS (issue 15, MPEG-TS output): ffmpeg's native AAC encoder, LC, 44.1 kHz stereo, 0.5 s
# of a sine. The TS muxer's ADTS framing is checked against ffmpeg's headers, frame by frame.
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.5" -ac 2 -c:a aac -b:a 64k -f adts "$out/aac_lc_stereo.adts"

# Faulty streams for nalu doctor (Tests/Fixtures/doctor; needs a built nalu for one of them).
Scripts/make-doctor-fixtures.sh

# nalu edit (issue 16): x264's CBR HRD pads with filler data NAL units (type 12) and filler SEI.
edit_fixtures() {
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 10 -pix_fmt yuv420p -f rawvideo "$out/edit_avc_filler.yuv"
    x264 --quiet --no-progress --input-res 176x144 --fps 25 --nal-hrd cbr --bitrate 1000 --vbv-maxrate 1000 --vbv-bufsize 1000 \
        -o "$out/edit_avc_filler.h264" "$out/edit_avc_filler.yuv"
    rm -f "$out/edit_avc_filler.yuv"
    # An SPS with scaling_list_data() (explicit DPCM lists and DC coefficients, HM list format in
    # edit_hevc_scaling_list.txt: random values 8...40), for the SPS writer's round trip.
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 3 -pix_fmt yuv420p -f rawvideo "$out/edit_hevc_scaling_list.yuv"
    x265 --log-level error --input "$out/edit_hevc_scaling_list.yuv" --input-res 176x144 --fps 25 --preset ultrafast \
        --scaling-list "$out/edit_hevc_scaling_list.txt" -o "$out/edit_hevc_scaling_list.h265"
    rm -f "$out/edit_hevc_scaling_list.yuv"
}
edit_fixtures

# MP4/MOV with audio tracks beside the video, for every-track reading and passthrough (issue 15):
#   tracks_avc_aac.mp4     H.264 with B-frames (25 fps, 2 s) + AAC stereo 48 kHz (2 s)
#   tracks_hevc_aac.mp4    H.265 with B-frames + AAC stereo 44.1 kHz
#   tracks_mov_aac_pcm.mov H.264 + AAC stereo + PCM s16le mono 8 kHz (sowt), language "eng" on the PCM
if [ "${NALU_FIXTURES:-all}" = tracks ] || [ "${NALU_FIXTURES:-all}" = all ]; then
    tracks_video="testsrc2=size=160x96:rate=25:duration=2"
    ffmpeg -v error -y -f lavfi -i "$tracks_video" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
        -map 0:v -map 1:a -c:v libx264 -pix_fmt yuv420p -bf 2 -g 25 -x264-params log-level=error -b:v 120k \
        -c:a aac -ac 2 -b:a 64k -fflags +bitexact -f mp4 "$out/tracks_avc_aac.mp4"
    ffmpeg -v error -y -f lavfi -i "$tracks_video" -f lavfi -i "sine=frequency=660:sample_rate=44100:duration=2" \
        -map 0:v -map 1:a -c:v libx265 -pix_fmt yuv420p -preset fast -x265-params "log-level=error:bframes=2:keyint=25:min-keyint=25:scenecut=0" -b:v 120k \
        -c:a aac -ac 2 -b:a 64k -fflags +bitexact -f mp4 "$out/tracks_hevc_aac.mp4"
    ffmpeg -v error -y -f lavfi -i "$tracks_video" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
        -f lavfi -i "sine=frequency=880:sample_rate=8000:duration=2" \
        -map 0:v -map 1:a -map 2:a -c:v libx264 -pix_fmt yuv420p -bf 2 -g 25 -x264-params log-level=error -b:v 120k \
        -c:a:0 aac -ac:a:0 2 -b:a:0 64k -c:a:1 pcm_s16le -metadata:s:a:1 language=eng -fflags +bitexact -f mov "$out/tracks_mov_aac_pcm.mov"
fi

# Chunked encoding (issue 17): a Y4M source with bare FRAME lines, 20 frames of 128x72 (HEVC needs
# 64x64 for x265's default CTU), 25 fps; 276,657 bytes.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=128x72:rate=25" -frames:v 20 -pix_fmt yuv420p -fflags +bitexact \
    -f yuv4mpegpipe "$out/chunk_128x72.y4m"

ls -l "$out" | awk '{s+=$5} END {print "fixtures:", NR-1, "files,", s, "bytes"}'
