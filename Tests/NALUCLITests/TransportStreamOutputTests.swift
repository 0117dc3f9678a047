import Foundation
import Testing

/// `nalu convert --to ts` (issue 15): the transport stream decodes with FFmpeg to the source's
/// frames, its timestamps follow the picture order, and its structure (PAT/PMT and PCR
/// intervals, random access indicators, delimiters, continuity counters) is as the muxer says.
@Suite("convert --to ts")
struct TransportStreamOutputTests {
    /// Input fixture, extra arguments, the stream whose decode is the reference, codec name and
    /// stream type ffprobe reports, frames.
    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var arguments: [String] = []
        var reference: String
        var codec: String
        var streamType: String
        var testDescription: String { input }
    }

    static let cases: [Case] = [
        Case(input: "avc_high_bframes.h264", reference: "avc_high_bframes.h264", codec: "h264", streamType: "0x001b"),
        Case(input: "hevc_open_gop.h265", reference: "hevc_open_gop.h265", codec: "hevc", streamType: "0x0024"),
        Case(input: "mp4_avc_bframes.mp4", reference: "mp4_avc_bframes.mp4", codec: "h264", streamType: "0x001b"),
        Case(input: "mp4_hevc_bframes.mp4", reference: "mp4_hevc_bframes.mp4", codec: "hevc", streamType: "0x0024"),
        Case(input: "avc_high_bframes.lp", arguments: ["--extradata", CLIRunner.fixture("avc_high_bframes.avcC")],
             reference: "avc_high_bframes.h264", codec: "h264", streamType: "0x001b"),
        Case(input: "hevc_open_gop.lp", arguments: ["--extradata", CLIRunner.fixture("hevc_open_gop.hvcC")],
             reference: "hevc_open_gop.h265", codec: "hevc", streamType: "0x0024"),
    ]

    static let ffprobePath = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe", "/opt/homebrew/bin/ffprobe"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The MD5 of each decoded frame, in output order, and FFmpeg's complaints.
    /// - Parameter passthrough: every decoded frame, without FFmpeg's constant-rate output
    ///   dropping or repeating frames where the timestamps and the SPS's VUI rate disagree.
    static func frameHashes(_ path: String, passthrough: Bool = false) throws -> (hashes: [String], errors: String) {
        let ffmpeg = try #require(ffmpegPath)
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", path] + (passthrough ? ["-fps_mode", "passthrough"] : [])
                                    + ["-f", "framemd5", "-"])
        let hashes = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return (hashes, result.status == 0 ? result.stderr : "exit \(result.status): " + result.stderr)
    }

    /// ffprobe's CSV rows for `entries` of the video stream (`packet=pts,dts,flags` or `frame=pts`).
    static func probe(_ path: String, _ section: String, _ entries: String) throws -> [[String]] {
        let ffprobe = try #require(ffprobePath)
        let result = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", section, "-show_entries", entries, "-of", "csv=p=0", path])
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test(arguments: cases) func decodesToTheSourceFramesInPresentationOrder(_ item: Case) throws {
        let scratch = try Scratch()
        let output = scratch.file("out.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture(item.input)] + item.arguments + ["--to", "ts", "-o", output])
        #expect(run.status == 0)
        #expect(run.stderr == "")

        // FFmpeg decodes it cleanly to the source's pictures.
        let ours = try Self.frameHashes(output)
        let source = try Self.frameHashes(CLIRunner.fixture(item.reference))
        #expect(ours.errors == "")
        #expect(ours.hashes.count == 30)
        #expect(ours.hashes == source.hashes)

        // Packets in decoding order: one per access unit, DTS strictly increasing, DTS ≤ PTS,
        // keyframes where the source has them.
        let packets = try Self.probe(output, "-show_packets", "packet=pts,dts,flags")
        #expect(packets.count == 30)
        let dts = packets.compactMap { Int64($0[1]) }
        let pts = packets.compactMap { Int64($0[0]) }
        #expect(dts.count == 30 && pts.count == 30)
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(dts, pts).allSatisfy { $0 <= $1 })
        let sourceKeys = try Self.probe(CLIRunner.fixture(item.reference), "-show_packets", "packet=flags").map { $0[0].hasPrefix("K") }
        #expect(packets.map { $0[2].hasPrefix("K") } == sourceKeys)
        // Frames in presentation order: PTS strictly increasing, one frame a packet, 1/30 s apart.
        let frames = try Self.probe(output, "-show_frames", "frame=pts").compactMap { $0.first.flatMap { Int64($0) } }
        #expect(frames == (0..<30).map { 126_000 + Int64($0) * 3_000 })
        #expect(pts.sorted() == frames)

        let ffprobe = try #require(Self.ffprobePath)
        let stream = try runProgram(ffprobe, ["-v", "error", "-show_entries", "stream=codec_name,codec_tag,id", "-of", "csv=p=0", output])
        #expect(stream.stdout.split(separator: "\n").first == "\(item.codec),\(item.streamType),0x100")

        let parsed = try ParsedTransportStream(Data(contentsOf: URL(fileURLWithPath: output)), videoPID: 0x100)
        parsed.check(codec: item.codec)
        #expect(parsed.randomAccess == sourceKeys)
    }

    /// The issue's case (FFmpeg: "first pts and dts value must be set"): the open-GOP HEVC stream
    /// at 25 fps. PTS and DTS are exact: 1.4 s for the first picture shown, 1/25 s apart; the RASL
    /// pictures after each CRA present before it; decoding starts two frames (the stream's
    /// `sps_max_num_reorder_pics`) earlier.
    @Test func openGOPAt25fps() throws {
        let scratch = try Scratch()
        let output = scratch.file("open_gop.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("hevc_open_gop.h265"), "--fps", "25", "-o", output, "--verbose"])
        #expect(run.status == 0)
        #expect(run.stderr == "nalu: annexb hevc → MPEG-TS, 30 access units, 3 random access, 25/1 fps, first PTS 126000, DTS 118800, 199 packets, 15 PAT/PMT, 30 AUDs inserted\n")
        let packets = try Self.probe(output, "-show_packets", "packet=pts,dts")
        #expect(packets.compactMap { Int64($0[1]) } == (0..<30).map { 118_800 + Int64($0) * 3_600 })
        #expect(packets.compactMap { Int64($0[0]) }.sorted() == (0..<30).map { 126_000 + Int64($0) * 3_600 })
        // The CRA at decode index 9 presents after the RASL picture decoded after it.
        let cra = try #require(Int64(packets[9][0]))
        let rasl = try #require(Int64(packets[10][0]))
        #expect(rasl < cra)
        let (hashes, errors) = try Self.frameHashes(output)
        #expect(errors == "")
        #expect(hashes == (try Self.frameHashes(CLIRunner.fixture("hevc_open_gop.h265"))).hashes)
    }

    /// At 5 fps access units are 200 ms apart: as FFmpeg's muxer, the PCR goes with each
    /// access unit and PAT/PMT with each one that comes more than 60 ms after the last pair;
    /// no packets fill the gaps (issue 32 item 7).
    @Test func lowFrameRateRepeatsPCRAndTablesWithTheAccessUnits() throws {
        let scratch = try Scratch()
        let output = scratch.file("slow.ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.h264"), "--fps", "5", "-o", output])
        #expect(run.status == 0)
        let parsed = try ParsedTransportStream(Data(contentsOf: URL(fileURLWithPath: output)), videoPID: 0x100)
        parsed.check(codec: "h264", maxPCRGap: 18_000, maxTableGap: 18_000)
        // 20 pictures 18000 ticks apart: one PCR each, and PAT/PMT before each.
        #expect(parsed.pcrs.count == 20)
        #expect(parsed.tableTimes.count == 20)
        #expect(parsed.randomAccess.count == 20)
        // The SPS says 30 fps: FFmpeg's constant-rate output would drop a frame of the 5 fps
        // timestamps, so every decoded frame is compared.
        let (hashes, errors) = try Self.frameHashes(output, passthrough: true)
        #expect(errors == "")
        #expect(hashes.count == 20)
        #expect(hashes == (try Self.frameHashes(CLIRunner.fixture("avc_main.h264"), passthrough: true)).hashes)
    }

    /// `-o x.m2ts` writes 192-byte packets: each 188-byte packet after a `TP_extra_header` whose
    /// arrival time stamp is the PCR time (27 MHz) of its access unit, never decreasing. FFmpeg
    /// reads it as MPEG-TS and decodes the source's frames.
    @Test func m2tsArrivalTimeStamps() throws {
        let scratch = try Scratch()
        let output = scratch.file("out.m2ts")
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("hevc_open_gop.h265"), "-o", output])
        #expect(run.status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(bytes.count % 192 == 0)
        var stripped: [UInt8] = []
        var stamps: [Int64] = []
        for start in stride(from: 0, to: bytes.count, by: 192) {
            stamps.append(Int64(bytes[start]) << 24 | Int64(bytes[start + 1]) << 16 | Int64(bytes[start + 2]) << 8 | Int64(bytes[start + 3]))
            stripped += bytes[(start + 4)..<(start + 192)]
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
        let parsed = try ParsedTransportStream(Data(stripped), videoPID: 0x100)
        parsed.check(codec: "hevc")
        // The first packets (PAT, PMT, the first access unit) are stamped with the first PCR.
        #expect(stamps.first == (try #require(parsed.pcrs.first)) * 300)
        #expect(Set(stamps).count == parsed.pcrs.count)
        let ffprobe = try #require(Self.ffprobePath)
        #expect(try runProgram(ffprobe, ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", output]).stdout == "mpegts\n")
        let (hashes, errors) = try Self.frameHashes(output)
        #expect(errors == "")
        #expect(hashes == (try Self.frameHashes(CLIRunner.fixture("hevc_open_gop.h265"))).hashes)
    }

    /// `-o x.ts` picks MPEG-TS; options that contradict it are usage errors.
    @Test func extensionAndOptions() throws {
        let scratch = try Scratch()
        let run = try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.h264"), "-o", scratch.file("a.TS")])
        #expect(run.status == 0)
        let bytes = try scratch.read("a.TS")
        #expect(bytes.count % 188 == 0 && bytes.first == 0x47)
        #expect(try ffmpegDecode(scratch.file("a.TS")).frames == 20)
        for options in [["--aud", "strip"], ["--keep-parameter-sets"], ["--faststart"], ["--length-size", "4"]] {
            let refused = try CLIRunner.run(["convert", CLIRunner.fixture("avc_main.h264"), "--to", "ts", "-o", scratch.file("b.ts")] + options)
            #expect(refused.status == 64, "\(options)")
        }
        // The MP4's SPS and PPS go in band before each of its 3 keyframes; with
        // --parameter-sets first, before the first only.
        let every = try CLIRunner.run(["convert", CLIRunner.fixture("mp4_avc_bframes.mp4"), "--verbose", "-o", scratch.file("c.ts")])
        #expect(every.status == 0)
        #expect(every.stderr.hasSuffix(", 30 AUDs inserted, 6 parameter sets inserted\n"))
        let first = try CLIRunner.run(["convert", CLIRunner.fixture("mp4_avc_bframes.mp4"), "--parameter-sets", "first", "--verbose", "-o", scratch.file("d.ts")])
        #expect(first.status == 0)
        #expect(first.stderr.hasSuffix(", 30 AUDs inserted, 2 parameter sets inserted\n"))
    }
}

