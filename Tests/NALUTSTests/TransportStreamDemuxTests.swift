import Foundation
import Testing
import NALU
import NALUTS

/// A transport-stream fixture made by ffmpeg (Scripts/make-fixtures.sh, `make_ts`) with its
/// expected results: ffmpeg's own demux and ffprobe's packet times.
struct TSFixture: CustomStringConvertible, Sendable {
    let name: String
    let file: String
    let demux: String
    let packetSize: Int
    let streamType: UInt8
    /// ffmpeg's PIDs: video, audio; and the audio's stream_type (M2TS mode: 0x1011, 0x1100, 0x0F).
    let pids: [UInt16]

    var description: String { file }

    static let all = [
        TSFixture(name: "ts_avc_aac", file: "ts_avc_aac.ts", demux: "ts_avc_aac.demux.h264", packetSize: 188, streamType: 0x1B, pids: [0x100, 0x101]),
        TSFixture(name: "ts_hevc_aac", file: "ts_hevc_aac.ts", demux: "ts_hevc_aac.demux.h265", packetSize: 188, streamType: 0x24, pids: [0x100, 0x101]),
        TSFixture(name: "m2ts_avc_aac", file: "m2ts_avc_aac.m2ts", demux: "m2ts_avc_aac.demux.h264", packetSize: 192, streamType: 0x1B, pids: [0x1011, 0x1100]),
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    func bytes() throws -> [UInt8] { try Self.bytes(file) }
    func expected() throws -> [UInt8] { try Self.bytes(demux) }

    /// ffprobe's video packets in decoding order: (pts, dts).
    func packets() throws -> [(pts: Int64, dts: Int64)] {
        let text = String(decoding: try Self.bytes(name + ".tspackets.csv"), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let pts = Int64(fields[0]), let dts = Int64(fields[1]) else { return nil }
            return (pts, dts)
        }
    }
}

/// Reads every elementary-stream byte out of `reader`.
func drain<S: ByteSource>(_ reader: TransportStreamReader<S>, chunk: Int = 4096) throws -> [UInt8] {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return out }
        out += buffer[0..<count]
    }
}

/// Demuxes `bytes` with warnings collected.
final class Demuxed {
    private final class Log { var warnings: [TransportStreamWarning] = [] }
    private let log = Log()
    var warnings: [TransportStreamWarning] { log.warnings }
    let reader: TransportStreamReader<MemorySource>
    let output: [UInt8]

    init(_ bytes: [UInt8], packetSize: Int, pid: UInt16? = nil, chunkSize: Int? = nil) throws {
        reader = TransportStreamReader(MemorySource(bytes, chunkSize: chunkSize), packetSize: packetSize, pid: pid, chunkPackets: 16)
        let log = log
        reader.demuxer.onWarning = { log.warnings.append($0) }
        try reader.readProgram()
        output = try drain(reader, chunk: 1000)
    }
}

@Suite("Transport stream demultiplexing")
struct TransportStreamDemuxTests {
    @Test(arguments: TSFixture.all) func detectedByContent(fixture: TSFixture) throws {
        let bytes = try fixture.bytes()
        #expect(bytes.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0) } == fixture.packetSize)
        // An elementary stream is no transport stream.
        let elementary = try fixture.expected()
        #expect(elementary.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0) } == nil)
    }

    /// The payload of the video PID equals what `ffmpeg -i x.ts -map 0:v -c copy -f h264|hevc` writes.
    @Test(arguments: TSFixture.all) func elementaryStreamEqualsFFmpegDemux(fixture: TSFixture) throws {
        for chunk in [nil, 1, 777] as [Int?] {
            let demuxed = try Demuxed(try fixture.bytes(), packetSize: fixture.packetSize, chunkSize: chunk)
            #expect(demuxed.output == (try fixture.expected()))
            #expect(demuxed.warnings.isEmpty, "\(demuxed.warnings)")
            #expect(demuxed.reader.demuxer.video == ProgramElement(streamType: fixture.streamType, pid: fixture.pids[0]))
            #expect(demuxed.reader.demuxer.program?.elements.map(\.pid) == fixture.pids)
            #expect(demuxed.reader.demuxer.counts.pesPackets == (try fixture.packets()).count)
            #expect(demuxed.reader.bytesRead == Int64((try fixture.bytes()).count))
        }
    }

