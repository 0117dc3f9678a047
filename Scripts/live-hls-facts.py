#!/usr/bin/env python3
"""Facts of a live HLS package, for LiveHLSSampleTests (issue 39 item 7: live-hls-sample).

    python3 Scripts/live-hls-facts.py DIR/MASTER.m3u8 [--reference OUT.mkv]

Prints JSON:
- "playlists": each media playlist of the multivariant playlist, read with the `m3u8` package:
  its segments (URI, duration, LL-HLS parts), EXT-X-MEDIA-SEQUENCE, EXT-X-ENDLIST, and whether
  every segment file exists;
- "streams": ffprobe's codec_type of each stream of the multivariant playlist, "duration" its
  format duration;
- "flashes": presentation times (s) of the pictures that are mostly white (mean luma > 200 of
  255: the sample's flash at each whole second), "onsets": the times (s) where the audio rises
  above 0.1 after at least 0.3 s below it (the sample's beep), both decoded by ffmpeg on the
  playlist's own timeline (`-copyts`; the audio padded from 0 to its first time stamp, as
  Scripts/avsync.py decodes it).
With --reference, also writes OUT.mkv for Scripts/avsync.py: the package's video copied (its
own times, `-copyts`) and the sound live-hls-sample was given, synthesised here from its
definition (a 100 ms beep at each whole second from the first picture, 500, 750, 1000, 1250 Hz
in turn, amplitude 0.5, 48 kHz) and starting with the first picture: the audio in sync by
construction, against which avsync.py measures the package's.
Needs ffmpeg, ffprobe, numpy and m3u8.
"""
import json
import os
import subprocess
import sys

import m3u8
import numpy as np

RATE = 48000


def run(args):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"{args[0]} failed: {result.stderr.decode(errors='replace')[:400]}")
    return result.stdout


def main():
    master_path = sys.argv[1]
    folder = os.path.dirname(master_path)
    master = m3u8.load(master_path)
    uris = [p.uri for p in master.playlists] + [m.uri for m in master.media if m.uri]
    playlists = {}
    for uri in uris:
        playlist = m3u8.load(os.path.join(folder, uri))
        playlists[uri] = {
            "segments": [{"uri": s.uri, "duration": s.duration, "parts": len(s.parts),
                          "exists": os.path.exists(os.path.join(folder, s.uri))} for s in playlist.segments],
            "mediaSequence": playlist.media_sequence or 0,
            "endList": bool(playlist.is_endlist),
            "partTarget": playlist.part_inf.part_target if playlist.part_inf else None,
        }
    probe = json.loads(run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type:format=duration", "-of", "json", master_path]))
    streams = sorted({s["codec_type"] for s in probe.get("streams", [])})
    duration = float(probe.get("format", {}).get("duration", 0))

    times = [float(line.split(",")[0]) for line in run([
        "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", master_path,
    ]).decode().split() if line.split(",")[0]]
    raw = np.frombuffer(run(["ffmpeg", "-nostdin", "-v", "error", "-copyts", "-i", master_path, "-map", "0:v:0",
                             "-fps_mode", "passthrough", "-vf", "scale=16:16,format=gray", "-f", "rawvideo", "-"]), dtype=np.uint8)
    means = raw.reshape(-1, 256).mean(axis=1) if len(raw) else np.array([])
    flashes = [t for t, m in zip(sorted(times), means) if m > 200]

    samples = np.abs(np.frombuffer(run(["ffmpeg", "-nostdin", "-v", "error", "-copyts", "-i", master_path, "-map", "0:a:0",
                                        "-af", f"aresample={RATE}:async=1:min_hard_comp=0:first_pts=0",
                                        "-ac", "1", "-ar", str(RATE), "-f", "f32le", "-"]), dtype=np.float32))
    onsets = []
    quiet = 0
    for index in np.flatnonzero(samples > 0.1):
        if not onsets or index - quiet > 0.3 * RATE:
            onsets.append(index / RATE)
        quiet = index
    if len(sys.argv) > 3 and sys.argv[2] == "--reference":
        first = min(times)
        seconds = len(times) // 30
        index = np.arange(seconds * RATE)
        hertz = 500 + 250 * ((index // RATE) % 4)
        tone = np.where(index % RATE < RATE // 10, 0.5 * np.sin(2 * np.pi * hertz * index / RATE), 0.0)
        wav = sys.argv[3] + ".wav"
        (tone * 32767).astype("<i2").tofile(wav + ".raw")
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "s16le", "-ar", str(RATE), "-ac", "1", "-i", wav + ".raw", wav])
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-copyts", "-i", master_path, "-itsoffset", f"{first:.6f}", "-i", wav,
             "-map", "0:v:0", "-map", "1:a:0", "-c:v", "copy", "-c:a", "pcm_s16le", sys.argv[3]])
        os.remove(wav + ".raw")
        os.remove(wav)
    json.dump({"playlists": playlists, "streams": streams, "duration": duration, "frames": len(times),
               "flashes": flashes, "onsets": onsets}, sys.stdout)


if __name__ == "__main__":
    main()
