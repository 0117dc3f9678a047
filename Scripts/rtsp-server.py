#!/usr/bin/python3
"""Test helper (issue 42): GStreamer's RTSP server on 127.0.0.1 serving one MP4 fixture's video.

rtsp-server.py FILE PORT SECONDS [--codec h264|h265] [--audio] [--auth none|basic|digest] [--user U --password P]
Serves rtsp://127.0.0.1:PORT/test as ( filesrc ! qtdemux ! h264parse|h265parse ! rtph264pay|rtph265pay name=pay0 pt=96 ),
over UDP and interleaved TCP, and exits after SECONDS. Prints "ready" when listening.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("port", type=int)
parser.add_argument("seconds", type=float)
parser.add_argument("--codec", choices=["h264", "h265"], default="h264")
parser.add_argument("--audio", action="store_true", help="also serve the file's AAC track (rtpmp4gpay, RFC 3640) as pay1")
parser.add_argument("--auth", choices=["none", "basic", "digest"], default="none")
parser.add_argument("--redirect-port", type=int, help="also answer every request on this port with 302 to the served URL")
parser.add_argument("--session-timeout", type=int, help="the sessions' timeout in seconds (RFC 2326 12.37)")
parser.add_argument("--user", default="user")
parser.add_argument("--password", default="secret")
args = parser.parse_args()

Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(str(args.port))
factory = GstRtspServer.RTSPMediaFactory()
location = args.file.replace("\\", "\\\\").replace('"', '\\"')
video = f"{args.codec}parse ! rtp{args.codec}pay name=pay0 pt=96 config-interval=-1"
if args.audio:
    launch = (f'( filesrc location="{location}" ! qtdemux name=d d.video_0 ! queue ! {video} '
              f'd.audio_0 ! queue ! aacparse ! rtpmp4gpay name=pay1 pt=97 )')
else:
    launch = f'( filesrc location="{location}" ! qtdemux ! {video} )'
factory.set_launch(launch)
factory.set_shared(False)
if args.auth != "none":
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "user")
    if args.auth == "basic":
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
    else:
        auth.add_digest(args.user, args.password, token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
    server.set_auth(auth)
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_permission_for_role("user", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_ACCESS, True)
    permissions.add_permission_for_role("user", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, True)
    factory.set_permissions(permissions)
server.get_mount_points().add_factory("/test", factory)


def on_client(_server, client):
    # Each keep-alive is printed, for the tests to count.
    client.connect("get-parameter-request", lambda _client, _context: print("GET_PARAMETER", flush=True))
    if args.session_timeout:
        client.connect("new-session", lambda _client, session: session.set_timeout(args.session_timeout))


server.connect("client-connected", on_client)
if server.attach(None) == 0:
    print("cannot listen", file=sys.stderr)
    sys.exit(1)
if args.redirect_port:
    import socket
    import threading

    def redirect():
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", args.redirect_port))
        listener.listen(4)
        while True:
            connection, _ = listener.accept()
            connection.settimeout(5)
            data = b""
            try:
                for _ in range(16):  # requests on one connection, at most
                    while b"\r\n\r\n" not in data and len(data) < 16384:
                        chunk = connection.recv(4096)
                        if not chunk:
                            raise ConnectionError
                        data += chunk
                    request, _, data = data.partition(b"\r\n\r\n")
                    cseq = next((line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                                 if line.lower().startswith(b"cseq:")), b"0")
                    connection.sendall(b"RTSP/1.0 302 Found\r\nCSeq: " + cseq
                                       + f"\r\nLocation: rtsp://127.0.0.1:{args.port}/test\r\n\r\n".encode())
            except (ConnectionError, OSError):
                pass
            connection.close()

    threading.Thread(target=redirect, daemon=True).start()
loop = GLib.MainLoop()
GLib.timeout_add(int(args.seconds * 1000), loop.quit)
print("ready", flush=True)
loop.run()
