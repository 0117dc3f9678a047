import Foundation
import Testing
import NALU
import NALURTP

/// RFC 3640 AAC-hbr packetization (``RTPAACPacketizer``) and depacketization
/// (``RTPAACDepacketizer``, ``RTPAACReceiver``) on the AAC frames of a real stream
/// (`aac_lc_stereo.adts`, made by ffmpeg in Scripts/make-audio-fixtures.sh; its frame count
/// checked against ffprobe's).
struct RTPAACTests {
    /// The raw AAC frames of an ADTS file (ISO/IEC 14496-3 1.A.2.2: `frame_length` 13 bits at
    /// bit 30, a 7-byte header or 9 with the CRC).
    static func adtsFrames(_ name: String) throws -> [[UInt8]] {
        try adtsFrames(path: RTPTestSupport.fixture(name))
    }

    static func adtsFrames(path: String) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var frames: [[UInt8]] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            try #require(bytes[offset] == 0xFF && bytes[offset + 1] & 0xF0 == 0xF0, "ADTS sync at \(offset)")
            let length = Int(bytes[offset + 3] & 3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5]) >> 5
            let header = bytes[offset + 1] & 1 == 1 ? 7 : 9
            try #require(length > header && offset + length <= bytes.count)
            frames.append(Array(bytes[(offset + header)..<(offset + length)]))
            offset += length
        }
        return frames
    }

    static func ffprobePackets(_ path: String) throws -> Int? {
        guard let ffprobe = RTPPeers.tool("ffprobe") else { return nil }
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try RTPPeers.run(ffprobe, ["-v", "error", "-count_packets", "-select_streams", "a:0", "-show_entries", "stream=nb_read_packets",
                                                "-of", "csv=p=0", path], folder: folder, name: "ffprobe")
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static let format = RTPAACPayloadFormat.hbr(clockRate: 44_100)

    static func packetize(_ frames: [[UInt8]], mtu: Int, perPacket: Int = 4, start: Int64 = 0) throws -> [RTPPacket] {
        var packetizer = try RTPAACPacketizer(format: format, options: RTPAACPacketizerOptions(mtu: mtu, maxAccessUnitsPerPacket: perPacket))
        var packets: [RTPPacket] = []
        for (index, frame) in frames.enumerated() {
            packets += try packetizer.push(frame, timestamp: packetizer.timestamp(ticks: start + Int64(index) * 1024))
        }
        return packets + packetizer.flush()
    }

    static func receive(_ packets: [RTPPacket]) -> (units: [RTPAACAccessUnit], receiver: RTPAACReceiver) {
        var receiver = RTPAACReceiver(format: format)
        var units: [RTPAACAccessUnit] = []
        for (index, packet) in packets.enumerated() {
            for case .accessUnit(let unit) in receiver.receive(packet, arrival: Int64(index) * 1_000_000) { units.append(unit) }
        }
        for case .accessUnit(let unit) in receiver.finish() { units.append(unit) }
        return (units, receiver)
    }

    @Test func frameCountIsFFprobes() throws {
        let frames = try Self.adtsFrames("aac_lc_stereo.adts")
        let probed = try Self.ffprobePackets(RTPTestSupport.fixture("aac_lc_stereo.adts"))
        if let probed { #expect(frames.count == probed) }
        #expect(frames.count > 20)
    }

    @Test(arguments: [(1400, 4), (1400, 1), (200, 4), (60, 4)])
    func roundTripIsByteExact(mtu: Int, perPacket: Int) throws {
        let frames = try Self.adtsFrames("aac_lc_stereo.adts")
        // A start near the 32-bit wrap: the timestamps unfold across it.
        let start = Int64(UInt32.max) - 20 * 1024
        let packets = try Self.packetize(frames, mtu: mtu, perPacket: perPacket, start: start)
        #expect(packets.allSatisfy { $0.bytes.count <= mtu })
        let (units, receiver) = Self.receive(packets)
        #expect(units.map(\.bytes) == frames)
        #expect(units.map(\.time) == frames.indices.map { start + Int64($0) * 1024 })
        #expect(receiver.statistics.isLossless)
        #expect(receiver.statistics.accessUnits == frames.count)
        let largest = frames.map(\.count).max() ?? 0
        if mtu - 16 < largest {
            // Fragmented AUs: marker on the last fragment only, every fragment with the AU's timestamp.
            let fragments = packets.filter { !$0.marker }
            #expect(!fragments.isEmpty)
            for fragment in fragments {
                let next = try #require(packets.first { $0.sequenceNumber == fragment.sequenceNumber &+ 1 })
                #expect(next.timestamp == fragment.timestamp)
            }
        } else {
            #expect(packets.allSatisfy { $0.marker })
            // Several AUs per packet while they fit.
            if perPacket > 1 { #expect(packets.count < frames.count) } else { #expect(packets.count == frames.count) }
        }
    }

    /// The AU Header Section as RFC 3640 3.3.6 lays it out for AAC-hbr, byte for byte: two AUs
    /// of 300 and 5 bytes: AU-headers-length 32, then (300 << 3 | 0), (5 << 3 | 0).
    @Test func auHeaderSectionLayout() throws {
        var packetizer = try RTPAACPacketizer(format: Self.format)
        #expect(try packetizer.push([UInt8](repeating: 1, count: 300), timestamp: 0).isEmpty)
        #expect(try packetizer.push([UInt8](repeating: 2, count: 5), timestamp: 1024).isEmpty)
        let packet = try #require(packetizer.flush().first)
        #expect(Array(packet.payload.prefix(6)) == [0x00, 0x20, 0x09, 0x60, 0x00, 0x28])
        #expect(packet.payload.count == 6 + 305)
        // A timestamp not 1024 after the last starts a new packet.
        #expect(try packetizer.push([1], timestamp: 5000).isEmpty)
        #expect(try packetizer.push([2], timestamp: 7000).count == 1)
        #expect(throws: NALUError.self) { try packetizer.push([UInt8](repeating: 0, count: 8192), timestamp: 0) }
    }

    /// A lost fragment drops its AU (never a partial one), counted; the AUs around it come whole.
    @Test func lostFragmentDropsTheAccessUnit() throws {
        let frames = try Self.adtsFrames("aac_lc_stereo.adts")
        // 44 bytes of AU per packet: every AU in three fragments or more.
        #expect(frames.allSatisfy { $0.count > 88 })
        let packets = try Self.packetize(frames, mtu: 60)
        // The second fragment of the first fragmented AU, and a first fragment later on.
        let firstFragment = try #require(packets.firstIndex { !$0.marker })
        let laterStart = try #require(packets.indices.first { $0 > firstFragment + 10 && !packets[$0].marker && packets[$0 - 1].marker })
        var kept = packets
        kept.remove(at: laterStart)
        kept.remove(at: firstFragment + 1)
        let (units, receiver) = Self.receive(kept)
        #expect(receiver.statistics.lost == 2)
        #expect(receiver.statistics.gaps == 2)
        #expect(receiver.statistics.droppedAccessUnits == 2)
        #expect(units.count == frames.count - 2)
        // Every AU passed on is one of the source's, whole, at its own time.
        for unit in units {
            let index = Int((unit.time - 0) / 1024)
            #expect(frames[index] == unit.bytes)
        }
    }

    /// Malformed AU Header Sections are typed errors naming the field and offset; the receiver
    /// counts them and goes on.
    @Test func malformedPayloads() throws {
        var depacketizer = RTPAACDepacketizer(format: Self.format)
        func packet(_ payload: [UInt8], marker: Bool = true) -> RTPPacket {
            RTPPacket(marker: marker, payloadType: 97, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: payload)
        }
        let cases: [([UInt8], String)] = [
            ([0x00], "AU-headers-length"),
            ([0x00, 0x08, 0x00], "AU-headers-length"),  // 8 bits: less than one header
            ([0x00, 0x10, 0x00], "AU-headers-length"),  // past the payload
            ([0x00, 0x11, 0x00, 0x10, 0x00, 1, 2], "AU-headers-length"),  // 17 bits: not 16 + n·16
            ([0x00, 0x10, 0x00, 0x11, 1, 2], "AU-Index"),  // AU-Index 1: interleaving
            ([0x00, 0x10, 0x00, 0x10, 1, 2, 3], "AU-size"),  // 2 bytes said, 3 there
            ([0x00, 0x10, 0x00, 0x00, 1], "AU-size"),  // 0
        ]
        for (payload, field) in cases {
            #expect {
                _ = try depacketizer.push(packet(payload), lostBefore: 0)
            } throws: { error in
                (error as? NALUError)?.field == field
            }
        }
        #expect(depacketizer.malformedPackets == cases.count)
        #expect(depacketizer.interleavedPackets == 1)
        // A fragment whose marker says it ends the AU but holds less: dropped, never partial.
        #expect(throws: NALUError.self) { try depacketizer.push(packet([0x00, 0x10, 0x00, 0x40, 1, 2, 3]), lostBefore: 0) }
        #expect(depacketizer.accessUnits == 0)
    }

    @Test func payloadFormatFromTheSDP() throws {
        let text = """
        v=0\r
        c=IN IP4 127.0.0.1\r
        m=video 5004 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        m=audio 5006 RTP/AVP 97\r
        a=rtpmap:97 MPEG4-GENERIC/48000/2\r
        a=fmtp:97 streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190\r

        """
        let sdp = try SessionDescription(parsing: text)
        let audio = try #require(sdp.audio)
        let format = try RTPAACPayloadFormat(description: audio)
        #expect(format == .hbr(clockRate: 48_000))
        // 960-sample frames (frameLengthFlag), and constantDuration winning over it.
        var short = audio
        short.audioSpecificConfig = [0x11, 0x94]
        #expect(try RTPAACPayloadFormat(description: short).accessUnitDuration == 960)
        short.constantDuration = 1024
        #expect(try RTPAACPayloadFormat(description: short).accessUnitDuration == 1024)
        // Refused: another mode, AU-header fields not read.
        for (replacement, field) in [("mode=AAC-hbr", "mode=CELP-cbr"), ("sizelength=13", "sizelength=13;ctsdeltalength=16")] {
            let other = try #require(try SessionDescription(parsing: text.replacingOccurrences(of: replacement, with: field)).audio)
            #expect(throws: NALUError.self) { try RTPAACPayloadFormat(description: other) }
            // The description still writes back what it read.
            let written = try SessionDescription(parsing: text.replacingOccurrences(of: replacement, with: field)).text
            #expect(try SessionDescription(parsing: written).audio == other)
        }
    }
}
