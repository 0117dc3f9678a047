import Foundation
import Testing
import NALU
import NALUIO
import NALURTP

/// Decoding order numbers through the `nalu` command and a real peer: H.265 with
/// `--max-don-diff` (DONL/DOND) from `nalu rtp send` to `nalu rtp receive`, also after the
/// packets were interleaved within the window; H.264 `--packetization-mode 2` (STAP-B) to
/// GStreamer's rtph264depay. The slices received equal the file's byte for byte and decode to
/// the same frames (ffmpeg framemd5).
@Suite(.serialized) struct RTPDecodingOrderPeerTests {
    private func expectSameStream(_ received: String, as input: String, folder: URL) throws {
        let sent = try RTPPeers.slices(input)
        let got = try RTPPeers.slices(received)
        #expect(got.count == sent.count, "\(got.count) slices received of \(sent.count)")
        #expect(got == sent, "the slices received differ from those sent")
        let sentFrames = try RTPPeers.frameHashes(input, folder: folder)
        #expect(!sentFrames.isEmpty)
        #expect(try RTPPeers.frameHashes(received, folder: folder) == sentFrames, "decoded frames differ")
    }

    /// `nalu rtp send --max-don-diff 8`: the SDP says `sprop-max-don-diff=8`, the packets carry
    /// DONL (an rtpdump file), and `nalu rtp receive` gives back the stream; the same packets
    /// interleaved within the window (a seeded reordering, renumbered as an interleaving sender
    /// numbers them) give it back too, where the transmission order alone would not.
    @Test(arguments: [150, 1400])
    func hevcWithDONLThroughTheCommand(mtu: Int) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("mp4_hevc_bframes.mp4")
        let sdp = folder.appendingPathComponent("out.sdp").path
        let dump = folder.appendingPathComponent("sent.rtpdump").path
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--max-don-diff", "8", "--mtu", "\(mtu)", "--sdp", sdp, "--rtpdump", dump],
                                    folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        let description = try SessionDescription(parsing: String(contentsOfFile: sdp, encoding: .utf8))
        #expect(description.video.maxDonDiff == 8)
        #expect(try String(contentsOfFile: sdp, encoding: .utf8).contains("sprop-max-don-diff=8"))

        let out = folder.appendingPathComponent("out.h265").path
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", dump, "-o", out], folder: folder, name: "receive")
        #expect(receive.status == 0, "\(receive.output)")
        try expectSameStream(out, as: input, folder: folder)

