#!/usr/bin/env bash
# Generates Tests/Fixtures/malformed/ from Tests/Fixtures deterministically (fixed seeds): the
# hostile inputs that Tests/NALUCLITests/MalformedCorpusTests.swift runs every CLI subcommand on.
#
#   truncated-*     every stream fixture cut at 7 offsets: in its first NAL units and near its end
#   lp-truncated-*  length-prefixed fixtures cut mid-length and mid-NAL unit
#   bitflip-*       one bit flipped in a parameter set or a slice header
#   forbidden-*     forbidden_zero_bit set in a parameter set or a slice
#   lp-length-*     zero-length, oversize and past-the-end length prefixes
#   expgolomb-*     absurd Exp-Golomb codes (more than 31 leading zeros, 2^32-2, huge sizes)
#   ids-*           parameter set ids out of range, references to missing parameter sets
#   empty, startcodes-*, random-*  empty input, only start codes, random bytes
#   truncated-mp4_*/-mov_*  every MP4/MOV fixture cut in ftyp, in and at the end of moov, in mdat
#   mp4-*           box sizes past the end / zero / below the header / 64-bit, 40-deep nesting,
#                   huge table and fragment counts, sample offsets outside the file, missing or
#                   empty stsd, no H.264/H.265 track, broken avcC/hvcC, NAL lengths past a sample
#   ts-*, m2ts-*    transport streams cut, with packets lost, duplicated, flagged, scrambled or out
#                   of sync, adaptation fields, PES headers and PAT/PMT sections past their bytes
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf Tests/Fixtures/malformed
mkdir -p Tests/Fixtures/malformed
python3 - Tests/Fixtures Tests/Fixtures/malformed <<'PY'
import os, random, sys

fixtures, out = sys.argv[1], sys.argv[2]
count = 0

def write(name, data):
    global count
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes(data))
    count += 1

def units_of(data):
    starts, i = [], 0
    while True:
        j = data.find(b"\x00\x00\x01", i)
        if j < 0: break
        starts.append(j + 3); i = j + 3
    result = []
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(data)
        u = data[s:e].rstrip(b"\x00")
        if u: result.append(u)
    return result

def annexb(units): return b"".join(b"\x00\x00\x00\x01" + bytes(u) for u in units)
def lp(units, size=4): return b"".join(len(u).to_bytes(size, "big") + bytes(u) for u in units)
def avc_type(u): return u[0] & 0x1F
def hevc_type(u): return (u[0] >> 1) & 0x3F
def is_ps(codec, u): return avc_type(u) in (7, 8) if codec == "avc" else hevc_type(u) in (32, 33, 34)
def is_vcl(codec, u): return avc_type(u) in (1, 5) if codec == "avc" else hevc_type(u) < 32

class Bits:
    def __init__(self): self.bits = []
    def u(self, n, v):
        for i in range(n - 1, -1, -1): self.bits.append((v >> i) & 1)
        return self
    def ue(self, v):
        v += 1
        n = v.bit_length()
        return self.u(n - 1, 0).u(n, v)
    def zeros_then_one(self, zeros):  # an Exp-Golomb prefix with `zeros` leading zeros and all-ones suffix
        return self.u(zeros, 0).u(1, 1).u(zeros, (1 << zeros) - 1)
    def rbsp(self):
        bits = self.bits + [1]
        while len(bits) % 8: bits.append(0)
        raw = bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
        escaped, zeros = bytearray(), 0
        for b in raw:
            if zeros >= 2 and b <= 3:
                escaped.append(3); zeros = 0
            escaped.append(b)
            zeros = zeros + 1 if b == 0 else 0
        return bytes(escaped)

rng = random.Random(6)
streams = sorted(n for n in os.listdir(fixtures) if n.endswith((".h264", ".h265")) and "mp4toannexb" not in n)

# Truncations: inside the headers, and near the end (the last NAL unit cut short).
for name in streams:
    data = open(os.path.join(fixtures, name), "rb").read()
    base, ext = os.path.splitext(name)
    offsets = sorted(set([4, 5, 9, 33] + [rng.randrange(10, 1200) for _ in range(2)] + [len(data) - 1 - rng.randrange(8)]))
    for offset in offsets:
        write(f"truncated-{base}-{offset}{ext}", data[:offset])