/// A transport stream read packet by packet, as the tests check it.
struct ParsedTransportStream {
    var packetCount = 0
    /// Whether each video PES (decoding order) had random_access_indicator set.
    var randomAccess: [Bool] = []
    /// Each video PES's first elementary stream bytes.
    var accessUnitStarts: [[UInt8]] = []
    /// PCR bases in order.
    var pcrs: [Int64] = []
    /// For each PAT, the first PCR at or after it.
    var tableTimes: [Int64] = []
    var firstPID: UInt16?
    var continuityErrors = 0
    var badPackets = 0

    init(_ data: Data, videoPID: UInt16) throws {
        let bytes = [UInt8](data)
        #expect(bytes.count % 188 == 0)
        var counters: [UInt16: UInt8] = [:]
        var tablesWaiting = 0
        for start in stride(from: 0, to: bytes.count - 187, by: 188) {
            let packet = bytes[start..<(start + 188)]
            let p = Array(packet)
            packetCount += 1
            if p[0] != 0x47 { badPackets += 1 }
            let pid = UInt16(p[1] & 0x1F) << 8 | UInt16(p[2])
            if firstPID == nil { firstPID = pid }
            let unitStart = p[1] & 0x40 != 0
            let control = p[3] >> 4 & 0x03
            let counter = p[3] & 0x0F
            if let last = counters[pid] {
                let expected = control & 0x01 != 0 ? (last + 1) & 0x0F : last
                if counter != expected { continuityErrors += 1 }
            }
            counters[pid] = counter
            var payload = 4
            var randomAccessFlag = false
            if control & 0x02 != 0 {
                let length = Int(p[4])
                if length > 0 {
                    let flags = p[5]
                    randomAccessFlag = flags & 0x40 != 0
                    if flags & 0x10 != 0 {
                        let base = Int64(p[6]) << 25 | Int64(p[7]) << 17 | Int64(p[8]) << 9 | Int64(p[9]) << 1 | Int64(p[10] >> 7)
                        pcrs.append(base)
                        for _ in 0..<tablesWaiting { tableTimes.append(base) }
                        tablesWaiting = 0
                    }
                }
                payload = 5 + length
            }
            if pid == 0 && unitStart { tablesWaiting += 1 }
            if pid == videoPID && unitStart && payload + 9 < 188 {
                randomAccess.append(randomAccessFlag)
                let headerLength = Int(p[payload + 8])
                let es = payload + 9 + headerLength
                accessUnitStarts.append(Array(p[es..<min(188, es + 6)]))
            }
        }
    }

    /// Packets whole, PAT first, PAT/PMT at most 100 ms apart and PCRs at most 40 ms apart (in
    /// PCR time), continuity counters unbroken, every access unit starting with a delimiter.
    func check(codec: String, maxPCRGap: Int64 = 3_600, maxTableGap: Int64 = 9_000) {
        #expect(badPackets == 0)
        #expect(firstPID == 0)
        #expect(continuityErrors == 0)
        #expect(!pcrs.isEmpty)
        #expect(zip(pcrs, pcrs.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 <= maxPCRGap })
        #expect(tableTimes.count >= 2)
        #expect(zip(tableTimes, tableTimes.dropFirst()).allSatisfy { $1 - $0 <= maxTableGap })
        let delimiter: [UInt8] = codec == "h264" ? [0, 0, 0, 1, 0x09] : [0, 0, 0, 1, 0x46, 0x01]
        #expect(accessUnitStarts.allSatisfy { Array($0.prefix(delimiter.count)) == delimiter })
    }
}