    /// PTS and DTS of each PES packet equal ffprobe's packet times.
    @Test(arguments: TSFixture.all) func timestampsEqualFFprobe(fixture: TSFixture) throws {
        let demuxed = try Demuxed(try fixture.bytes(), packetSize: fixture.packetSize)
        let stamps = demuxed.reader.demuxer.firstTimestamps
        let packets = try fixture.packets()
        #expect(packets.count == 30)
        #expect(stamps.map(\.presentation) == packets.map { Optional($0.pts) })
        #expect(stamps.map(\.effectiveDecoding) == packets.map { Optional($0.dts) })
    }

    /// A lost video packet: one continuity warning, the rest of the stream still comes out.
    @Test func droppedPacketIsAContinuityWarning() throws {
        var bytes = try TSFixture.all[0].bytes()
        let expected = try TSFixture.all[0].expected()
        // Packet 10 is a video packet in the middle of a PES packet (no adaptation field: 184 payload bytes).
        let packet = Array(bytes[1880..<2068])
        #expect(packet[1] & 0x1F == 0x01 && packet[2] == 0x00 && packet[1] & 0x40 == 0 && packet[3] >> 4 == 1)
        bytes.removeSubrange(1880..<2068)
        let demuxed = try Demuxed(bytes, packetSize: 188)
        // ffmpeg writes video PES packets with PES_packet_length 0 (unbounded): no length warning.
        #expect(demuxed.warnings.map(\.kind) == [.continuity])
        #expect(demuxed.warnings.first?.description == "PID 0x100: continuity_counter 8, expected 7 (1 packet lost?) at byte 1880")
        #expect(demuxed.warnings.first?.pid == 0x100)
        #expect(demuxed.warnings.first?.byteOffset == 1880)
        #expect(demuxed.reader.demuxer.counts.continuityErrors == 1)
        #expect(demuxed.output.count == expected.count - 184)
        #expect(Array(demuxed.output.suffix(20_000)) == Array(expected.suffix(20_000)))
    }

    /// Bytes between packets: sync is regained at the next run of sync bytes, nothing else lost.
    @Test(arguments: [0, 1, 5]) func garbageBetweenPacketsIsSkipped(extra: Int) throws {
        var bytes = try TSFixture.all[0].bytes()
        // A lone sync byte inside the garbage is no packet: the next one is not 188 bytes on.
        let garbage = [UInt8](repeating: 0xAB, count: 10) + [0x47] + [UInt8](repeating: 0xAB, count: 50 + extra)
        bytes.insert(contentsOf: garbage, at: 188 * 20)
        let demuxed = try Demuxed(bytes, packetSize: 188, chunkSize: 301)
        #expect(demuxed.warnings.map(\.kind) == [.syncLost])
        #expect(demuxed.warnings.first?.byteOffset == Int64(188 * 20))
        #expect(demuxed.reader.demuxer.counts.skippedBytes == Int64(garbage.count))
        #expect(demuxed.output == (try TSFixture.all[0].expected()))
    }

    /// A cut file: the last partial packet is reported, the whole packets before it are read.
    @Test func truncatedFinalPacket() throws {
        let bytes = Array(try TSFixture.all[2].bytes().dropLast(100))
        let demuxed = try Demuxed(bytes, packetSize: 192)
        #expect(demuxed.warnings.map(\.kind).contains(.truncatedPacket))
        #expect(demuxed.reader.bytesRead == Int64(bytes.count))
    }

