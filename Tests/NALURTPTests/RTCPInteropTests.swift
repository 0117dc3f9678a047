import Foundation
import Testing
import NALU
import NALUMedia
import NALURTP

/// RTCP (RFC 3550 6, RFC 4585, RFC 5104) against real peers on 127.0.0.1: ffmpeg's and
/// GStreamer rtpbin's sender reports read (wall-clock times of the access units), our receiver
/// reports read by rtpbin (its statistics), our SRs and BYE read by ffmpeg, PLIs and the
/// cumulative loss through a seeded loss relay checked by an independent reading of the bytes
/// (Scripts/rtcp-capture.py, Python struct), and `nalu record` reading the RTSP server's SRs.
@Suite(.serialized) struct RTCPInteropTests {
    static let capture = RTPTestSupport.repositoryRoot.appendingPathComponent("Scripts/rtcp-capture.py").path
    static let gstSender = RTPTestSupport.repositoryRoot.appendingPathComponent("Scripts/gst-rtcp-sender.py").path
    /// 8 s, 240 frames at 30 fps with B-frames (Scripts/make-rtcp-fixtures.sh): longer than the
    /// first report interval.
    static let longStream = RTPTestSupport.fixture("rtcp_avc_8s.mp4")

    static var hasGStreamerPython: Bool {
        (try? RTPPeers.run("/usr/bin/python3", ["-c", "import gi; gi.require_version('Gst', '1.0')"],
                           folder: FileManager.default.temporaryDirectory, name: "gi-check-\(UUID().uuidString)", seconds: 20).status) == 0
    }

