#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets from Tests/Fixtures (deterministic).

Usage: make-seeds.py FIXTURES_DIR OUT_DIR
Streams are reduced so each seed stays small: every non-VCL NAL unit is kept whole and VCL NAL
units are cut to their first 48 bytes (enough for every slice header here).
"""
import os, sys

fixtures, out = sys.argv[1], sys.argv[2]

def annexb_units(data):
    units, i, n = [], 0, len(data)
    starts = []
    while True:
        j = data.find(b"\x00\x00\x01", i)
        if j < 0: break
        starts.append(j + 3); i = j + 3
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else n
        u = data[s:e].rstrip(b"\x00")
        if u: units.append(u)
    return units

def is_vcl(codec, u):
    return (u[0] & 0x1F) in (1, 2, 3, 4, 5) if codec == "avc" else ((u[0] >> 1) & 0x3F) < 32

def reduce(codec, units, vcl_limit):
    kept, vcl = [], 0
    for u in units:
        if is_vcl(codec, u):
            vcl += 1
            if vcl > vcl_limit: continue
            u = u[:48]
        kept.append(u)
    return kept

def annexb(units): return b"".join(b"\x00\x00\x00\x01" + u for u in units)
def lp(units): return b"".join(len(u).to_bytes(4, "big") + u for u in units)

def write(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f: f.write(data)

def top_level_boxes(data):
    """(type, start, end, header size) of each top-level ISO BMFF box; stops at a malformed one."""
    boxes, i = [], 0
    while i + 8 <= len(data):
        size, kind, header = int.from_bytes(data[i:i + 4], "big"), data[i + 4:i + 8], 8
        if size == 1 and i + 16 <= len(data):
            size, header = int.from_bytes(data[i + 8:i + 16], "big"), 16
        elif size == 0:
            size = len(data) - i
        if size < header or i + size > len(data): break
        boxes.append((kind, i, i + size, header))
        i += size
    return boxes

def shrink_mp4(data, mdat_keep=1024, fragments=2):
    """The file with every mdat cut to its first mdat_keep bytes and at most `fragments` moof/mdat
    pairs: sample offsets still point into the kept start of mdat (mdat never moves: what
    follows it is all that shifts), so the first samples stay readable and later ones fall
    outside the file, as in a truncated download."""
    out, moofs = b"", 0
    for kind, start, end, header in top_level_boxes(data):
        if kind == b"moof":
            moofs += 1
            if moofs > fragments: break
        if kind == b"mdat":
            payload = data[start + header:end][:mdat_keep]
            out += (8 + len(payload)).to_bytes(4, "big") + b"mdat" + payload
        else:
            out += data[start:end]
    return out

for name in sorted(os.listdir(fixtures)):
    path = os.path.join(fixtures, name)
    base, ext = os.path.splitext(name)
    if ext in (".h264", ".h265") and ".mp4toannexb" not in name:
        codec = "avc" if ext == ".h264" else "hevc"
        units = annexb_units(open(path, "rb").read())
        small = reduce(codec, units, 16)
        many = reduce(codec, units, 200)
        write("annexb", base, annexb(small))
        write("lengthprefixed", base, b"\x02" + lp(small))
        write("avc-ps" if codec == "avc" else "hevc-ps", base, annexb(small))
        write("ps-write", base, bytes([0 if codec == "avc" else 1]) + annexb(small))
        cbit = 0 if codec == "avc" else 1
        write("access-units", base, bytes([cbit]) + annexb(many))
        write("interlace", base, bytes([cbit]) + annexb(many))
        write("decoder-feed", base, bytes([cbit]) + annexb(many))
        write("reader", base, bytes([cbit]) + annexb(many))
        write("convert", base + ".tolp", bytes([cbit]) + annexb(small))
        write("convert", base + ".toannexb", bytes([cbit | 8]) + lp(small))
        write("lent", base + ".tolp", bytes([cbit]) + annexb(small))
        write("lent", base + ".toannexb", bytes([cbit | 8]) + lp(small))
        write("convert", base + ".insert", bytes([cbit | 8 | 0x20 | 0x40]) + lp(small))
        flags = cbit << 1
        write("mp4", base + ".mux", bytes([1 | flags]) + annexb(small))
        write("mp4", base + ".mux-frag-inband", bytes([1 | flags | 4 | 16]) + annexb(small))
        write("mp4", base + ".mux-faststart", bytes([1 | flags | 32]) + annexb(small))
    elif ext in (".mp4", ".mov"):
        write("mp4", name, b"\x00" + shrink_mp4(open(path, "rb").read()))
        write("tracks", name, shrink_mp4(open(path, "rb").read()))
        write("reader", name, b"\x00" + shrink_mp4(open(path, "rb").read()))
    elif ext in (".ts", ".m2ts"):
        # The ts target: mode bit 0 = 192-byte packets; the first 60 packets (PAT, PMT, a few frames).
        m2ts = 1 if ext == ".m2ts" else 0
        size = 192 if m2ts else 188
        head = open(path, "rb").read()[:60 * size]
        write("ts", base, bytes([m2ts]) + head)
        write("ts", base + ".pid-chunks", bytes([m2ts | 2 | (37 << 2)]) + head)
        lossy = head[:10 * size] + head[11 * size:]
        write("ts", base + ".lossy", bytes([m2ts | (3 << 2)]) + lossy)
        write("reader", base, b"\x00" + head)
    elif ext in (".avcC", ".hvcC"):
        write("records", base, b"\x07" + open(path, "rb").read())

def y4m(header, frame_size, frames=2):
    return header + b"\n" + b"".join(b"FRAME\n" + bytes((i * 7 + k) & 0xFF for k in range(frame_size)) for i in range(frames))
write("y4m", "i420", b"\x05" + y4m(b"YUV4MPEG2 W16 H8 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2", 16 * 8 * 3 // 2))
write("y4m", "jpeg", b"\x3f" + y4m(b"YUV4MPEG2 W4 H2 F25:1 C420jpeg", 12))
write("y4m", "p10", b"\x01" + y4m(b"YUV4MPEG2 W2 H2 F1:1 A0:0 C420p10", 12))
write("y4m", "raw", b"\x47" + bytes(range(192)) * 2)

# Issue 18's resource classes, so the fuzzers start from them (run with -rss_limit_mb=256).
def box(kind, payload): return (8 + len(payload)).to_bytes(4, "big") + kind + payload
def empty_fragment(sequence, count, duration=0xFFFFFFFF):
    """moof of track 1: one trun of `count` samples of the default size 0, tfdt restarting at 0."""
    tfhd = box(b"tfhd", (0x020018).to_bytes(4, "big") + (1).to_bytes(4, "big") + duration.to_bytes(4, "big") + bytes(4))
    tfdt = box(b"tfdt", b"\x01\x00\x00\x00" + bytes(8))
    trun = box(b"trun", bytes(4) + count.to_bytes(4, "big"))
    return box(b"moof", box(b"mfhd", bytes(4) + sequence.to_bytes(4, "big")) + box(b"traf", tfhd + tfdt + trun))
frag = shrink_mp4(open(os.path.join(fixtures, "mp4_avc_frag.mp4"), "rb").read(), fragments=1)
write("mp4", "adversarial-empty-trun", b"\x00" + frag + b"".join(empty_fragment(i + 2, 40) for i in range(8)))
write("mp4", "adversarial-trun-count", b"\x00" + frag + b"".join(empty_fragment(i + 2, 0x7FFFFFFF, 1) for i in range(4)))
mp4 = open(os.path.join(fixtures, "avc_baseline.mp4"), "rb").read()
at = mp4.find(b"mdhd") - 4
if at > 0 and mp4[at + 8] == 0:  # version 0 mdhd → version 1 with duration 2^64 - 1, timescale 1
    v1 = box(b"mdhd", b"\x01\x00\x00\x00" + bytes(16) + (1).to_bytes(4, "big") + b"\xff" * 8 + b"\x55\xc4\x00\x00")
    grown = mp4[:at] + v1 + mp4[at + 32:]
    for kind in (b"mdia", b"trak", b"moov"):
        k = grown.find(kind) - 4
        grown = grown[:k] + (int.from_bytes(grown[k:k + 4], "big") + 12).to_bytes(4, "big") + grown[k + 4:]
    write("mp4", "adversarial-mdhd-duration", b"\x00" + shrink_mp4(grown))
k = mp4.find(b"moov") - 4
if k > 0:  # moov is the last box: grow it over 512 empty children
    write("mp4", "adversarial-moov-children",
          b"\x00" + shrink_mp4(mp4[:k] + (int.from_bytes(mp4[k:k + 4], "big") + 8 * 512).to_bytes(4, "big") + mp4[k + 4:] + box(b"free", b"") * 512))
base = reduce("avc", annexb_units(open(os.path.join(fixtures, "avc_baseline.h264"), "rb").read()), 4)
filler = b"\x0c" + b"\xff" * 256 + b"\x80"
write("mp4", "adversarial-filler.mux", b"\x01" + annexb([filler] * 8 + base + [filler] * 8))
write("mp4", "adversarial-sps-changes.mux", b"\x01" + annexb([base[0], base[0] + b"\x80"] * 32 + base))
write("mp4", "adversarial-sps-junk.mux", b"\x01" + annexb([base[0] + b"\xff" * 3000] + base))
write("annexb", "adversarial-zero-padding", annexb(base) + bytes(3000))
write("convert", "adversarial-filler.toannexb", bytes([8]) + lp([filler] * 3 + base))

# ts-audio: the audio fixtures' first 16 kB, each stream's coding and PID in the mode byte.
audio_dir = os.path.join(fixtures, "audio")
for name, mode in (("ts_ac3.ts", 1), ("ts_mp2.ts", 3), ("three_aac.ts", 0 | 1 << 2)):
    path = os.path.join(audio_dir, name)
    if os.path.exists(path):
        write("ts-audio", name, bytes([mode]) + open(path, "rb").read()[:16384 - 1])

# The tracks target: movies with subtitle, timecode and several audio tracks (issue 41).
for folder in ("tracks", "realworld"):
    directory = os.path.join(fixtures, folder)
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if os.path.splitext(name)[1] in (".mp4", ".mov"):
            write("tracks", folder + "-" + name, shrink_mp4(open(os.path.join(directory, name), "rb").read()))

# rtp-aac: aac_lc_stereo.adts's first frames as a round trip (MTU 220, 4 AUs a packet) and as
# RFC 3640 AAC-hbr packets (two AUs each, then one fragmented over two packets).
adts_path = os.path.join(fixtures, "aac_lc_stereo.adts")
if os.path.exists(adts_path):
    adts, frames, at = open(adts_path, "rb").read(), [], 0
    while at + 7 <= len(adts) and len(frames) < 12:
        length = (adts[at + 3] & 3) << 11 | adts[at + 4] << 3 | adts[at + 5] >> 5
        header = 7 if adts[at + 1] & 1 else 9
        frames.append(adts[at + header:at + length])
        at += length
    write("rtp-aac", "roundtrip-adts", bytes([1, 200, 3]) + b"".join(len(f).to_bytes(2, "big") + f for f in frames))

    def rtp(seq, ts, marker, payload):
        return bytes([0x80, (0x80 if marker else 0) | 97]) + seq.to_bytes(2, "big") + ts.to_bytes(4, "big") + b"NALV" + payload

    def headers(sizes):
        return (16 * len(sizes)).to_bytes(2, "big") + b"".join((s << 3).to_bytes(2, "big") for s in sizes)
    packets = [rtp(i, i * 2048, True, headers([len(a), len(b)]) + a + b) for i, (a, b) in enumerate(zip(frames[0:8:2], frames[1:8:2]))]
    big = frames[8]
    packets += [rtp(4, 8192, False, headers([len(big)]) + big[:100]), rtp(5, 8192, True, headers([len(big)]) + big[100:])]
    write("rtp-aac", "packets-hbr", bytes([0]) + b"".join(len(p).to_bytes(2, "big") + p for p in packets))

# concat-ts: transport streams joined with themselves (issue 41): the first 16 kB of TS fixtures
# with audio, across the 2^33 wrap, of two rates; mode bits: MP4/TS output, audio, a rate given.
for folder, name in (("", "ts_pts_wrap.ts"), ("", "ts_avc_aac.ts"), ("", "ts_hevc_aac.ts"), ("tsjoin", "vfr.ts"), ("tsjoin", "tail.ts")):
    path = os.path.join(fixtures, folder, name)
    if os.path.exists(path):
        data = open(path, "rb").read()[:16384 - 1]
        for mode in (0, 1, 2, 3, 6):
            write("concat-ts", "%s-%d" % (name, mode), bytes([mode]) + data)
