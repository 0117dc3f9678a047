#!/usr/bin/env python3
"""Damaged and unusual MPEG-TS inputs for issue 32 item 5, made from FFmpeg's TS of a fixture.

Scripts/make-ts-damage.py [--out DIR]

The base is Tests/Fixtures/avc_main.mp4 (20 pictures, 176x144, 30 fps: a 0.67 s clip) remuxed
by ffmpeg (`-c copy -f mpegts`: PAT, PMT on PID 0x1000, H.264 on PID 0x100 with the PCR, one
PES per access unit); ffmpeg's demux of it (`-map 0:v -c copy -f h264`) is
ts_damage_base.demux.h264. From it, rewriting packets (ISO/IEC 13818-1 2.4.3.2, 2.4.4):

  ts_cc_constant.ts     every packet of the video PID has continuity_counter 0 (each is a
                        discontinuity, none a duplicate: 2.4.3.3); FFmpeg decodes all 20 pictures
  ts_cc_duplicate.ts    the same stream with every 5th video packet sent twice, byte for byte
                        (the duplicates 2.4.3.3 allows): they are dropped
  ts_pmt_move.ts        from the 11th access unit on the video is on PID 0x200, announced by a
                        PMT of version 1 before it (FFmpeg follows it)
  ts_pts_wrap.ts        every PTS, DTS and PCR moved so that the clock passes 2^33 after the 6th
                        picture: the times wrap (2.4.3.7, 90 kHz modulo 2^33)
  ts_damaged_start.ts   the sync_byte of packets 0, 10 and 12 (SDT, in the first picture) is overwritten: a few damaged packets
                        near the start
  ts_pts_backwards.ts   the PTS and DTS of the 11th picture (decoding order) set back by 10 frames (30,000 ticks): a
                        damaged time stamp that repeats an earlier picture's (issue 40 item 22)

Needs ffmpeg and python3; run from the repository root.
"""
import argparse
import os
import subprocess
import sys
import tempfile

PACKET = 188
VIDEO_PID = 0x100
PMT_PID = 0x1000


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def pid_of(packet):
    return (packet[1] & 0x1F) << 8 | packet[2]


def set_pid(packet, pid):
    packet[1] = (packet[1] & 0xE0) | (pid >> 8)
    packet[2] = pid & 0xFF


def payload_offset(packet):
    control = (packet[3] >> 4) & 3
    if control & 1 == 0:
        return PACKET
    return 5 + packet[4] if control & 2 else 4


def pmt_packet(version, video_pid, continuity):
    """A PMT (program 1, PCR and H.264 on video_pid) in one packet."""
    body = bytes([0x00, 0x01, 0xC1 | (version & 0x1F) << 1, 0x00, 0x00,
                  0xE0 | video_pid >> 8, video_pid & 0xFF, 0xF0, 0x00,
                  0x1B, 0xE0 | video_pid >> 8, video_pid & 0xFF, 0xF0, 0x00])
    section = bytes([0x02, 0xB0 | (len(body) + 4) >> 8, (len(body) + 4) & 0xFF]) + body
    section += crc32_mpeg2(section).to_bytes(4, "big")
    packet = bytes([0x47, 0x40 | PMT_PID >> 8, PMT_PID & 0xFF, 0x10 | (continuity & 0xF), 0x00]) + section
    return bytearray(packet + b"\xFF" * (PACKET - len(packet)))


def read_timestamp(data, at):
    return ((data[at] >> 1) & 7) << 30 | data[at + 1] << 22 | (data[at + 2] >> 1) << 15 | data[at + 3] << 7 | data[at + 4] >> 1


def write_timestamp(data, at, value):
    value %= 1 << 33
    prefix = data[at] & 0xF0
    data[at] = prefix | ((value >> 30) & 7) << 1 | 1
    data[at + 1] = (value >> 22) & 0xFF
    data[at + 2] = ((value >> 15) & 0x7F) << 1 | 1
    data[at + 3] = (value >> 7) & 0xFF
    data[at + 4] = (value & 0x7F) << 1 | 1