    /// The presentation times of `path`'s video in nanoseconds, in presentation order.
    static func presentationTimes(_ path: String) throws -> [Int64] {
        let reader = try MediaReader(path: path, options: MediaReaderOptions(readsOtherTracks: false))
        let timescale = Int64(try #require(reader.timescale))
        var times: [Int64] = []
        while let unit = try reader.nextAccessUnit() { times.append(try #require(unit.pts) * 1_000_000_000 / timescale) }
        return times.sorted()
    }

    /// A number before `label` in `text` ("3 PLI" → 3).
    static func count(_ label: String, in text: String) -> Int? {
        guard let range = text.range(of: " " + label) else { return nil }
        return Int(text[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    @Test func ffmpegSenderReportsGiveTheAccessUnitsWallClockTimes() throws {
        guard let ffmpeg = RTPPeers.tool("ffmpeg") else { return }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let socket = try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: port))
        let control = RTCPReceiverChannel(socket: try UDPSocket(bindingTo: UDPEndpoint(address: "127.0.0.1", port: port + 1)))
        var receiver = RTPReceiver(options: RTPReceiverOptions(format: RTPPayloadFormat(codec: .h264)))
        let sender = try RTPPeers.Running(ffmpeg, ["-nostdin", "-v", "error", "-re", "-i", input, "-map", "0:v:0", "-c", "copy",
                                                  "-f", "rtp", "rtp://127.0.0.1:\(port)"], folder: folder, name: "ffmpeg")
        defer { sender.wait(seconds: 10) }
        var units: [(unit: RTPAccessUnit, arrival: Int64)] = []
        _ = try RTPReception.receive(from: socket, into: &receiver, limits: RTPReceptionLimits(idle: 2_000_000_000, wait: 20_000_000_000),
                                     control: control) { events in
            for case .accessUnit(let unit) in events { units.append((unit, NTPTimestamp.now().unixNanoseconds)) }
        }
        #expect(control.session.counts.senderReports >= 1, "ffmpeg's SR was read")
        let times = try Self.presentationTimes(input)
        #expect(units.count == times.count)
        // ffmpeg sends its first SR before its first packet: every access unit has a wall-clock time.
        let walls = units.compactMap { $0.unit.wallClock?.unixNanoseconds }
        #expect(walls.count == units.count)
        // In presentation order the wall-clock times are spaced as the file's presentation times (± 1 ms).
        let sorted = walls.sorted()
        for index in sorted.indices.dropFirst() where index < times.count {
            let spacing = sorted[index] - sorted[index - 1]
            let expected = times[index] - times[index - 1]
            #expect(abs(spacing - expected) <= 1_000_000, "access unit \(index): \(spacing) ns apart, the file says \(expected)")
        }
        // Sent in real time (-re): each access unit arrives near its wall-clock time, the offset
        // varying by less than the reordering delay of the B-frames plus scheduling (300 ms).
        let offsets = units.compactMap { item in item.unit.wallClock.map { item.arrival - $0.unixNanoseconds } }
        let spread = (offsets.max() ?? 0) - (offsets.min() ?? 0)
        #expect(spread < 300_000_000, "arrival − wall clock varies by \(spread) ns")
        #expect(abs(offsets.first ?? .max) < 2_000_000_000, "the SR's NTP time is the real time")
    }

    @Test(.enabled(if: hasGStreamerPython)) func gstreamerRtpbinReadsOurReceiverReports() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try RTPPeers.freePort()
        let sdp = folder.appendingPathComponent("in.sdp")
        try RTPPeers.writeSDP(codec: .h264, port: port, to: sdp)
        let out = folder.appendingPathComponent("out.mp4").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp.path, "-o", out, "--idle", "2", "--wait", "20",
                                                            "--verbose"], folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: port + 1)
        let sender = try RTPPeers.run("/usr/bin/python3", [Self.gstSender, Self.longStream, "127.0.0.1", String(port), "30"],
                                      folder: folder, name: "gst", seconds: 40)
        let status = receiver.wait(seconds: 15)
        #expect(status == 0, "\(receiver.output)")
        #expect((Self.count("sender reports read", in: receiver.output) ?? 0) >= 1, "\(receiver.output)")
        // rtpbin's statistics: our source (not internal) with a report block on its own SSRC.
        let line = try #require(sender.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(sender.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let sources = try #require(json["sources"] as? [[String: Any]])
        let own = try #require(sources.first { $0["internal"] as? Bool == true })
        let ours = try #require(sources.first { $0["internal"] as? Bool == false && $0["have-rb"] as? Bool == true }, "\(sources)")
        #expect((ours["rb-ssrc"] as? NSNumber)?.int64Value == (own["ssrc"] as? NSNumber)?.int64Value)
        #expect((ours["rb-packetslost"] as? NSNumber)?.int64Value == 0)
        #expect((ours["rb-fractionlost"] as? NSNumber)?.int64Value == 0)
        #expect(((ours["rb-exthighestseq"] as? NSNumber)?.int64Value ?? 0) > 0)
        // The LSR echoes one of rtpbin's SRs: it computed a round trip.
        #expect(((ours["rb-lsr"] as? NSNumber)?.int64Value ?? 0) != 0)
    }

    @Test func ffmpegReadsOurSenderReportsAndEndsAtOurBye() throws {
        guard let ffmpeg = RTPPeers.tool("ffmpeg") else { return }
        for rtcp in [true, false] {
            let folder = try RTPPeers.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let port = try RTPPeers.freePort()
            let input = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
            let sdp = folder.appendingPathComponent("out.sdp").path
            let dump = folder.appendingPathComponent("dry.rtpdump").path
            _ = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "127.0.0.1:\(port)", "--sdp", sdp, "--rtpdump", dump, "--no-rtcp"],
                                 folder: folder, name: "dry")
            let out = folder.appendingPathComponent("out.h264").path
            let receiver = try RTPPeers.Running(ffmpeg, ["-nostdin", "-v", "warning", "-protocol_whitelist", "file,udp,rtp", "-i", sdp,
                                                         "-c", "copy", "-f", "h264", out], folder: folder, name: "ffmpeg")
            try RTPPeers.waitUntilBound(port: port)
            let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", input, "--to", "127.0.0.1:\(port)", "--realtime"] + (rtcp ? [] : ["--no-rtcp"]),
                                        folder: folder, name: "send")
            #expect(send.status == 0, "\(send.output)")
            let ended = Date()
            // ffmpeg's RTP demuxer ends at the BYE of every stream (libavformat rtsp.c): within
            // a second with our RTCP; without it, it waits until stopped.
            while receiver.process.isRunning && Date().timeIntervalSince(ended) < 3 { Thread.sleep(forTimeInterval: 0.05) }
            let endedByItself = !receiver.process.isRunning
            let status = receiver.wait(seconds: 0)
            #expect(endedByItself == rtcp, "RTCP \(rtcp): ffmpeg ended by itself: \(endedByItself)")
            if rtcp {
                #expect(status == 0, "\(receiver.output)")
                #expect(!receiver.output.lowercased().contains("rtcp"), "\(receiver.output)")
                #expect(try RTPPeers.slices(out) == RTPPeers.slices(input))
            }
        }
    }

    /// PLI by default; FIR (RFC 5104) when the SDP offers `a=rtcp-fb:96 ccm fir` only.
    @Test(arguments: ["PLI", "FIR"])
    func lossRelayKeyframeRequestsAndCumulativeLostMatchTheDrops(request: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receivePort = try RTPPeers.freePort()
        var relayPort = try RTPPeers.freePort()
        while relayPort == receivePort { relayPort = try RTPPeers.freePort() }
        let sdp = folder.appendingPathComponent("in.sdp")
        try RTPPeers.writeSDP(codec: .h264, port: receivePort, to: sdp)
        if request == "FIR" { try (String(contentsOf: sdp, encoding: .utf8) + "a=rtcp-fb:96 ccm fir\r\n").write(to: sdp, atomically: true, encoding: .utf8) }
        let relay = try RTPPeers.Running("/usr/bin/python3", [Self.capture, "relay", String(relayPort), String(receivePort), "7", "2", "40"],
                                         folder: folder, name: "relay")
        defer { relay.wait(seconds: 0) }
        let out = folder.appendingPathComponent("out.mp4").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp.path, "-o", out, "--idle", "3", "--wait", "20",
                                                            "--verbose"], folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: receivePort + 1)
        try RTPPeers.waitUntilBound(port: relayPort + 1)
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", Self.longStream, "--to", "127.0.0.1:\(relayPort)", "--realtime", "--verbose"],
                                    folder: folder, name: "send", seconds: 40)
        #expect(send.status == 0, "\(send.output)")
        // Packets were lost: exit 2, the file written.
        #expect(receiver.wait(seconds: 15) == 2, "\(receiver.output)")
        _ = relay.wait(seconds: 10)
        let line = try #require(relay.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(relay.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let dropped = try #require((json["droppedBeforeLast"] as? NSNumber)?.intValue)
        #expect(dropped > 0, "the relay dropped packets")
        let toSender = try #require(json["toSender"] as? [[[String: Any]]])
        // The receiver's last RR (with its BYE): the cumulative loss is what the relay dropped.
        let last = try #require(toSender.last)
        #expect(last.contains { $0["type"] as? String == "BYE" })
        let block = try #require((last.first { $0["type"] as? String == "RR" }?["reports"] as? [[String: Any]])?.first)
        #expect((block["lost"] as? NSNumber)?.intValue == dropped, "RR cumulative lost \(block) vs \(dropped) dropped")
        // A PLI (FIR) after each gap, unless one went less than 200 ms before; the sender counted every one.
        let plis = toSender.flatMap { $0 }.filter { $0["type"] as? String == request }.count
        let gaps = try #require(Self.count("gaps", in: receiver.output), "\(receiver.output)")
        let suppressed = try #require(Self.count("requests within", in: receiver.output.replacingOccurrences(of: "(", with: " ")))
        #expect(plis > 0)
        #expect(Self.count(request, in: receiver.output) == plis, "\(receiver.output)")
        #expect(plis + suppressed == gaps, "\(plis) \(request)s + \(suppressed) not sent vs \(gaps) gaps")
        #expect(Self.count(request, in: send.output) == plis, "\(send.output)")
        // The RRs echo our SRs: a round trip through the relay on loopback, under a second.
        let roundTrip = try #require(Self.count("µs", in: send.output), "\(send.output)")
        #expect(roundTrip >= 0 && roundTrip < 1_000_000)
        if request == "FIR" {
            // RFC 5104 4.3.1.2: the command sequence number grows by one per new request.
            let numbers = toSender.flatMap { $0 }.compactMap { ($0["fir"] as? [[NSNumber]])?.first?[1].intValue }
            #expect(numbers == Array(1...max(1, numbers.count)), "\(numbers)")
        }
    }

    @Test(.enabled(if: RTSPRecordTests.available), arguments: ["udp", "tcp"])
    func recordReadsTheServerSenderReportsAndEndsAtItsBye(transport: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try RTSPRecordTests.startServer(Self.longStream, codec: "h264", auth: "none", folder: folder)
        defer { server.wait(seconds: 0) }
        let out = folder.appendingPathComponent("recorded.mp4").path
        let record = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://127.0.0.1:\(port)/test", "-o", out, "--transport", transport,
                                                      "--wait", "15", "--verbose"], folder: folder, name: "record", seconds: 40)
        #expect(record.status == 0, "\(record.output)")
        #expect((Self.count("sender reports read", in: record.output) ?? 0) >= 1, "\(record.output)")
        #expect((Self.count("receiver reports sent", in: record.output) ?? 0) >= 1, "\(record.output)")
        // Over UDP the RTCP BYE on client_port+1 ends the recording (not 5 s without a packet).
        #expect(record.output.contains(transport == "udp" ? "ended by goodbye" : "ended by endOfFile"), "\(record.output)")
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(Self.longStream))
    }
}