# Length-prefixed truncations: mid-length field and mid-NAL unit.
for name in sorted(n for n in os.listdir(fixtures) if n.endswith(".lp"))[::4]:
    data = open(os.path.join(fixtures, name), "rb").read()
    base = name[:-3]
    first = int.from_bytes(data[:4], "big")
    for offset in (2, 4 + first // 2, len(data) // 3 + 1):
        write(f"lp-truncated-{base}-{offset}.lp", data[:offset])

# Reduced streams: parameter sets, SEI and the first few slices cut to 200 bytes.
def reduced(name, slices=3):
    codec = "avc" if name.endswith(".h264") else "hevc"
    units = units_of(open(os.path.join(fixtures, name), "rb").read())
    kept, vcl = [], 0
    for u in units:
        if is_vcl(codec, u):
            vcl += 1
            if vcl > slices: break
            u = u[:200]
        kept.append(bytearray(u))
    return codec, kept

# Bit flips in parameter sets and slice headers (header byte excluded: forbidden_zero_bit below).
for name in streams:
    codec, units = reduced(name)
    base, ext = os.path.splitext(name)
    header = 1 if codec == "avc" else 2
    targets = [i for i, u in enumerate(units) if is_ps(codec, u)] + [i for i, u in enumerate(units) if is_vcl(codec, u)][:1]
    for k in range(2):
        i = targets[rng.randrange(len(targets))]
        copy = [bytearray(u) for u in units]
        u = copy[i]
        span = min(len(u) - header, 24)
        bit = rng.randrange(span * 8)
        u[header + bit // 8] ^= 0x80 >> (bit % 8)
        write(f"bitflip-{base}-{k}{ext}", annexb(copy))

# forbidden_zero_bit set in the first parameter set, and in the first slice.
for name in ("avc_main.h264", "hevc_main.h265"):
    codec, units = reduced(name)
    base, ext = os.path.splitext(name)
    for what, pick in (("ps", is_ps), ("slice", is_vcl)):
        copy = [bytearray(u) for u in units]
        i = next(i for i, u in enumerate(copy) if pick(codec, u))
        copy[i][0] |= 0x80
        write(f"forbidden-{what}-{base}{ext}", annexb(copy))

# Length prefixes: zero length, oversize (2^32-1), one past the end, and a 2-byte prefix file.
for name in ("avc_main.h264", "hevc_main.h265"):
    codec, units = reduced(name)
    base = name.split(".")[0]
    body = lp(units)
    write(f"lp-length-zero-{base}.lp", b"\x00\x00\x00\x00" + body + b"\x00\x00\x00\x00")
    write(f"lp-length-max-{base}.lp", body + b"\xff\xff\xff\xff" + bytes(units[-1][:8]))
    write(f"lp-length-past-end-{base}.lp", body + (len(units[-1]) + 1).to_bytes(4, "big") + bytes(units[-1]))
    write(f"lp-length-all-zero-{base}.lp", bytes(64))
    write(f"lp-length-2byte-oversize-{base}.lp", lp(units, 2)[:-5] + b"\xff\xff")

# H.264 parameter sets written field by field.
def avc_sps(sps_id=0, log2_frame=0, width_mbs=19, height_units=14, crop=None, poc_cycle=None, extra=None):
    b = Bits().u(8, 66).u(8, 0).u(8, 30).ue(sps_id).ue(log2_frame)
    if poc_cycle is None:
        b.ue(0).ue(2)  # pic_order_cnt_type 0, log2_max_pic_order_cnt_lsb_minus4
    else:
        b.ue(1).u(1, 0).ue(0).ue(0).ue(poc_cycle)  # type 1, num_ref_frames_in_pic_order_cnt_cycle
        for _ in range(min(poc_cycle, 4)): b.ue(0)
    b.ue(1).u(1, 0).ue(width_mbs).ue(height_units).u(1, 1).u(1, 1)
    if crop:
        b.u(1, 1)
        for v in crop: b.ue(v)
    else:
        b.u(1, 0)
    b.u(1, 0)  # vui_parameters_present_flag
    if extra: extra(b)
    return bytes([0x67]) + b.rbsp()
def avc_pps(pps_id=0, sps_id=0, slice_groups=0):
    b = Bits().ue(pps_id).ue(sps_id).u(1, 0).u(1, 0).ue(slice_groups)
    if slice_groups: b.ue(6).ue(10 ** 6)  # slice_group_map_type 6, pic_size_in_map_units_minus1
    b.ue(0).ue(0).u(1, 0).u(2, 0)  # num_ref_idx_l0/l1_default_active_minus1, weighted_pred/bipred
    b.ue(0).ue(0).ue(0)  # pic_init_qp_minus26, pic_init_qs_minus26, chroma_qp_index_offset (se 0)
    b.u(1, 1).u(1, 0).u(1, 0)
    return bytes([0x68]) + b.rbsp()
def avc_idr(pps_id=0):
    b = Bits().ue(0).ue(7).ue(pps_id).u(4, 0).ue(0).u(6, 0).u(1, 0).u(1, 0)
    return bytes([0x65]) + b.rbsp() + bytes(16)

valid_sps, valid_pps = avc_sps(), avc_pps()
def avc_case(name, units): write(f"{name}.h264", annexb(units))
avc_case("expgolomb-avc-32-zeros", [bytes([0x67, 66, 0, 30]) + bytes(5) + b"\x01\xff", valid_pps, avc_idr()])
avc_case("expgolomb-avc-2^32-2-width", [bytes([0x67]) + Bits().u(8, 66).u(8, 0).u(8, 30).ue(0).ue(0).ue(0).ue(2).ue(1).u(1, 0).zeros_then_one(31).ue(14).u(1, 1).u(1, 1).u(1, 0).u(1, 0).rbsp(), valid_pps, avc_idr()])
avc_case("expgolomb-avc-huge-picture", [avc_sps(width_mbs=(1 << 30), height_units=(1 << 30)), valid_pps, avc_idr()])
avc_case("expgolomb-avc-log2-max-frame-num", [avc_sps(log2_frame=1 << 20), valid_pps, avc_idr()])
avc_case("expgolomb-avc-crop-beyond-picture", [avc_sps(crop=(1 << 20, 1 << 20, 5, 5)), valid_pps, avc_idr()])
avc_case("expgolomb-avc-poc-cycle", [avc_sps(poc_cycle=1 << 24), valid_pps, avc_idr()])
avc_case("expgolomb-avc-slice-groups", [valid_sps, avc_pps(slice_groups=7), avc_idr()])
avc_case("ids-avc-sps-32", [avc_sps(sps_id=32), avc_pps(sps_id=32), avc_idr()])
avc_case("ids-avc-sps-huge", [avc_sps(sps_id=1 << 31), valid_pps, avc_idr()])
avc_case("ids-avc-pps-256", [valid_sps, avc_pps(pps_id=256), avc_idr(pps_id=256)])
avc_case("ids-avc-pps-missing-sps", [valid_sps, avc_pps(sps_id=5), avc_idr()])
avc_case("ids-avc-slice-missing-pps", [valid_sps, valid_pps, avc_idr(pps_id=9)])
avc_case("ids-avc-slice-before-parameter-sets", [avc_idr(), valid_sps, valid_pps])
avc_case("valid-avc-handmade", [valid_sps, valid_pps, avc_idr()])

# H.265 parameter sets written field by field.
def ptl(b):
    b.u(2, 0).u(1, 0).u(5, 1).u(32, 0x60000000).u(4, 0b1001).u(43, 0).u(1, 0).u(8, 93)
def hevc_vps(vps_id=0):
    b = Bits().u(4, vps_id).u(1, 1).u(1, 1).u(6, 0).u(3, 0).u(1, 1).u(16, 0xFFFF)
    ptl(b)
    b.u(1, 1).ue(4).ue(0).ue(0).u(6, 0).ue(0).u(1, 0).u(1, 0)
    return bytes([0x40, 0x01]) + b.rbsp()
def hevc_sps(sps_id=0, width=176, height=96, log2_poc=4, rps=0, ctb_diff=1):
    b = Bits().u(4, 0).u(3, 0).u(1, 1)
    ptl(b)
    b.ue(sps_id).ue(1).ue(width).ue(height).u(1, 0).ue(0).ue(0).ue(log2_poc).u(1, 1).ue(4).ue(0).ue(0)
    b.ue(0).ue(ctb_diff).ue(0).ue(2).ue(0).ue(0).u(1, 0).u(1, 0).u(1, 1).u(1, 0).ue(rps)
    for _ in range(min(rps, 2)): b.ue(0).ue(0)  # num_negative_pics, num_positive_pics
    b.u(1, 0).u(1, 1).u(1, 1).u(1, 0).u(1, 0)
    return bytes([0x42, 0x01]) + b.rbsp()
def hevc_pps(pps_id=0, sps_id=0):
    b = Bits().ue(pps_id).ue(sps_id).u(1, 0).u(1, 0).u(3, 0).u(1, 0).u(1, 0).ue(0).ue(0).ue(0)
    b.u(1, 0).u(1, 0).u(1, 0).ue(0).ue(0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).u(1, 0).ue(0).u(1, 0).u(1, 0)
    return bytes([0x44, 0x01]) + b.rbsp()
def hevc_idr(pps_id=0):
    b = Bits().u(1, 1).u(1, 0).ue(pps_id).ue(2).u(1, 0).u(1, 0).u(1, 0).ue(0).u(1, 0)
    return bytes([0x26, 0x01]) + b.rbsp() + bytes(16)
vps, sps, pps = hevc_vps(), hevc_sps(), hevc_pps()
def hevc_case(name, units): write(f"{name}.h265", annexb(units))
hevc_case("expgolomb-hevc-huge-picture", [vps, hevc_sps(width=(1 << 31) - 8, height=(1 << 31) - 8), pps, hevc_idr()])
hevc_case("expgolomb-hevc-2^32-2-width", [vps, bytes([0x42, 0x01]) + (lambda b: (b.u(4, 0).u(3, 0).u(1, 1), ptl(b), b.ue(0).ue(1).zeros_then_one(31).ue(96))[-1])(Bits()).rbsp(), pps, hevc_idr()])
hevc_case("expgolomb-hevc-32-zeros", [vps, bytes([0x42, 0x01, 0x01]) + bytes(12) + bytes(6) + b"\x01", pps, hevc_idr()])
hevc_case("expgolomb-hevc-log2-poc", [vps, hevc_sps(log2_poc=1 << 20), pps, hevc_idr()])
hevc_case("expgolomb-hevc-ref-pic-sets", [vps, hevc_sps(rps=1 << 20), pps, hevc_idr()])
hevc_case("expgolomb-hevc-ctb-size", [vps, hevc_sps(ctb_diff=1 << 20), pps, hevc_idr()])
hevc_case("ids-hevc-sps-16", [vps, hevc_sps(sps_id=16), hevc_pps(sps_id=16), hevc_idr()])
hevc_case("ids-hevc-pps-64", [vps, sps, hevc_pps(pps_id=64), hevc_idr(pps_id=64)])
hevc_case("ids-hevc-pps-missing-sps", [vps, sps, hevc_pps(sps_id=7), hevc_idr()])
hevc_case("ids-hevc-slice-missing-pps", [vps, sps, pps, hevc_idr(pps_id=33)])
hevc_case("ids-hevc-slice-before-parameter-sets", [hevc_idr(), vps, sps, pps])
hevc_case("valid-hevc-handmade", [vps, sps, pps, hevc_idr()])

# Empty input, start codes only, random bytes.
write("empty", b"")
write("empty.h264", b"")
write("startcodes-3.h264", b"\x00\x00\x01" * 50)
write("startcodes-4.h265", b"\x00\x00\x00\x01" * 50)
write("startcodes-zeros", b"\x00\x00\x01" + bytes(300) + b"\x00\x00\x00\x01")
write("startcodes-then-header-only.h264", b"\x00\x00\x01\x67\x00\x00\x01\x68\x00\x00\x01\x65")
write("zeros", bytes(1000))
for k, size in enumerate((1, 2, 5, 16, 100, 1000, 4096)):
    write(f"random-{k}", bytes(rng.randrange(256) for _ in range(size)))
for k in range(4):
    data = bytearray(rng.randrange(256) for _ in range(2000))
    for _ in range(30):
        at = rng.randrange(len(data) - 4)
        data[at:at + 3] = b"\x00\x00\x01"
    write(f"random-startcodes-{k}" + (".h264" if k % 2 == 0 else ".h265"), data)

# MP4/MOV: the container fixtures truncated and with their boxes damaged field by field.
import struct
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"mvex", b"moof", b"traf", b"edts", b"dinf"}
ENTRIES = {b"avc1", b"avc3", b"hvc1", b"hev1"}

def boxes(data):
    """Every box as (path, offset, size, header size), depth first: path is like moov/trak/mdia."""
    found = []
    def walk(start, end, parent):
        i = start
        while i + 8 <= end:
            size, kind = struct.unpack(">I4s", data[i:i + 8]); header = 8
            if size == 1: size, header = struct.unpack(">Q", data[i + 8:i + 16])[0], 16
            elif size == 0: size = end - i
            path = parent + [kind.decode("latin1")]
            found.append(("/".join(path), i, size, header))
            if kind in CONTAINERS: walk(i + header, i + size, path)
            elif kind == b"stsd": walk(i + 16, i + size, path)
            elif kind in ENTRIES: walk(i + 8 + 78, i + size, path)
            i += size
    walk(0, len(data), [])
    return found

def box(data, suffix, nth=0):
    """(offset, size, header) of the nth box whose path ends with `suffix`."""
    matches = [(o, s, h) for path, o, s, h in boxes(data) if path == suffix or path.endswith("/" + suffix)]
    return matches[nth]

def patched(data, offset, fmt, value):
    copy = bytearray(data)
    struct.pack_into(fmt, copy, offset, value)
    return copy

def mp4(name, data): write(f"mp4-{name}", data)

containers = sorted(n for n in os.listdir(fixtures) if n.startswith(("mp4_", "mov_")) and n.endswith((".mp4", ".mov")))
for name in containers:
    data = open(os.path.join(fixtures, name), "rb").read()
    base, ext = os.path.splitext(name)
    moov, moov_size, _ = box(data, "moov")
    mdat, mdat_size, _ = box(data, "mdat")
    offsets = {7, 20, moov + 8, moov + moov_size // 2, moov + moov_size - 1, mdat + mdat_size // 2, len(data) - 1}
    for offset in sorted(o for o in offsets if 0 < o < len(data)):
        write(f"truncated-{base}-{offset}{ext}", data[:offset])

def progressive(name): return open(os.path.join(fixtures, name), "rb").read()
bframes = progressive("mp4_avc_bframes.mp4")          # moov at the end, ctts, stss
faststart = progressive("mp4_avc_faststart.mp4")      # moov first
hevc = progressive("mp4_hevc_hvc1.mp4")
fragmented = progressive("mp4_hevc_frag.mp4")

for label, data in (("bframes", bframes), ("faststart", faststart)):
    moov, _, _ = box(data, "moov")
    mp4(f"{label}-moov-size-past-end.mp4", patched(data, moov, ">I", 0x7FFF_FFFF))
    trak, _, _ = box(data, "trak")
    mp4(f"{label}-trak-size-zero.mp4", patched(data, trak, ">I", 0))
    stbl, _, _ = box(data, "stbl")
    mp4(f"{label}-stbl-size-below-header.mp4", patched(data, stbl, ">I", 4))
    for table, field in (("stsz", 16), ("stts", 12), ("stsc", 12), ("stco", 12), ("stss", 12), ("ctts", 12)):
        if any(p.endswith("/" + table) for p, _, _, _ in boxes(data)):
            at, _, _ = box(data, table)
            mp4(f"{label}-{table}-count-huge.mp4", patched(data, at + field, ">I", 0xFFFF_FFFF))
    stsz, _, _ = box(data, "stsz")
    mp4(f"{label}-stsz-constant-size-huge.mp4", patched(data, stsz + 12, ">I", 0x7FFF_FFFF))
    mp4(f"{label}-stsz-first-size-past-end.mp4", patched(data, stsz + 20, ">I", 0x7FFF_0000))
    stco, _, _ = box(data, "stco")
    mp4(f"{label}-stco-offset-outside.mp4", patched(data, stco + 16, ">I", 0xFFFF_FF00))
    stsc, _, _ = box(data, "stsc")
    mp4(f"{label}-stsc-first-chunk-zero.mp4", patched(data, stsc + 16, ">I", 0))
    mp4(f"{label}-stsc-zero-samples-per-chunk.mp4", patched(data, stsc + 20, ">I", 0))
    mp4(f"{label}-stsc-description-index-2.mp4", patched(data, stsc + 24, ">I", 2))
    stsd, _, _ = box(data, "stsd")
    mp4(f"{label}-missing-stsd.mp4", patched(data, stsd + 4, ">4s", b"free"))
    mp4(f"{label}-stsd-count-zero.mp4", patched(data, stsd + 12, ">I", 0))
    mp4(f"{label}-stsd-count-huge.mp4", patched(data, stsd + 12, ">I", 0xFFFF_FFFF))
    entry, _, _ = box(data, "avc1")
    mp4(f"{label}-no-video-track.mp4", patched(data, entry + 4, ">4s", b"mp4v"))
    avcc, _, _ = box(data, "avcC")
    mp4(f"{label}-avcC-31-sps.mp4", patched(data, avcc + 13, ">B", 0xFF))
    mp4(f"{label}-avcC-length-size-3.mp4", patched(data, avcc + 12, ">B", 0xFE))
    mp4(f"{label}-avcC-version-0.mp4", patched(data, avcc + 8, ">B", 0))
    mp4(f"{label}-avcC-sps-length-huge.mp4", patched(data, avcc + 14, ">H", 0xFFFF))
    mdhd, _, _ = box(data, "mdhd")
    mp4(f"{label}-mdhd-timescale-zero.mp4", patched(data, mdhd + 20, ">I", 0))
    mp4(f"{label}-mdhd-version-7.mp4", patched(data, mdhd + 8, ">B", 7))
    # The first sample's first NAL unit length runs past the sample.
    first = struct.unpack(">I", data[stco + 16:stco + 20])[0]
    mp4(f"{label}-nal-length-past-sample.mp4", patched(data, first, ">I", 0x00FF_FFFF))
    mp4(f"{label}-nal-length-zero.mp4", patched(data, first, ">I", 0))

# 64-bit sizes: an mdat (before moov, so the reader walks its header) whose largesize runs past
# the end, and one below its header.
mdat, mdat_size, _ = box(bframes, "mdat")
for label, largesize in (("past-end", 1 << 62), ("below-header", 12)):
    copy = bytearray(bframes[:mdat]) + struct.pack(">I4sQ", 1, b"mdat", largesize) + bframes[mdat + 8:]
    mp4(f"largesize-{label}.mp4", copy)
# Boxes nested deeper than any real file: 40 levels of trak inside moov.
ftyp, ftyp_size, _ = box(faststart, "ftyp")
nested = b""
for depth in range(40):
    nested = struct.pack(">I4s", 8 + len(nested), b"trak") + nested
mp4("nesting-40-levels.mp4", faststart[:ftyp_size] + struct.pack(">I4s", 8 + len(nested), b"moov") + nested)
mp4("only-ftyp.mp4", faststart[:ftyp_size])
mp4("empty-moov.mp4", faststart[:ftyp_size] + struct.pack(">I4s", 8, b"moov"))
mp4("ftyp-then-random.mp4", faststart[:ftyp_size] + bytes(rng.randrange(256) for _ in range(600)))
mp4("size-below-header-top.mp4", faststart[:ftyp_size] + struct.pack(">I4s", 3, b"free") + faststart[ftyp_size:])

# HEVC: hvcC arrays and NAL counts.
hvcc, _, _ = box(hevc, "hvcC")
mp4("hevc-hvcC-arrays-huge.mp4", patched(hevc, hvcc + 8 + 22, ">B", 0xFF))
mp4("hevc-hvcC-nal-count-huge.mp4", patched(hevc, hvcc + 8 + 24, ">H", 0xFFFF))
mp4("hevc-hvcC-length-size-3.mp4", patched(hevc, hvcc + 8 + 21, ">B", 0x0E))
# Fragments: trun counts and offsets, tfhd base offsets, defaults, a moof past the end, no mvex.
moof, _, _ = box(fragmented, "moof")
trun, _, _ = box(fragmented, "trun")
tfhd, _, _ = box(fragmented, "tfhd")
mp4("frag-trun-count-huge.mp4", patched(fragmented, trun + 12, ">I", 0xFFFF_FFFF))
mp4("frag-trun-data-offset-negative.mp4", patched(fragmented, trun + 16, ">i", -0x7FFF_0000))
mp4("frag-trun-data-offset-outside.mp4", patched(fragmented, trun + 16, ">i", 0x7FFF_0000))
mp4("frag-moof-size-past-end.mp4", patched(fragmented, moof, ">I", 0x7FFF_FFFF))
mp4("frag-tfhd-track-unknown.mp4", patched(fragmented, tfhd + 12, ">I", 77))
def flags(data, at, value): # a full box's 24-bit flags: fields the box does not hold are read from what follows
    copy = bytearray(data)
    copy[at + 9:at + 12] = value.to_bytes(3, "big")
    return copy
mp4("frag-tfhd-flags-all.mp4", flags(fragmented, tfhd, 0x03003B))
mp4("frag-trun-flags-all.mp4", flags(fragmented, trun, 0x000F05))
mvex, _, _ = box(fragmented, "mvex")
mp4("frag-no-mvex.mp4", patched(fragmented, mvex + 4, ">4s", b"free"))
trex, _, _ = box(fragmented, "trex")
mp4("frag-trex-default-size-huge.mp4", patched(fragmented, trex + 24, ">I", 0xFFFF_FFFF))
mp4("frag-trex-description-index-zero.mp4", patched(fragmented, trex + 16, ">I", 0))
# MPEG-TS (issue 15): ffmpeg's transport streams cut, with packets lost, flagged, unsynced, and
# with adaptation fields, PES headers and PAT/PMT sections that run past their bytes.
def crc_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc
def ts_packets(data, size=188):
    return [bytearray(data[i:i + size]) for i in range(0, len(data) - size + 1, size)]
def pid_of(p, sync=0): return ((p[sync + 1] & 0x1F) << 8) | p[sync + 2]
def ts_join(packets): return b"".join(bytes(p) for p in packets)
def with_section(packets, pid, change):
    """Applies `change` to the section of every PUSI packet of `pid` (pointer_field 0), then fixes its CRC."""
    for p in packets:
        if pid_of(p) == pid and p[1] & 0x40:
            start = 5 + p[4]
            length = ((p[start + 1] & 0x0F) << 8) | p[start + 2]
            section = bytearray(p[start:start + 3 + length])
            change(section)
            section[-4:] = crc_mpeg2(section[:-4]).to_bytes(4, "big")
            p[start:start + len(section)] = section[:188 - start]
    return packets
tsdata = open(os.path.join(fixtures, "ts_avc_aac.ts"), "rb").read()
hevcts = open(os.path.join(fixtures, "ts_hevc_aac.ts"), "rb").read()
m2tsdata = open(os.path.join(fixtures, "m2ts_avc_aac.m2ts"), "rb").read()
for cut in (100, 188 * 2 + 50, 188 * 3, 188 * 4 + 20, 5000, len(tsdata) - 100):
    write(f"ts-truncated-{cut}.ts", tsdata[:cut])
for cut in (192 * 3 + 2, 192 * 10 + 100, len(m2tsdata) - 50):
    write(f"m2ts-truncated-{cut}.m2ts", m2tsdata[:cut])
video = [i for i, p in enumerate(ts_packets(tsdata)) if pid_of(p) == 0x100]
packets = ts_packets(tsdata)
write("ts-continuity-gaps.ts", ts_join(p for i, p in enumerate(packets) if i not in video[5:40:7]))
write("ts-duplicate-packets.ts", ts_join(sum(([p, p] if i in video[3:9] else [p] for i, p in enumerate(packets)), [])))
packets = ts_packets(tsdata)
for i in video[4:60:5]: packets[i][1] |= 0x80
write("ts-transport-error.ts", ts_join(packets))
packets = ts_packets(tsdata)
for i in video[10:20]: packets[i][3] |= 0x80
write("ts-scrambled.ts", ts_join(packets))
packets = ts_packets(tsdata)
for i in video[:8]:
    packets[i][3] |= 0x20  # adaptation field present
    packets[i][4] = 200    # … and longer than the packet
write("ts-adaptation-field-length.ts", ts_join(packets))
packets = ts_packets(tsdata)
first = [i for i in video if packets[i][1] & 0x40]
for i in first[:10]:
    p = packets[i]
    at = 4 + (1 + p[4] if p[3] & 0x20 else 0)
    p[at + 8] = 0xFF       # PES_header_data_length past the packet
write("ts-pes-header-length.ts", ts_join(packets))
packets = ts_packets(tsdata)
for i in first[:10]:
    p = packets[i]
    at = 4 + (1 + p[4] if p[3] & 0x20 else 0)
    p[at + 2] = 0x02       # packet_start_code_prefix 000002
    p[at + 7] = (p[at + 7] & 0x3F) | 0x40  # PTS_DTS_flags '01'
write("ts-pes-start-code.ts", ts_join(packets))
packets = ts_packets(tsdata)
for i in first[::2]:
    p = packets[i]
    at = 4 + (1 + p[4] if p[3] & 0x20 else 0)
    p[at + 7] = (p[at + 7] & 0x3F) | 0x40  # PTS_DTS_flags '01' (forbidden)
write("ts-pts-dts-flags.ts", ts_join(packets))
def bad_crc(packets, pid):
    for p in packets:
        if pid_of(p) == pid and p[1] & 0x40: p[20] ^= 0xFF
    return packets
write("ts-pat-crc.ts", ts_join(bad_crc(ts_packets(tsdata), 0)))
write("ts-pmt-crc.ts", ts_join(bad_crc(ts_packets(tsdata), 0x1000)))
def es_info_huge(section):
    section[12 + ((section[10] & 0x0F) << 8 | section[11]) + 3] = 0x0F
write("ts-pmt-es-info-length.ts", ts_join(with_section(ts_packets(tsdata), 0x1000, es_info_huge)))
def program_info_huge(section): section[10] = 0xFF
write("ts-pmt-program-info-length.ts", ts_join(with_section(ts_packets(tsdata), 0x1000, program_info_huge)))
def audio_only(section):
    section[12] = 0x0F     # the video entry's stream_type: AAC
write("ts-no-video-stream.ts", ts_join(with_section(ts_packets(tsdata), 0x1000, audio_only)))
packets = ts_packets(tsdata)
for p in packets:
    if pid_of(p) == 0x1000 and p[1] & 0x40: p[5 + p[4] + 2 if p[3] & 0x20 else 7] = 0xFF  # section_length low byte
write("ts-pmt-section-length.ts", ts_join(packets))
packets = ts_packets(tsdata)
for p in packets:
    if pid_of(p) == 0 and p[1] & 0x40: p[4] = 0xB7  # pointer_field past the packet
write("ts-pat-pointer-field.ts", ts_join(packets))
rng = random.Random(15)
packets = ts_packets(tsdata)
write("ts-garbage-between.ts", ts_join(packets[:20]) + bytes(rng.randrange(256) for _ in range(333)) + ts_join(packets[20:]))
packets = ts_packets(tsdata)
for i in range(7, len(packets), 9): packets[i][0] = 0x46
write("ts-sync-lost.ts", ts_join(packets))
write("ts-leading-garbage.ts", bytes(rng.randrange(1, 256) for _ in range(100)) + tsdata)
noise = bytearray(hevcts)
for _ in range(300): noise[rng.randrange(len(noise))] = rng.randrange(256)
write("ts-hevc-noise.ts", noise)
sync_only = bytearray(rng.randrange(256) for _ in range(188 * 40))
for i in range(0, len(sync_only), 188): sync_only[i] = 0x47
write("ts-random-sync.ts", sync_only)
write("m2ts-as-188.ts", m2tsdata[4:])
print(f"make-malformed: {count} files in {out}")
PY
du -sh Tests/Fixtures/malformed
