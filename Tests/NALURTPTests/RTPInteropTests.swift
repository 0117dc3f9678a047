import Foundation
import Testing
import NALU
import NALUIO
import NALURTP

/// nalu against real RTP peers on 127.0.0.1: ffmpeg's RTP muxer and demuxer (SDP), GStreamer's
/// rtph264pay/rtph265pay and rtph264depay/rtph265depay. The slices received equal the slices
/// sent byte for byte, and decode to the same frames (ffmpeg framemd5).
@Suite(.serialized) struct RTPInteropTests {
    struct Stream: CustomTestStringConvertible, Sendable {
        let fixture: String
        let codec: Codec
        var testDescription: String { fixture }
        var ffmpegFormat: String { codec == .h264 ? "h264" : "hevc" }
        var gstName: String { codec == .h264 ? "264" : "265" }
    }

    static let streams = [Stream(fixture: "mp4_avc_bframes.mp4", codec: .h264), Stream(fixture: "mp4_hevc_bframes.mp4", codec: .hevc)]

    private func expectSameStream(_ received: String, as input: String, folder: URL) throws {
        let sent = try RTPPeers.slices(input)
        let got = try RTPPeers.slices(received)
        #expect(got.count == sent.count, "\(got.count) slices received of \(sent.count)")
        #expect(got == sent, "the slices received differ from those sent")
        let sentFrames = try RTPPeers.frameHashes(input, folder: folder)
        let gotFrames = try RTPPeers.frameHashes(received, folder: folder)
        #expect(!sentFrames.isEmpty)
        #expect(gotFrames == sentFrames, "decoded frames differ")
    }