        // The same packets interleaved within the window, written as an rtpdump file.
        var reader = try RTPDumpReader(source: try FileSource(path: dump))
        var packets: [RTPPacket] = []
        while let record = try reader.next() { packets.append(try RTPPacket(parsing: record.bytes)) }
        let (shuffled, distance) = try RTPDecodingOrderTests.interleave(packets, format: description.video.payloadFormat, window: 8, seed: 7)
        #expect(distance > 0 && distance <= 8)
        let shuffledDump = folder.appendingPathComponent("interleaved.rtpdump").path
        var writer = try RTPDumpWriter(sink: try FileSink(path: shuffledDump), address: "127.0.0.1", port: 5004)
        for (index, packet) in shuffled.enumerated() { try writer.append(packet.bytes, offsetMilliseconds: UInt32(index)) }
        try writer.sink.commit()
        let reordered = folder.appendingPathComponent("reordered.h265").path
        let again = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", shuffledDump, "-o", reordered],
                                     folder: folder, name: "receive-interleaved")
        #expect(again.status == 0, "\(again.output)")
        try expectSameStream(reordered, as: input, folder: folder)

        // With a window narrower than the interleaving the receiver reports what it cannot order
        // (exit 2), never writes it out of order silently.
        let narrowSDP = folder.appendingPathComponent("narrow.sdp").path
        try String(contentsOfFile: sdp, encoding: .utf8).replacingOccurrences(of: "sprop-max-don-diff=8", with: "sprop-max-don-diff=1")
            .write(toFile: narrowSDP, atomically: true, encoding: .utf8)
        let narrow = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", narrowSDP, "--rtpdump", shuffledDump, "-o",
                                                      folder.appendingPathComponent("narrow.h265").path], folder: folder, name: "receive-narrow")
        #expect(narrow.status == 2, "\(narrow.output)")
        #expect(narrow.output.contains("decoding order"), "\(narrow.output)")
    }

    /// `nalu rtp send --packetization-mode 2` → GStreamer's rtph264depay, which reads STAP-B
    /// (it skips the DON: the packets go in decoding order) but not FU-B: with an MTU no NAL unit
    /// of the stream exceeds, every packet is a STAP-B.
    @Test func h264InterleavedModeToGStreamer() throws {
        guard let gst = RTPPeers.tool("gst-launch-1.0") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let sdp = folder.appendingPathComponent("out.sdp").path
        let dump = folder.appendingPathComponent("dry.rtpdump").path
        let dry = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--packetization-mode", "2", "--mtu", "16000", "--sdp", sdp,
                                                   "--rtpdump", dump], folder: folder, name: "dry")
        #expect(dry.status == 0, "\(dry.output)")
        let text = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(text.contains("packetization-mode=2") && text.contains("sprop-interleaving-depth=0") && text.contains("sprop-deint-buf-req=0"))
        var reader = try RTPDumpReader(source: try FileSource(path: dump))
        var packets = 0
        while let record = try reader.next() {
            packets += 1
            let payload = try RTPPacket(parsing: record.bytes).payload
            #expect(AVCNALUnitHeader.payloadHeader(payload[0]).header.nalUnitType == .stapB)
        }
        // Our own receiver reads the dump back.
        let own = folder.appendingPathComponent("own.h264").path
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", dump, "-o", own], folder: folder, name: "receive")
        #expect(receive.status == 0, "\(receive.output)")
        try expectSameStream(own, as: input, folder: folder)

        let out = folder.appendingPathComponent("gst.h264").path
        let receiver = try RTPPeers.Running(gst, [
            "-e", "-q", "udpsrc", "address=127.0.0.1", "port=\(port)", "num-buffers=\(packets)",
            "caps=application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96",
            "!", "rtph264depay", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!", "filesink", "location=\(out)",
        ], folder: folder, name: "gst")
        try RTPPeers.waitUntilBound(port: port)
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--packetization-mode", "2", "--mtu", "16000",
                                                    "--to", "127.0.0.1:\(port)", "--realtime"], folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        #expect(receiver.wait(seconds: 20) == 0, "\(receiver.output)")
        try expectSameStream(out, as: input, folder: folder)
    }

    /// `--timing` on both commands: one line per access unit with its RTP timestamp, the same
    /// timestamps on both sides (an rtpdump replay here; `Scripts/bench-rtp.sh` measures latency
    /// with them over UDP).
    @Test func timingLogsNameEveryAccessUnit() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let sdp = folder.appendingPathComponent("out.sdp").path
        let dump = folder.appendingPathComponent("sent.rtpdump").path
        let sent = folder.appendingPathComponent("sent.jsonl").path
        let got = folder.appendingPathComponent("got.jsonl").path
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--sdp", sdp, "--rtpdump", dump, "--timing", sent], folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", dump, "-o",
                                                       folder.appendingPathComponent("out.h264").path, "--timing", got], folder: folder, name: "receive")
        #expect(receive.status == 0, "\(receive.output)")
        func timestamps(_ path: String) throws -> [Int] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int]
                #expect(object?["monotonic_ns"].map { $0 > 0 } == true)
                return try #require(object?["rtp_timestamp"])
            }
        }
        let sentTimestamps = try timestamps(sent)
        #expect(sentTimestamps.count == 30)
        #expect(try timestamps(got) == sentTimestamps)
    }
}
