#!/usr/bin/python3
"""GStreamer's rtpbin sending an MP4's H.264 over RTP with RTCP, for nalu's RTCP tests.

  gst-rtcp-sender.py FILE HOST PORT [SECONDS]

RTP goes to HOST:PORT, RTCP (SR + SDES) to HOST:PORT+1 from the socket that also receives the
receiver's RTCP (symmetric RTCP, RFC 4961: the receiver answers to the address the SRs come
from). After the stream ends (or SECONDS, default 30) it prints one JSON line: rtpbin's
statistics of the sending source, with the report blocks (RFC 3550 6.4) it got from receivers
("have-rb", "rb-packetslost", "rb-fractionlost", "rb-exthighestseq", "rb-jitter"), and the
remote sources it saw (their SSRC and whether they sent RTCP).
"""
import json
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

path, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30
Gst.init(None)
pipeline = Gst.parse_launch(
    f"rtpbin name=bin filesrc location={path} ! qtdemux ! h264parse config-interval=-1 ! rtph264pay name=pay pt=96 "
    f"! bin.send_rtp_sink_0 bin.send_rtp_src_0 ! udpsink host={host} port={port} "
    f"bin.send_rtcp_src_0 ! udpsink name=rtcpsink host={host} port={port + 1} sync=false async=false close-socket=false "
    f"udpsrc name=rtcpsrc address=0.0.0.0 port=0 ! application/x-rtcp ! bin.recv_rtcp_sink_0")
source = pipeline.get_by_name("rtcpsrc")
source.set_state(Gst.State.READY)
pipeline.get_by_name("rtcpsink").set_property("socket", source.get_property("used-socket"))
loop = GLib.MainLoop()


def structure(value):
    out = {}
    for index in range(value.n_fields()):
        name = value.nth_field_name(index)
        field = value.get_value(name)
        if isinstance(field, (bool, int, float, str)):
            out[name] = field
    return out


def finish():
    session = pipeline.get_by_name("bin").emit("get-internal-session", 0)
    stats = session.get_property("stats")
    sources = [structure(item) for item in stats.get_value("source-stats")]
    print(json.dumps({"sources": sources}), flush=True)
    loop.quit()
    return False


def on_eos(pad, info):
    if info.get_event().type == Gst.EventType.EOS:
        GLib.timeout_add(1500, finish)
    return Gst.PadProbeReturn.OK


pipeline.get_by_name("pay").get_static_pad("src").add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, on_eos)
GLib.timeout_add(int(seconds * 1000), finish)
pipeline.set_state(Gst.State.PLAYING)
loop.run()
pipeline.set_state(Gst.State.NULL)