    @Test func requestedPID() throws {
        let bytes = try TSFixture.all[1].bytes()
        #expect(try Demuxed(bytes, packetSize: 188, pid: 0x100).output == (try TSFixture.all[1].expected()))
        #expect {
            try Demuxed(bytes, packetSize: 188, pid: 0x101)
        } throws: { error in
            let error = error as? NALUError
            return error?.field == "--pid" && error?.code == .invalidValue
                && error?.detail == "PID 0x101 (stream_type 0x0F, AAC audio) is not H.264 (stream_type 0x1B) or H.265 (0x24) video"
        }
        #expect {
            try Demuxed(bytes, packetSize: 188, pid: 0x1234)
        } throws: { error in (error as? NALUError)?.field == "--pid" }
    }

    /// Inputs with sync bytes but no usable program: a typed error, no trap.
    @Test func noProgram() throws {
        var syncOnly = [UInt8](repeating: 0xFF, count: 188 * 50)
        for index in stride(from: 0, to: syncOnly.count, by: 188) { syncOnly[index] = 0x47 }
        #expect {
            try Demuxed(syncOnly, packetSize: 188)
        } throws: { error in
            let error = error as? NALUError
            return error?.code == .unrecognisedFormat && error?.field == "PMT"
        }
        // Only the audio PID's PMT entry survives: every video packet removed.
        let bytes = try TSFixture.all[0].bytes()
        var audioOnly: [UInt8] = []
        for index in stride(from: 0, to: bytes.count, by: 188) where !(bytes[index + 1] & 0x1F == 1 && bytes[index + 2] == 0) {
            audioOnly += bytes[index..<(index + 188)]
        }
        #expect(try Demuxed(audioOnly, packetSize: 188).output.isEmpty)
    }

    /// Every byte flipped in turn in the first packets: never a trap, and the counts stay bounded.
    @Test func corruptedHeadersNeverTrap() throws {
        let bytes = try TSFixture.all[0].bytes()
        for index in 0..<(188 * 6) {
            var copy = bytes
            copy[index] ^= 0xFF
            if let demuxed = try? Demuxed(copy, packetSize: 188) {
                #expect(demuxed.output.count <= (try TSFixture.all[0].expected()).count + 188)
            }
        }
    }
}

@Suite("PES header and PSI sections")
struct TransportStreamSyntaxTests {
    /// The first PES header of ts_avc_aac.ts: PTS 132000, DTS 126000 (ffprobe), 19 bytes.
    @Test func pesHeaderTimestamps() throws {
        let bytes = try TSFixture.all[0].bytes()
        // Packet 3 has an 8-byte adaptation field (length 7): its PES header starts at 4 + 1 + 7.
        let header = Array(bytes[(564 + 12)..<(564 + 188)])
        let outcome = header.withUnsafeBytes { PESHeader.parse($0) }
        guard case .header(let pes) = outcome else { Issue.record("\(outcome)"); return }
        #expect(pes.streamID == 0xE0)
        #expect(pes.presentationTimestamp == 132_000)
        #expect(pes.decodingTimestamp == 126_000)
        #expect(pes.headerLength == 19)
        #expect(header.prefix(5).withUnsafeBytes { PESHeader.parse($0) } == .needMore(6))
        #expect(header.prefix(12).withUnsafeBytes { PESHeader.parse($0) } == .needMore(19))
        var bad = header
        bad[2] = 2
        guard case .malformed = bad.withUnsafeBytes({ PESHeader.parse($0) }) else { Issue.record("start code"); return }
    }

    /// ffmpeg's PAT section split over two payloads, then whole, then past its limit.
    @Test func sectionAcrossPackets() throws {
        let section: [UInt8] = [0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0x2A, 0xB1, 0x04, 0xB2]
        var assembler = PSISectionAssembler()
        var sections: [[UInt8]] = []
        let first = [0] + section.prefix(7)
        let second = Array(section.dropFirst(7)) + [UInt8](repeating: 0xFF, count: 20)
        first.withUnsafeBytes { _ = assembler.push($0, payloadUnitStart: true) { sections.append(Array($0)) } }
        #expect(sections.isEmpty)
        second.withUnsafeBytes { _ = assembler.push($0, payloadUnitStart: false) { sections.append(Array($0)) } }
        #expect(sections == [section])
        let table = try section.withUnsafeBytes { try ProgramAssociationTable(section: $0) }
        #expect(table?.programs.map(\.number) == [1])
        #expect(table?.programs.map(\.pid) == [0x1000])
        // Two sections in one payload, after a pointer_field that skips 2 bytes.
        sections = []
        let twice = [2, 0xAA, 0xBB] + section + section + [0xFF]
        twice.withUnsafeBytes { _ = assembler.push($0, payloadUnitStart: true) { sections.append(Array($0)) } }
        #expect(sections == [section, section])
        let long: [UInt8] = [0, 0x02, 0xBF, 0xFF]
        let problem = long.withUnsafeBytes { assembler.push($0, payloadUnitStart: true) { _ in } }
        #expect(problem == .sectionLength(0xFFF))
        let pointer: [UInt8] = [200, 0]
        #expect(pointer.withUnsafeBytes { assembler.push($0, payloadUnitStart: true) { _ in } } == .pointerField(200))
    }
}
