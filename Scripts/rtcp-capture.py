#!/usr/bin/env python3
"""Captures RTCP datagrams on 127.0.0.1 and decodes the packets nalu's tests check, with
struct only (an independent reading of the bytes, not NALURTP's parser).

  rtcp-capture.py listen PORT SECONDS OUTDIR    write every datagram to OUTDIR/NN.bin, print one
                                                 JSON line per datagram (source port, packets)
  rtcp-capture.py decode FILE...                print the packets of each file as JSON lines

Decoded (RFC 3550 6.4.1, 6.4.2, 6.5, 6.6; RFC 4585 6.1, 6.3.1; RFC 5104 4.3.1): SR, RR with
their report blocks (cumulative lost sign-extended from 24 bits), SDES CNAME, BYE, PLI, FIR.
"""
import json
import os
import socket
import struct
import sys
import time


def blocks(data, offset, count):
    out = []
    for i in range(count):
        ssrc, fraction, lost_hi, lost_lo, ext, jitter, lsr, dlsr = struct.unpack_from("!IBBHIIII", data, offset + 24 * i)
        lost = (lost_hi << 16) | lost_lo
        if lost & 0x800000:
            lost -= 1 << 24
        out.append({"ssrc": ssrc, "fraction": fraction, "lost": lost, "ext": ext, "jitter": jitter, "lsr": lsr, "dlsr": dlsr})
    return out


def decode(data):
    packets = []
    offset = 0
    while offset + 4 <= len(data):
        first, pt, words = struct.unpack_from("!BBH", data, offset)
        count = first & 0x1F
        body = offset + 4
        end = offset + 4 * (words + 1)
        if first >> 6 != 2 or end > len(data):
            packets.append({"type": "invalid", "offset": offset})
            break
        if pt == 200:
            ssrc, ntp_s, ntp_f, rtp, pc, oc = struct.unpack_from("!IIIIII", data, body)
            packets.append({"type": "SR", "ssrc": ssrc, "ntp": ntp_s + ntp_f / 2 ** 32, "rtp": rtp, "packets": pc, "octets": oc,
                            "reports": blocks(data, body + 24, count)})
        elif pt == 201:
            (ssrc,) = struct.unpack_from("!I", data, body)
            packets.append({"type": "RR", "ssrc": ssrc, "reports": blocks(data, body + 4, count)})
        elif pt == 202:
            (ssrc,) = struct.unpack_from("!I", data, body)
            cname = None
            if data[body + 4] == 1:
                cname = data[body + 6:body + 6 + data[body + 5]].decode("utf-8", "replace")
            packets.append({"type": "SDES", "ssrc": ssrc, "cname": cname})
        elif pt == 203:
            packets.append({"type": "BYE", "sources": list(struct.unpack_from("!%dI" % count, data, body))})
        elif pt in (205, 206):
            sender, media = struct.unpack_from("!II", data, body)
            name = {(206, 1): "PLI", (206, 4): "FIR", (205, 1): "NACK"}.get((pt, count), "FB")
            entry = {"type": name, "sender": sender, "media": media, "fmt": count, "fci": data[body + 8:end].hex()}
            if name == "FIR":
                entry["fir"] = [list(struct.unpack_from("!IB", data, body + 8 + 8 * i)) for i in range((end - body - 8) // 8)]
            packets.append(entry)
        else:
            packets.append({"type": pt})
        offset = end
    return packets


def main():
    if sys.argv[1] == "listen":
        port, seconds, folder = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
        os.makedirs(folder, exist_ok=True)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", port))
        sock.settimeout(0.1)
        deadline = time.time() + seconds
        count = 0
        while time.time() < deadline:
            try:
                data, source = sock.recvfrom(65536)
            except socket.timeout:
                continue
            with open(os.path.join(folder, "%02d.bin" % count), "wb") as f:
                f.write(data)
            count += 1
            print(json.dumps({"from": source[1], "packets": decode(data)}), flush=True)
    else:
        for name in sys.argv[2:]:
            with open(name, "rb") as f:
                print(json.dumps({"file": name, "packets": decode(f.read())}))


main()