    /// Runs `nalu rtp send` into the void with `--rtpdump`: the SDP, and how many packets and
    /// access units (marker bits) the real run sends.
    private func dryRun(_ input: String, port: UInt16, mtu: Int, sdp: String, folder: URL) throws -> (packets: Int, accessUnits: Int) {
        let dump = folder.appendingPathComponent("dry.rtpdump").path
        let dry = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--mtu", "\(mtu)",
                                                   "--rtpdump", dump], folder: folder, name: "dry")
        #expect(dry.status == 0, "\(dry.output)")
        var reader = try RTPDumpReader(source: try FileSource(path: dump))
        var packets = 0
        var markers = 0
        while let record = try reader.next() {
            packets += 1
            if try RTPPacket(parsing: record.bytes).marker { markers += 1 }
        }
        return (packets, markers)
    }

    @Test(arguments: streams, [1400, 300])
    func naluSendsToFfmpeg(stream: Stream, mtu: Int) throws {
        guard let ffmpeg = RTPPeers.tool("ffmpeg") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture(stream.fixture)
        let sdp = folder.appendingPathComponent("out.sdp").path
        // The SDP first (a run into the void), so ffmpeg listens before the packets come.
        let (_, accessUnits) = try dryRun(input, port: port, mtu: mtu, sdp: sdp, folder: folder)
        let out = folder.appendingPathComponent("out.\(stream.ffmpegFormat)").path
        // ffmpeg ends after the access units sent (signals do not reach a child of the test runner).
        let receiver = try RTPPeers.Running(ffmpeg, ["-nostdin", "-y", "-v", "error", "-protocol_whitelist", "file,udp,rtp",
                                                     "-i", sdp, "-c", "copy", "-frames:v", "\(accessUnits)", "-f", stream.ffmpegFormat, out],
                                            folder: folder, name: "ffmpeg")
        try RTPPeers.waitUntilBound(port: port)
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "127.0.0.1:\(port)", "--mtu", "\(mtu)", "--realtime"],
                                    folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        let status = receiver.wait(seconds: 20)
        #expect(status == 0, "\(receiver.output)")
        try expectSameStream(out, as: input, folder: folder)
    }

    @Test(arguments: streams)
    func naluSendsToGStreamer(stream: Stream) throws {
        guard let gst = RTPPeers.tool("gst-launch-1.0") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture(stream.fixture)
        let (packets, _) = try dryRun(input, port: port, mtu: 500, sdp: folder.appendingPathComponent("dry.sdp").path, folder: folder)
        let out = folder.appendingPathComponent("out.\(stream.ffmpegFormat)").path
        let encoding = stream.codec == .h264 ? "H264" : "H265"
        // udpsrc ends after the packets sent (signals do not reach a child of the test runner).
        let receiver = try RTPPeers.Running(gst, [
            "-e", "-q", "udpsrc", "address=127.0.0.1", "port=\(port)", "num-buffers=\(packets)",
            "caps=application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)\(encoding),payload=(int)96",
            "!", "rtph\(stream.gstName)depay", "!", "video/x-h\(stream.gstName),stream-format=byte-stream,alignment=au",
            "!", "filesink", "location=\(out)",
        ], folder: folder, name: "gst")
        try RTPPeers.waitUntilBound(port: port)
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "127.0.0.1:\(port)", "--mtu", "500", "--realtime"],
                                    folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        let status = receiver.wait(seconds: 20)
        #expect(status == 0, "\(receiver.output)")
        try expectSameStream(out, as: input, folder: folder)
    }

    @Test(arguments: streams)
    func ffmpegSendsToNalu(stream: Stream) throws {
        guard let ffmpeg = RTPPeers.tool("ffmpeg") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture(stream.fixture)
        let sdp = folder.appendingPathComponent("f.sdp").path
        // ffmpeg writes the SDP as it starts sending: one frame first for the description.
        let dry = try RTPPeers.run(ffmpeg, ["-nostdin", "-y", "-v", "error", "-i", input, "-map", "0:v:0", "-c", "copy", "-frames:v", "1",
                                            "-f", "rtp", "-sdp_file", sdp, "rtp://127.0.0.1:\(port)"], folder: folder, name: "dry")
        #expect(dry.status == 0, "\(dry.output)")
        let out = folder.appendingPathComponent("out.\(stream.ffmpegFormat)").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "-o", out, "--idle", "2", "--wait", "20"],
                                            folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: port)
        let send = try RTPPeers.run(ffmpeg, ["-nostdin", "-v", "error", "-re", "-i", input, "-map", "0:v:0", "-c", "copy",
                                             "-f", "rtp", "rtp://127.0.0.1:\(port)"], folder: folder, name: "ffmpeg")
        #expect(send.status == 0, "\(send.output)")
        let status = receiver.wait(seconds: 15)
        #expect(status == 0, "\(receiver.output)")
        try expectSameStream(out, as: input, folder: folder)
    }

    @Test(arguments: streams, [false, true])
    func gstreamerSendsToNalu(stream: Stream, aggregates: Bool) throws {
        // rtph264pay's modes are none/zero-latency/max-stap, rtph265pay's none/zero-latency/max.
        let aggregate = aggregates ? (stream.codec == .h264 ? "max-stap" : "max") : "none"
        guard let gst = RTPPeers.tool("gst-launch-1.0") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture(stream.fixture)
        let sdp = folder.appendingPathComponent("in.sdp")
        try RTPPeers.writeSDP(codec: stream.codec, port: port, to: sdp)
        let out = folder.appendingPathComponent("out.mp4").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp.path, "-o", out, "--idle", "2", "--wait", "20"],
                                            folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: port)
        let send = try RTPPeers.run(gst, [
            "-q", "filesrc", "location=\(input)", "!", "qtdemux", "!", "h\(stream.gstName)parse", "!",
            "rtph\(stream.gstName)pay", "aggregate-mode=\(aggregate)", "config-interval=-1", "pt=96", "mtu=600", "!",
            "udpsink", "host=127.0.0.1", "port=\(port)",
        ], folder: folder, name: "gst")
        #expect(send.status == 0, "\(send.output)")
        let status = receiver.wait(seconds: 15)
        #expect(status == 0, "\(receiver.output)")
        try expectSameStream(out, as: input, folder: folder)
    }
}
