import Foundation
import Testing

/// Issue 32 item 5: transport streams whose continuity counters, program map or clock do what
/// real streams do. The inputs are ffmpeg's TS of avc_main.mp4 rewritten packet by packet by
/// Scripts/make-ts-damage.py; `ts_damage_base.demux.h264` is ffmpeg's demux of the unmodified TS.
@Suite struct TransportStreamDamageTests {
    static var base: Data { get throws { try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("ts_damage_base.demux.h264"))) } }

    static func container(_ name: String) throws -> [String: Any] {
        let info = try CLIRunner.run(["info", "--json", CLIRunner.fixture(name)])
        #expect(info.status == 0, "\(info.stderr)")
        return try #require(try jsonObject(info.stdout)["container"] as? [String: Any])
    }

    static func converted(_ name: String) throws -> (CLIRunner.Result, Data) {
        let scratch = try Scratch()
        let result = try CLIRunner.run(["convert", CLIRunner.fixture(name), "--to", "annexb", "-o", scratch.file("out.h264")])
        return (result, try scratch.read("out.h264"))
    }

    /// A video PID whose continuity_counter never changes: every packet after the first is a
    /// discontinuity (none repeats the one before, so none is a duplicate, ISO/IEC 13818-1
    /// 2.4.3.3). All the payload is kept — ffmpeg's demux byte for byte (ffmpeg decodes its 20
    /// pictures) — and each discontinuity is counted and reported. (Before: 165 of 18,285 bytes,
    /// exit 0, no warning.)
    @Test func constantContinuityCounterKeepsThePayload() throws {
        let (result, bytes) = try Self.converted("ts_cc_constant.ts")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(bytes == (try Self.base))
        #expect(result.stderr.contains("PID 0x100: continuity_counter 0 repeated by a packet that is no duplicate of the last (expected 1); its payload is kept"))
        let container = try Self.container("ts_cc_constant.ts")
        // Every video packet after the first: 18,285 bytes of PES in 130 packets.
        let videoPackets = try Self.packets("ts_cc_constant.ts").filter { $0.pid == 0x100 }.count
        #expect(container["continuity_errors"] as? Int == videoPackets - 1)
    }

    /// Packets sent twice byte for byte are the duplicates 2.4.3.3 allows: dropped, counted, no
    /// continuity error.
    @Test func identicalRepeatsAreDuplicates() throws {
        let (result, bytes) = try Self.converted("ts_cc_duplicate.ts")
        #expect(result.status == 0 && result.stderr.contains("warning") == false, "\(result.stderr)")
        #expect(bytes == (try Self.base))
        let packets = try Self.packets("ts_cc_duplicate.ts")
        let repeats = zip(packets, packets.dropFirst()).filter { $0.bytes == $1.bytes }.count
        #expect(repeats > 0)
        let container = try Self.container("ts_cc_duplicate.ts")
        #expect(container["duplicate_packets"] as? Int == repeats)
        #expect(container["continuity_errors"] as? Int == 0)
    }

    /// A PMT of version 1 moves the video from PID 0x100 to 0x200 after 10 pictures: followed,
    /// with a warning; all 20 pictures come out (ffmpeg's demux of the unmodified stream).
    @Test func movedVideoPIDIsFollowed() throws {
        let (result, bytes) = try Self.converted("ts_pmt_move.ts")
        #expect(result.status == 0)
        #expect(bytes == (try Self.base))
        #expect(result.stderr.contains("moves the video from PID 0x100 (stream_type 0x1B, H.264 video) to PID 0x200; followed"), "\(result.stderr)")
        let container = try Self.container("ts_pmt_move.ts")
        #expect(container["pid"] as? Int == 0x200)
        #expect(container["pes_packets"] as? Int == 20)
    }

    /// Every PTS, DTS and PCR moved so that the 33-bit clock wraps after the 6th picture: the
    /// 0.67 s clip lasts 0.67 s (not 2^33 ticks, "26.5 h"), and the times the demuxer hands out
    /// increase past 2^33.
    @Test func wrappingClockIsUnwrapped() throws {
        let wrapped = try Self.container("ts_pts_wrap.ts")
        let plain = try Self.container("ts_cc_duplicate.ts")
        #expect(wrapped["duration"] as? Int == 60_000)
        #expect(wrapped["duration"] as? Int == plain["duration"] as? Int)
        let keyframes = try CLIRunner.run(["keyframes", "--json", CLIRunner.fixture("ts_pts_wrap.ts")])
        #expect(keyframes.status == 0)
        // One JSON object per line.
        let list = try keyframes.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let dts = list.compactMap { $0["dts"] as? Int }
        #expect(dts.count == 2)
        // The first IDR decodes before the wrap, the second (10 pictures later) after it.
        #expect(dts.first.map { $0 < 1 << 33 } == true)
        #expect(dts.last.map { $0 > 1 << 33 } == true)
        #expect(dts.last.flatMap { last in dts.first.map { last - $0 } } == 10 * 3_000)
    }

    /// The sync bytes of packets 0, 10 and 12 overwritten: still a transport stream (ffprobe
    /// says mpegts too), the damage reported, the other pictures read.
    @Test func damagedStartIsStillATransportStream() throws {
        let info = try CLIRunner.run(["info", CLIRunner.fixture("ts_damaged_start.ts")])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.hasPrefix("container:     MPEG-TS (188-byte packets)\n"), "\(info.stdout)")
        #expect(info.stderr.contains("no sync_byte 0x47 where a packet should start"))
        let container = try Self.container("ts_damaged_start.ts")
        #expect(container["pes_packets"] as? Int == 20)
        #expect(container["skipped_bytes"] as? Int == 4 * 188)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe") {
            let probe = Process()
            let pipe = Pipe()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            probe.arguments = ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", CLIRunner.fixture("ts_damaged_start.ts")]
            probe.standardOutput = pipe
            try probe.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            probe.waitUntilExit()
            #expect(String(decoding: output, as: UTF8.self) == "mpegts\n")
        }
    }

    /// The 188-byte packets of a fixture: PID and bytes.
    static func packets(_ name: String) throws -> [(pid: Int, bytes: ArraySlice<UInt8>)] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture(name))))
        return stride(from: 0, to: bytes.count - 187, by: 188).map { start in
            (Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2]), bytes[start..<(start + 188)])
        }
    }
}
