#!/usr/bin/env python3
"""Condenses ffprobe's packet list and ffmpeg's framemd5 for one MP4/MOV fixture into
NAME.mp4facts.json. Called by make-fixtures.sh."""
import json
import sys

name, container, codec, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
raw = json.load(open(f"{out}/{name}.packets.raw.json"))
stream = raw["streams"][0]
packets = raw.get("packets", [])
num, den = (int(x) for x in stream["time_base"].split("/"))
md5s = []
for line in open(f"{out}/{name}.framemd5.txt"):
    if line.startswith("#") or not line.strip():
        continue
    md5s.append(line.rsplit(",", 1)[1].strip())
facts = {
    "container": container,
    "codec": codec,
    "codec_tag": stream["codec_tag_string"],
    "stream_index": stream["index"],
    "timescale": den // num if num == 1 else den,
    "duration_ts": int(stream.get("duration_ts", 0)),
    "r_frame_rate": stream["r_frame_rate"],
    "packets": len(packets),
    "pts": [int(p["pts"]) for p in packets],
    "dts": [int(p["dts"]) for p in packets],
    "durations": [int(p.get("duration", 0)) for p in packets],
    "sizes": [int(p["size"]) for p in packets],
    "pos": [int(p["pos"]) for p in packets],
    "key_packets": [i for i, p in enumerate(packets) if "K" in p.get("flags", "")],
    "frame_md5": md5s,
}
json.dump(facts, open(f"{out}/{name}.mp4facts.json", "w"), indent=1, sort_keys=True)
