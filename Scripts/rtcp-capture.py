#!/usr/bin/env python3
"""Captures RTCP datagrams on 127.0.0.1 and decodes the packets nalu's tests check, with
struct only (an independent reading of the bytes, not NALURTP's parser).

  rtcp-capture.py listen PORT SECONDS OUTDIR    write every datagram to OUTDIR/NN.bin, print one
                                                 JSON line per datagram (source port, packets)
  rtcp-capture.py decode FILE...                print the packets of each file as JSON lines
  rtcp-capture.py relay LISTEN FORWARD SEED PERCENT SECONDS
                                                 a seeded loss injector between an RTP sender and a
                                                 receiver on 127.0.0.1: RTP on LISTEN forwarded to
                                                 FORWARD with PERCENT % of the packets after the
                                                 first 20 dropped; RTCP between LISTEN+1 and
                                                 FORWARD+1 relayed both ways unchanged and decoded.
                                                 Ends at both BYEs or SECONDS; prints one JSON line

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


def relay(listen, forward, seed, percent, seconds):
    import random
    import select
    generator = random.Random(seed)
    rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtp.bind(("127.0.0.1", listen))
    rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtcp.bind(("127.0.0.1", listen + 1))
    receiver = ("127.0.0.1", forward + 1)
    sender = None
    count, dropped, last_forwarded = 0, [], None
    to_receiver, to_sender = [], []
    byes = set()
    deadline = time.time() + seconds
    while time.time() < deadline and byes != {"sender", "receiver"}:
        ready, _, _ = select.select([rtp, rtcp], [], [], 0.1)
        if rtp in ready:
            data, _ = rtp.recvfrom(65536)
            sequence = struct.unpack_from("!H", data, 2)[0]
            if count >= 20 and generator.random() * 100 < percent:
                dropped.append(sequence)
            else:
                rtp.sendto(data, ("127.0.0.1", forward))
                last_forwarded = sequence
            count += 1
        if rtcp in ready:
            data, source = rtcp.recvfrom(65536)
            packets = decode(data)
            if source == receiver:
                to_sender.append(packets)
                if sender:
                    rtcp.sendto(data, sender)
                if any(p["type"] == "BYE" for p in packets):
                    byes.add("receiver")
            else:
                sender = source
                to_receiver.append(packets)
                rtcp.sendto(data, receiver)
                if any(p["type"] == "BYE" for p in packets):
                    byes.add("sender")
    # Sequence numbers grow without wrapping here (fewer than 65536 packets from a random start
    # are compared modulo 2^16 against the last one forwarded).
    before_last = [s for s in dropped if last_forwarded is not None and 0 < (last_forwarded - s) % 65536 < 32768]
    print(json.dumps({"packets": count, "dropped": len(dropped), "droppedBeforeLast": len(before_last),
                      "toReceiver": to_receiver, "toSender": to_sender}), flush=True)


def main():
    if sys.argv[1] == "relay":
        relay(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]))
    elif sys.argv[1] == "listen":
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
