import Foundation
import Testing
import NALU
import NALURTP

/// RTCP compound packets (RFC 3550 6, RFC 4585 6.1, RFC 5104 4.3.1): real packets from ffmpeg
/// and GStreamer (Tests/Fixtures/rtcp, Scripts/make-rtcp-fixtures.sh) read, compared with an
/// independent reading of their bytes (Scripts/rtcp-capture.py, Python struct); ours written
/// and read by the same script; malformed packets refused with the field and offset named.
@Suite struct RTCPPacketTests {
    /// Scripts/rtcp-capture.py's reading of `bytes`: its packets as JSON objects.
    static func pythonDecode(_ bytes: [UInt8]) throws -> [[String: Any]] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-rtcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.bin")
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [RTPTestSupport.repositoryRoot.appendingPathComponent("Scripts/rtcp-capture.py").path, "decode", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["packets"] as? [[String: Any]])
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: RTPTestSupport.fixture("rtcp/\(name)"))))
    }

    static func int(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    /// Every report block against the script's.
    static func expectSameBlocks(_ blocks: [RTCPReportBlock], _ python: Any?) {
        let theirs = (python as? [[String: Any]]) ?? []
        #expect(blocks.count == theirs.count)
        for (block, other) in zip(blocks, theirs) {
            #expect(Int64(block.ssrc) == int(other["ssrc"]))
            #expect(Int64(block.fractionLost) == int(other["fraction"]))
            #expect(Int64(block.cumulativeLost) == int(other["lost"]))
            #expect(Int64(block.extendedHighestSequenceNumber) == int(other["ext"]))
            #expect(Int64(block.jitter) == int(other["jitter"]))
            #expect(Int64(block.lastSenderReport) == int(other["lsr"]))
            #expect(Int64(block.delaySinceLastSenderReport) == int(other["dlsr"]))
        }
    }

    /// Our reading of `bytes` against the script's, packet by packet.
    static func expectSameReading(_ bytes: [UInt8]) throws {
        let compound = try RTCPCompoundPacket(parsing: bytes)
        let python = try pythonDecode(bytes)
        #expect(compound.packets.count == python.count)
        for (packet, other) in zip(compound.packets, python) {
            switch packet {
            case .senderReport(let report):
                #expect(other["type"] as? String == "SR")
                #expect(Int64(report.ssrc) == int(other["ssrc"]))
                #expect(Int64(report.rtpTimestamp) == int(other["rtp"]))
                #expect(Int64(report.packetCount) == int(other["packets"]))
                #expect(Int64(report.octetCount) == int(other["octets"]))
                let ntp = Double(report.ntpTimestamp.seconds) + Double(report.ntpTimestamp.fraction) / 4_294_967_296
                #expect(abs(ntp - ((other["ntp"] as? Double) ?? 0)) < 1e-6)
                expectSameBlocks(report.reports, other["reports"])
            case .receiverReport(let report):
                #expect(other["type"] as? String == "RR")
                #expect(Int64(report.ssrc) == int(other["ssrc"]))
                expectSameBlocks(report.reports, other["reports"])
            case .sourceDescription(let description):
                #expect(other["type"] as? String == "SDES")
                let ssrc = try #require(description.chunks.first?.ssrc)
                #expect(Int64(ssrc) == int(other["ssrc"]))
                #expect(description.canonicalName(of: ssrc) == other["cname"] as? String)
            case .goodbye(let goodbye):
                #expect(other["type"] as? String == "BYE")
                #expect(goodbye.sources.map { Int64($0) } == (other["sources"] as? [NSNumber])?.map(\.int64Value))
            case .feedback(let feedback):
                #expect(Int64(feedback.senderSSRC) == int(other["sender"]))
                #expect(Int64(feedback.mediaSSRC) == int(other["media"]))
                switch feedback.message {
                case .pictureLossIndication: #expect(other["type"] as? String == "PLI")
                case .fullIntraRequest(let entries):
                    #expect(other["type"] as? String == "FIR")
                    #expect(entries.map { [Int64($0.ssrc), Int64($0.sequenceNumber)] } == (other["fir"] as? [[NSNumber]])?.map { $0.map(\.int64Value) })
                default: Issue.record("unexpected feedback \(feedback)")
                }
            case .other:
                Issue.record("unexpected packet \(packet)")
            }
        }
    }

    @Test(arguments: ["ffmpeg-sr.bin", "gstreamer-sr-sdes-bye.bin", "gstreamer-rr-sdes.bin"])
    func readsRealPacketsAsAnIndependentReadingDoes(name: String) throws {
        let bytes = try Self.fixture(name)
        try Self.expectSameReading(bytes)
        // Written back: the same bytes (none of them has padding).
        #expect(try RTCPCompoundPacket(parsing: bytes).bytes == bytes)
    }

    @Test func writesWhatAnIndependentReadingReads() throws {
        let block = RTCPReportBlock(ssrc: 0xDEAD_BEEF, fractionLost: 64, cumulativeLost: -3, extendedHighestSequenceNumber: 0x0001_0005,
                                    jitter: 1234, lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 65_536)
        let packets: [RTCPPacket] = [
            .senderReport(RTCPSenderReport(ssrc: 7, ntpTimestamp: NTPTimestamp(seconds: 3_900_000_000, fraction: 1 << 31), rtpTimestamp: 90_000,
                                           packetCount: 41, octetCount: 40_000, reports: [block])),
            .receiverReport(RTCPReceiverReport(ssrc: 8, reports: [block, block])),
            .sourceDescription(RTCPSourceDescription(ssrc: 8, canonicalName: "nalu-abc")),
            .feedback(RTCPFeedback(senderSSRC: 8, mediaSSRC: 7, message: .pictureLossIndication)),
            .feedback(RTCPFeedback(senderSSRC: 8, mediaSSRC: 0, message: .fullIntraRequest([RTCPFullIntraRequest(ssrc: 7, sequenceNumber: 200)]))),
            .goodbye(RTCPGoodbye(sources: [8, 9], reason: "done")),
        ]
        let bytes = RTCPCompoundPacket(packets: packets).bytes
        try Self.expectSameReading(bytes)
        #expect(try RTCPCompoundPacket(parsing: bytes).packets == packets)
        // The cumulative loss is 24-bit two's complement: -3 is FF FF FD.
        #expect(Array(bytes[33..<36]) == [0xFF, 0xFF, 0xFD])
    }

    @Test func cumulativeLossIsClampedTo24Bits() throws {
        let block = RTCPReportBlock(ssrc: 1, fractionLost: 0, cumulativeLost: 9_000_000, extendedHighestSequenceNumber: 0, jitter: 0,
                                    lastSenderReport: 0, delaySinceLastSenderReport: 0)
        #expect(block.cumulativeLost == 0x7F_FFFF)
        let bytes = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 2, reports: [block]))]).bytes
        #expect(try RTCPCompoundPacket(parsing: bytes).reportBlocks.first?.cumulativeLost == 0x7F_FFFF)
    }

    @Test func paddingIsRemovedAndChecked() throws {
        // An RR without blocks, padded with 4 octets (P set, last octet 4).
        let padded: [UInt8] = [0xA0, 201, 0, 2, 0, 0, 0, 9, 0, 0, 0, 4]
        #expect(try RTCPCompoundPacket(parsing: padded).packets == [.receiverReport(RTCPReceiverReport(ssrc: 9))])
        var bad = padded
        bad[11] = 3
        #expect(throws: NALUError.self) { try RTCPCompoundPacket(parsing: bad) }
        bad[11] = 12
        let error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: bad) }
        #expect(error.field == "RTCP padding" && error.byteOffset == 11)
    }

    @Test func malformedPacketsNameTheFieldAndOffset() throws {
        let sr = try Self.fixture("ffmpeg-sr.bin")
        // The length says one more word than arrived.
        var long = sr
        long[3] += 1
        var error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: long) }
        #expect(error.field == "RTCP length" && error.byteOffset == 2 && error.code == .truncated)
        // A second packet cut short after the first.
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: sr + [0x80, 201]) }
        #expect(error.field == "RTCP header" && error.byteOffset == Int64(sr.count))
        // Version 1.
        var version = sr
        version[0] = 0x40
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: version) }
        #expect(error.field == "RTCP version" && error.byteOffset == 0)
        // 31 report blocks announced in an SR with none.
        var count = sr
        count[0] = 0x80 | 31
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: count) }
        #expect(error.field == "RTCP report count" && error.byteOffset == 28)
        // A PLI with an FCI; a FIR whose FCI is not whole entries.
        let pli: [UInt8] = [0x81, 206, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0]
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: pli) }
        #expect(error.field == "PLI FCI" && error.byteOffset == 12)
        let fir: [UInt8] = [0x84, 206, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2]
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: fir) }
        #expect(error.field == "FIR FCI" && error.byteOffset == 12)
        // An SDES item longer than its packet.
        let sdes: [UInt8] = [0x81, 202, 0, 2, 0, 0, 0, 1, 1, 200, 0x61, 0]
        error = try #require(throws: NALUError.self) { try RTCPCompoundPacket(parsing: sdes) }
        #expect(error.field == "SDES item 1" && error.byteOffset == 10)
    }

    @Test func appAndUnknownPacketsAreKeptNotInterpreted() throws {
        let app: [UInt8] = [0x81, 204, 0, 2, 0, 0, 0, 5, 0x6E, 0x61, 0x6C, 0x75]
        let compound = try RTCPCompoundPacket(parsing: try Self.fixture("ffmpeg-sr.bin") + app)
        #expect(compound.packets.count == 2)
        #expect(compound.packets[1] == .other(RTCPOtherPacket(packetType: 204, count: 1, body: Array(app[4...]))))
        #expect(compound.bytes.suffix(app.count).elementsEqual(app))
    }
}
