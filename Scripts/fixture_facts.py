#!/usr/bin/env python3
"""Condenses ffprobe's JSON for one fixture and extracts ffmpeg's avcC/hvcC and the
length-prefixed samples from its MP4 remux. Called by make-fixtures.sh."""
import json
import re
import struct
import sys

name, codec, out = sys.argv[1], sys.argv[2], sys.argv[3]
raw = json.load(open(f"{out}/{name}.ffprobe.raw.json"))
stream = raw["streams"][0]
frames = raw.get("frames", [])

pix = stream["pix_fmt"]
chroma = 0 if pix.startswith("gray") else 3 if "444" in pix else 2 if "422" in pix else 1
depth = 10 if "p10" in pix else 12 if "p12" in pix else 8

facts = {
    "codec": stream["codec_name"],
    "profile": stream.get("profile"),
    "level": stream.get("level"),
    "width": stream["width"],
    "height": stream["height"],
    "pix_fmt": pix,
    "chroma_format_idc": chroma,
    "bit_depth": depth,
    "r_frame_rate": stream.get("r_frame_rate"),
    "field_order": stream.get("field_order"),
    "frames": len(frames),
    "key_frames": [i for i, f in enumerate(frames) if f.get("key_frame") == 1],
    "pict_types": "".join(f.get("pict_type", "?") for f in frames),
}
packets = json.load(open(f"{out}/{name}.packets.raw.json")).get("packets", [])
facts["packets"] = len(packets)
facts["packet_pos"] = [int(p["pos"]) for p in packets]
# NAL unit types per packet, from ffmpeg's trace_headers bitstream filter (extradata excluded).
trace_packets = []
for line in open(f"{out}/{name}.trace.txt", errors="replace"):
    if "[trace_headers" not in line:
        continue
    if "] Packet:" in line:
        trace_packets.append([])
    elif trace_packets and re.search(r"\]\s+\d+\s+nal_unit_type\s+[01]+ = \d+", line):
        # The syntax trace of each NAL unit header: "<bit>  nal_unit_type  00111 = 7".
        trace_packets[-1].append(int(line.rsplit("=", 1)[1]))
facts["packet_nal_types"] = trace_packets
facts["key_packets"] = [i for i, p in enumerate(packets) if "K" in p.get("flags", "")]


def boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        yield kind.decode("latin1"), pos + header, pos + size
        pos += size


mp4 = open(f"{out}/{name}.mp4", "rb").read()
record_kind = "avcC" if codec == "h264" else "hvcC"
index = mp4.find(record_kind.encode())
size = struct.unpack(">I", mp4[index - 4:index])[0]
open(f"{out}/{name}.{record_kind}", "wb").write(mp4[index + 4:index - 4 + size])

samples = b""
for kind, body, end in boxes(mp4, 0, len(mp4)):
    if kind == "mdat":
        samples += mp4[body:end]
open(f"{out}/{name}.lp", "wb").write(samples)

json.dump(facts, open(f"{out}/{name}.ffprobe.json", "w"), indent=1, sort_keys=True)