def shift_times(packet, offset):
    """Adds offset to the PCR and to the PTS/DTS of a PES starting in packet (modulo 2^33)."""
    control = (packet[3] >> 4) & 3
    if control & 2 and packet[4] > 0 and packet[5] & 0x10:
        base = packet[6] << 25 | packet[7] << 17 | packet[8] << 9 | packet[9] << 1 | packet[10] >> 7
        base = (base + offset) % (1 << 33)
        packet[6:10] = (base >> 1).to_bytes(4, "big")
        packet[10] = (base & 1) << 7 | (packet[10] & 0x7F)
    start = payload_offset(packet)
    if packet[1] & 0x40 and start + 14 <= PACKET and packet[start:start + 3] == b"\x00\x00\x01" and packet[start + 3] >= 0xBD:
        flags = packet[start + 7] >> 6
        if flags & 2:
            write_timestamp(packet, start + 9, read_timestamp(packet, start + 9) + offset)
        if flags == 3:
            write_timestamp(packet, start + 14, read_timestamp(packet, start + 14) + offset)


def first_pts(packets):
    for packet in packets:
        start = payload_offset(packet)
        if pid_of(packet) == VIDEO_PID and packet[1] & 0x40 and packet[start:start + 3] == b"\x00\x00\x01":
            return read_timestamp(packet, start + 9)
    raise SystemExit("no PTS in the base stream")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="Tests/Fixtures")
    parser.add_argument("--input", default="Tests/Fixtures/avc_main.mp4")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = os.path.join(scratch, "base.ts")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", args.input, "-map", "0:v", "-c", "copy",
                        "-fflags", "+bitexact", "-f", "mpegts", base], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", base, "-map", "0:v", "-c", "copy", "-f", "h264",
                        os.path.join(args.out, "ts_damage_base.demux.h264")], check=True)
        data = open(base, "rb").read()
    if len(data) % PACKET:
        raise SystemExit("base stream is not whole packets")
    packets = [bytearray(data[i:i + PACKET]) for i in range(0, len(data), PACKET)]
    write = lambda name, items: open(os.path.join(args.out, name), "wb").write(b"".join(bytes(p) for p in items))

    constant = [bytearray(p) for p in packets]
    for packet in constant:
        if pid_of(packet) == VIDEO_PID:
            packet[3] &= 0xF0
    write("ts_cc_constant.ts", constant)

    duplicated = []
    video_count = 0
    for packet in packets:
        duplicated.append(bytearray(packet))
        if pid_of(packet) == VIDEO_PID and (packet[3] >> 4) & 1:
            video_count += 1
            if video_count % 5 == 0:
                duplicated.append(bytearray(packet))
    write("ts_cc_duplicate.ts", duplicated)

    moved = []
    units = 0
    new_pid = 0x200
    pmt_counter = 0xF
    for packet in packets:
        packet = bytearray(packet)
        if pid_of(packet) == PMT_PID:
            pmt_counter = packet[3] & 0xF
        if pid_of(packet) == VIDEO_PID and packet[1] & 0x40:
            units += 1
            if units == 11:
                pmt_counter = (pmt_counter + 1) & 0xF
                moved.append(pmt_packet(1, new_pid, pmt_counter))
        if units >= 11:
            if pid_of(packet) == VIDEO_PID:
                set_pid(packet, new_pid)
            elif pid_of(packet) == PMT_PID:
                pmt_counter = (pmt_counter + 1) & 0xF
                moved.append(pmt_packet(1, new_pid, pmt_counter))
                continue
        moved.append(packet)
    write("ts_pmt_move.ts", moved)

    # The 6th picture in decoding order (index 5) is the last before the wrap: 30 fps = 3000 ticks.
    offset = (1 << 33) - first_pts(packets) - 5 * 3000 - 1500
    wrapped = [bytearray(p) for p in packets]
    for packet in wrapped:
        shift_times(packet, offset)
    write("ts_pts_wrap.ts", wrapped)

    damaged = [bytearray(p) for p in packets]
    for index in (0, 10, 12):
        damaged[index][0] = 0x00
    write("ts_damaged_start.ts", damaged)
    backwards = [bytearray(p) for p in packets]
    units = 0
    for packet in backwards:
        start = payload_offset(packet)
        if pid_of(packet) == VIDEO_PID and packet[1] & 0x40 and packet[start:start + 3] == b"\x00\x00\x01":
            units += 1
            if units == 11:
                flags = packet[start + 7] >> 6
                if flags & 2:
                    write_timestamp(packet, start + 9, read_timestamp(packet, start + 9) - 10 * 3000)
                if flags == 3:
                    write_timestamp(packet, start + 14, read_timestamp(packet, start + 14) - 10 * 3000)
    write("ts_pts_backwards.ts", backwards)
    print("wrote", ", ".join(["ts_damage_base.demux.h264", "ts_cc_constant.ts", "ts_cc_duplicate.ts", "ts_pmt_move.ts", "ts_pts_wrap.ts", "ts_damaged_start.ts",
                              "ts_pts_backwards.ts"]),
          "to", args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
