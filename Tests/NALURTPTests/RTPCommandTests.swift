import Foundation
import Testing
import NALU
import NALUIO
import NALURTP

/// `nalu rtp send|receive` through rtpdump files (deterministic, no network): the stream
/// comes back slice for slice and frame for frame, an MP4 keeps the times ffprobe reports for
/// the input, loss exits 2 and is never written unmarked, and the errors exit with their
/// sysexits status.
@Suite(.serialized) struct RTPCommandTests {
    static let fixtures = ["mp4_avc_bframes.mp4", "mp4_hevc_bframes.mp4", "avc_baseline.h264"]

    private func send(_ input: String, folder: URL, extra: [String] = []) throws -> (sdp: String, dump: String) {
        let sdp = folder.appendingPathComponent("out.sdp").path
        let dump = folder.appendingPathComponent("out.rtpdump").path
        let result = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--sdp", sdp, "--rtpdump", dump, "--mtu", "300"] + extra,
                                      folder: folder, name: "send")
        #expect(result.status == 0, "\(result.output)")
        return (sdp, dump)
    }

    @Test(arguments: fixtures)
    func replaysAnRtpdumpIntoTheSameStream(fixture: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture(fixture)
        let (sdp, dump) = try send(input, folder: folder, extra: fixture.hasSuffix(".h264") ? ["--fps", "30"] : [])
        let out = folder.appendingPathComponent(fixture.hasPrefix("hevc") ? "out.h265" : "out.h264").path
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", dump, "-o", out], folder: folder, name: "receive")
        #expect(receive.status == 0, "\(receive.output)")
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(input))
        #expect(try RTPPeers.frameHashes(out, folder: folder) == RTPPeers.frameHashes(input, folder: folder))
    }

    /// MP4 output keeps every picture's presentation time (ffprobe's packet pts, from the first)
    /// and decodes to the same frames.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_bframes.mp4", "mp4_avc_negcts.mp4"])
    func mp4OutputKeepsTheTimes(fixture: String) throws {
        guard let ffprobe = RTPPeers.tool("ffprobe") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture(fixture)
        let (sdp, dump) = try send(input, folder: folder)
        let out = folder.appendingPathComponent("out.mp4").path
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", dump, "-o", out], folder: folder, name: "receive")
        #expect(receive.status == 0, "\(receive.output)")
        func presentationTimes(_ path: String) throws -> [Int] {
            let result = try RTPPeers.run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path],
                                          folder: folder, name: "ffprobe")
            let times = result.output.split(separator: "\n").compactMap { Double($0) }.map { Int(($0 * 1000).rounded()) }
            return times.map { $0 - (times.first ?? 0) }
        }
        let sent = try presentationTimes(input)
        #expect(sent.count > 10)
        #expect(try presentationTimes(out) == sent)
        #expect(try RTPPeers.frameHashes(out, folder: folder) == RTPPeers.frameHashes(input, folder: folder))
    }

    /// Packets dropped from the rtpdump: the receive exits 2 and says how many were lost; with
    /// --damaged drop no slice written is other than sent; with --damaged mark the cut-short
    /// NAL units carry forbidden_zero_bit.
    @Test func lossExitsTwoAndIsNeverWrittenUnmarked() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let (sdp, dump) = try send(input, folder: folder)
        var reader = try RTPDumpReader(source: try FileSource(path: dump))
        var records: [RTPDumpRecord] = []
        while let record = try reader.next() { records.append(record) }
        // Drop FU middle fragments and whole packets: every 7th packet after the 5th.
        let kept = records.enumerated().filter { $0.offset < 5 || $0.offset % 7 != 0 }.map(\.element)
        #expect(kept.count < records.count)
        let lossy = folder.appendingPathComponent("lossy.rtpdump").path
        var writer = try RTPDumpWriter(sink: try FileSink(path: lossy), address: "127.0.0.1", port: 5004)
        for record in kept { try writer.append(record.bytes, offsetMilliseconds: record.offsetMilliseconds) }
        try writer.sink.commit()
        let sent = try RTPPeers.slices(input)
        for mode in ["drop", "mark"] {
            let out = folder.appendingPathComponent("\(mode).h264").path
            let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", lossy, "-o", out, "--damaged", mode],
                                           folder: folder, name: "receive-\(mode)")
            #expect(receive.status == 2, "\(receive.output)")
            #expect(receive.output.contains("nalu: error: \(out): written, but"))
            #expect(receive.output.contains("packets lost"))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
            let units = splitAnnexB(bytes)
            let marked = units.filter { ForbiddenZeroBit.isSet(in: $0) }
            if mode == "drop" {
                #expect(marked.isEmpty)
                let vcl = units.filter { (try? NALUnitHeader($0, codec: .h264))?.isVCL == true }
                #expect(!vcl.isEmpty && vcl.count < sent.count)
                #expect(vcl.allSatisfy { sent.contains($0) }, "a slice written that was not sent whole")
            } else {
                #expect(!marked.isEmpty)
                // Every unmarked slice is one sent whole.
                let unmarked = units.filter { !ForbiddenZeroBit.isSet(in: $0) && (try? NALUnitHeader($0, codec: .h264))?.isVCL == true }
                #expect(unmarked.allSatisfy { sent.contains($0) })
            }
        }
    }

    /// SIGINT ends a reception with the file written and playable (exit 130): packets sent over
    /// loopback by the library's sender, the receive stopped while waiting for more.
    @Test func interruptFinishesTheFile() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let port = try RTPPeers.freePort()
        let (codec, timescale, sets, units) = try RTPTestSupport.accessUnits("mp4_avc_bframes.mp4")
        let sdp = folder.appendingPathComponent("in.sdp")
        try SessionDescription(address: "127.0.0.1", video: RTPVideoDescription(codec: codec, port: port, payloadType: 96, parameterSets: sets))
            .text.write(to: sdp, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out.mp4").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp.path, "-o", out, "--idle", "60"], folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: port)
        var sender = try RTPStreamSender(codec: codec, timescale: timescale, parameterSets: sets)
        let socket = try UDPSocket()
        for unit in units {
            for packet in try sender.packets(for: unit, pts: unit.pts ?? 0) {
                try socket.send(packet.bytes, to: UDPEndpoint(address: "127.0.0.1", port: port))
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        Thread.sleep(forTimeInterval: 1)
        #expect(receiver.process.isRunning, "the receive waits for more packets")
        let status = receiver.wait(seconds: 20, interrupt: true)
        #expect(status == 130, "\(receiver.output)")
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(input))
        #expect(try RTPPeers.frameHashes(out, folder: folder) == RTPPeers.frameHashes(input, folder: folder))
    }

    /// A picture of the first GOP lost: the decoder resumes at the next keyframe, and from there
    /// the frames decode as the input's (mp4_avc_bframes.mp4: keyframes at 0, 12 and 24 of 30,
    /// closed GOPs).
    @Test func decodingResumesAtTheNextKeyframe() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let (sdp, dump) = try send(input, folder: folder)
        var reader = try RTPDumpReader(source: try FileSource(path: dump))
        var records: [RTPDumpRecord] = []
        while let record = try reader.next() { records.append(record) }
        // The packets of the fourth access unit in decoding order (after three marker bits).
        var markers = 0
        var kept: [RTPDumpRecord] = []
        for record in records {
            let marker = try RTPPacket(parsing: record.bytes).marker
            if markers != 3 { kept.append(record) }
            if marker { markers += 1 }
        }
        #expect(kept.count < records.count)
        let lossy = folder.appendingPathComponent("lossy.rtpdump").path
        var writer = try RTPDumpWriter(sink: try FileSink(path: lossy), address: "127.0.0.1", port: 5004)
        for record in kept { try writer.append(record.bytes, offsetMilliseconds: record.offsetMilliseconds) }
        try writer.sink.commit()
        let out = folder.appendingPathComponent("out.h264").path
        let receive = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "--rtpdump", lossy, "-o", out], folder: folder, name: "receive")
        #expect(receive.status == 2, "\(receive.output)")
        #expect(receive.output.contains("1 access unit dropped"), "\(receive.output)")
        let sent = try RTPPeers.frameHashes(input, folder: folder)
        let got = try RTPPeers.frameHashes(out, folder: folder)
        #expect(sent.count == 30 && got.count < sent.count)
        #expect(Array(got.suffix(18)) == Array(sent.suffix(18)), "the two GOPs after the loss decode as the input's")
    }

    @Test func usageAndInputErrors() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = RTPTestSupport.fixture("avc_baseline.mp4")
        let noDestination = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input], folder: folder, name: "a")
        #expect(noDestination.status == 64 && noDestination.output.contains("nalu: error:"))
        let badAddress = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "localhost"], folder: folder, name: "b")
        #expect(badAddress.status == 64)
        let missing = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", folder.appendingPathComponent("none.sdp").path, "-o",
                                                       folder.appendingPathComponent("o.h264").path], folder: folder, name: "c")
        #expect(missing.status == 66)
        let audioOnly = folder.appendingPathComponent("audio.sdp")
        try "v=0\nc=IN IP4 127.0.0.1\nm=audio 5004 RTP/AVP 0\n".write(to: audioOnly, atomically: true, encoding: .utf8)
        let noVideo = try RTPPeers.run(RTPPeers.nalu, ["rtp", "receive", "--sdp", audioOnly.path, "-o", folder.appendingPathComponent("o.h264").path],
                                       folder: folder, name: "d")
        #expect(noVideo.status == 65 && noVideo.output.contains("m=video"))
        // An input with an audio track: not sent silently.
        let tracks = RTPTestSupport.fixture("tracks_avc_aac.mp4")
        let dump = folder.appendingPathComponent("t.rtpdump").path
        let refused = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", tracks, "--rtpdump", dump], folder: folder, name: "e")
        #expect(refused.status == 2 && refused.output.contains("--video-only"))
        #expect(!FileManager.default.fileExists(atPath: dump))
        let videoOnly = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", tracks, "--rtpdump", dump, "--video-only"], folder: folder, name: "f")
        #expect(videoOnly.status == 0, "\(videoOnly.output)")
        // A raw stream needs its frame rate.
        let raw = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", RTPTestSupport.fixture("avc_baseline.h264"), "--rtpdump", dump],
                                   folder: folder, name: "g")
        #expect(raw.status == 64 && raw.output.contains("--fps"))
    }

    private func splitAnnexB(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var starts: [Int] = []
        var index = 0
        while index + 3 <= bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        for (position, start) in starts.enumerated() {
            var end = position + 1 < starts.count ? starts[position + 1] - 3 : bytes.count
            while end > start, bytes[end - 1] == 0 { end -= 1 }
            if end > start { units.append(Array(bytes[start..<end])) }
        }
        return units
    }
}
