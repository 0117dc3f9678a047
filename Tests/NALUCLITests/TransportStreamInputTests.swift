import Foundation
import Testing

/// MPEG-TS input for every subcommand (issue 15, item 4): the fixtures are ffmpeg's mpegts
/// muxer output (Scripts/make-fixtures.sh, `make_ts`), with ffmpeg's own demux and ffprobe's
/// packet times beside them.
@Suite struct TransportStreamInputTests {
    /// (input, ffmpeg's `-map 0:v -c copy -f h264|hevc`, packet size, video PID).
    static let fixtures: [(String, String, Int, Int)] = [
        ("ts_avc_aac.ts", "ts_avc_aac.demux.h264", 188, 0x100),
        ("ts_hevc_aac.ts", "ts_hevc_aac.demux.h265", 188, 0x100),
        ("m2ts_avc_aac.m2ts", "m2ts_avc_aac.demux.h264", 192, 0x1011),
    ]
    static let names = fixtures.map(\.0)

    static func fixture(_ name: String) throws -> (String, String, Int, Int) {
        try #require(fixtures.first { $0.0 == name })
    }

    /// ffprobe's video packets: [pts, dts, key].
    static func packets(_ name: String) throws -> [[Int]] {
        let base = String(name.prefix { $0 != "." })
        let text = try String(contentsOfFile: CLIRunner.fixture(base + ".tspackets.csv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let pts = Int(fields[0]), let dts = Int(fields[1]) else { return nil }
            return [pts, dts, fields[2].hasPrefix("K") ? 1 : 0]
        }
    }

    /// `convert --to annexb` writes what ffmpeg's demux writes, byte for byte, from the file and from a pipe.
    @Test(arguments: names) func annexBEqualsFFmpegDemux(name: String) throws {
        let (input, demux, _, _) = try Self.fixture(name)
        let expected = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture(demux)))
        let scratch = try Scratch()
        // The AAC stream cannot go into Annex-B: the video is written, and the exit status says
        // the audio was not carried (2) unless --no-audio asks for that.
        let result = try CLIRunner.run(["convert", CLIRunner.fixture(input), "--to", "annexb", "-o", scratch.file("out")])
        // (The M2TS fixture's audio is a private PES stream, stream_type 0x06: not audio nalu
        // reads, so not left out by --no-audio but by --no-other-tracks; a loss either way.)
        let privatePES = name.hasSuffix(".m2ts")
        #expect(result.status == 2)
        #expect(result.stderr.contains(privatePES ? "(stream_type 0x06, private PES) not carried" : "(stream_type 0x0F, AAC audio) not carried"))
        #expect(try scratch.read("out") == expected)
        let piped = try MP4InputTests.runPiped(CLIRunner.fixture(input), ["convert", "--no-audio", "--no-other-tracks", "--to", "annexb", "-o", "-"])
        #expect(piped.status == 0)
        #expect(piped.stdout == expected)
    }

    /// `info --json`: the container as MPEG-TS, the stream, and the elementary stream's facts as
    /// for ffmpeg's demux.
    @Test(arguments: names) func info(name: String) throws {
        let (input, demux, packetSize, pid) = try Self.fixture(name)
        let result = try CLIRunner.run(["info", "--json", CLIRunner.fixture(input)])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let object = try jsonObject(result.stdout)
        let container = try #require(object["container"] as? [String: Any])
        let packets = try Self.packets(name)
        #expect(container["format"] as? String == "mpegts")
        #expect(container["packet_size"] as? Int == packetSize)
        #expect(container["pid"] as? Int == pid)
        #expect(container["stream_type"] as? Int == (name.contains("hevc") ? 0x24 : 0x1B))
        #expect(container["pes_packets"] as? Int == packets.count)
        #expect(container["first_pts"] as? Int == packets.map { $0[0] }.min())
        #expect(container["frame_rate"] as? String == "30/1")
        #expect(container["duration"] as? Int == 90_000)
        #expect(container["continuity_errors"] as? Int == 0)
        #expect(container["warnings"] as? Int == 0)
        #expect((container["other_streams"] as? [Any])?.count == 1)
        #expect(object["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: CLIRunner.fixture(input))[.size] as? Int))
        let elementary = try jsonObject(try CLIRunner.run(["info", "--json", CLIRunner.fixture(demux)]).stdout)
        for key in ["codec", "profile", "level", "width", "height", "access_units", "keyframes", "nal_units", "picture_types", "nal_type_counts"] {
            if let counts = object[key] as? [String: Int] {
                #expect(counts == elementary[key] as? [String: Int], "\(key)")
            } else {
                #expect("\(object[key] ?? "nil")" == "\(elementary[key] ?? "nil")", "\(key)")
            }
        }
    }

    /// `nals` lists the NAL units of ffmpeg's demux at the same offsets (offsets are in the
    /// elementary stream); `extradata` makes the same record.
    @Test(arguments: names) func nalsAndExtradata(name: String) throws {
        let (input, demux, _, _) = try Self.fixture(name)
        let ours = try CLIRunner.run(["nals", "--json", CLIRunner.fixture(input)])
        let theirs = try CLIRunner.run(["nals", "--json", CLIRunner.fixture(demux)])
        #expect(ours.status == 0)
        #expect(ours.stdout.split(separator: "\n").count > 30)
        #expect(ours.stdout == theirs.stdout)
        let record = try CLIRunner.run(["extradata", CLIRunner.fixture(input)])
        #expect(record.status == 0)
        #expect(record.stdoutBytes == (try CLIRunner.run(["extradata", CLIRunner.fixture(demux)])).stdoutBytes)
        #expect(record.stdoutBytes.count > 20)
    }

    /// `keyframes --json`: each keyframe's PTS/DTS is ffprobe's for the packets it flags as key.
    @Test(arguments: names) func keyframeTimes(name: String) throws {
        let result = try CLIRunner.run(["keyframes", "--json", CLIRunner.fixture(name)])
        #expect(result.status == 0)
        let ours = try result.stdout.split(separator: "\n").map { line in
            let object = try jsonObject(String(line))
            return [try #require(object["pts"] as? Int), try #require(object["dts"] as? Int)]
        }
        let key = try Self.packets(name).filter { $0[2] == 1 }.map { [$0[0], $0[1]] }
        #expect(ours.count == 3)
        #expect(ours == key)
    }

    /// `convert --to mp4`: 30 frames at the 30 fps the DTS say, decoded by ffmpeg without error.
    @Test(arguments: names) func toMP4(name: String) throws {
        let scratch = try Scratch()
        // (The M2TS fixture's AAC is in a private PES stream, stream_type 0x06: --no-other-tracks leaves it out.)
        let result = try CLIRunner.run(["convert", CLIRunner.fixture(name), "--to", "mp4", "--no-audio", "--no-other-tracks", "-o", scratch.file("out.mp4"), "--verbose"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("30 samples"))
        #expect(result.stderr.contains("30/1 fps"))
        let decoded = try ffmpegDecode(scratch.file("out.mp4"))
        #expect(decoded.frames == 30)
        #expect(decoded.errors == "")
    }

    /// Told by content: a TS named .h264 is still read as MPEG-TS.
    @Test func detectedWithWrongExtension() throws {
        let scratch = try Scratch()
        try scratch.write("clip.h264", try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("m2ts_avc_aac.m2ts"))))
        let result = try CLIRunner.run(["info", scratch.file("clip.h264")])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("container:     MPEG-TS (192-byte packets, M2TS)\n"))
    }

    /// A lost packet: a warning on standard error, exit 0, the rest of the stream converted.
    @Test func droppedPacketWarns() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("ts_avc_aac.ts"))))
        bytes.removeSubrange(1880..<2068)
        let scratch = try Scratch()
        try scratch.write("lossy.ts", Data(bytes))
        let converted = try CLIRunner.run(["convert", scratch.file("lossy.ts"), "--to", "annexb", "--no-audio", "-o", scratch.file("out.h264")])
        #expect(converted.status == 0)
        #expect(converted.stderr.contains("nalu: warning: \(scratch.file("lossy.ts")): PID 0x100: continuity_counter 8, expected 7 (1 packet lost?) at byte 1880\n"))
        let expected = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("ts_avc_aac.demux.h264")))
        #expect(try scratch.read("out.h264").count == expected.count - 184)
        let info = try CLIRunner.run(["info", "--json", scratch.file("lossy.ts")])
        #expect(info.status == 0)
        let container = try #require(try jsonObject(info.stdout)["container"] as? [String: Any])
        #expect(container["continuity_errors"] as? Int == 1)
    }

    /// `--pid`: the video PID in decimal or hex reads; an audio PID, an absent PID, or a PID for an
    /// input that is no transport stream are usage errors naming the option.
    @Test func pidOption() throws {
        let path = CLIRunner.fixture("ts_hevc_aac.ts")
        #expect(try CLIRunner.run(["info", path, "--pid", "256"]).status == 0)
        #expect(try CLIRunner.run(["nals", path, "--pid", "0x100"]).status == 0)
        let audio = try CLIRunner.run(["info", path, "--pid", "0x101"])
        #expect(audio.status == 64)
        #expect(audio.stderr.hasPrefix("nalu: error: --pid: PID 0x101 (stream_type 0x0F, AAC audio) is not H.264 (stream_type 0x1B) or H.265 (0x24) video\n"))
        let absent = try CLIRunner.run(["convert", path, "--pid", "0x200", "--to", "annexb", "-o", "-"])
        #expect(absent.status == 64)
        #expect(absent.stderr.hasPrefix("nalu: error: --pid: PID 512 (0x200) is in no program map table"))
        let notTS = try CLIRunner.run(["info", CLIRunner.fixture("avc_main.h264"), "--pid", "256"])
        #expect(notTS.status == 64)
        #expect(try CLIRunner.run(["info", path, "--pid", "0x2000"]).status == 64)
        #expect(try CLIRunner.run(["info", path, "--pid", "x"]).status == 64)
    }

    /// Damaged transport streams: a typed error or warnings, never a trap.
    @Test func damagedInputNeverTraps() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("ts_avc_aac.ts"))))
        let scratch = try Scratch()
        var syncOnly = [UInt8](repeating: 0xFF, count: 188 * 20)
        for index in stride(from: 0, to: syncOnly.count, by: 188) { syncOnly[index] = 0x47 }
        var generator = SystemRandomNumberGenerator()
        var noisy = original
        for _ in 0..<200 { noisy[Int.random(in: 0..<noisy.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
        let cases: [(String, [UInt8])] = [
            ("truncated.ts", Array(original.prefix(1000))),
            ("cut.ts", Array(original.prefix(20_000))),
            ("sync-only.ts", syncOnly),
            ("noisy.ts", noisy),
        ]
        for (name, bytes) in cases {
            try scratch.write(name, Data(bytes))
            for command in [["info"], ["nals"], ["keyframes"], ["convert", "--to", "annexb", "--no-audio", "-o", scratch.file(name + ".out")]] {
                let result = try CLIRunner.run([command[0], scratch.file(name)] + command.dropFirst())
                #expect(!result.signalled, "\(name) \(command)")
                #expect([0, 65].contains(result.status), "\(name) \(command): \(result.stderr)")
            }
        }
        let noProgram = try CLIRunner.run(["info", scratch.file("sync-only.ts")])
        #expect(noProgram.status == 65)
        #expect(noProgram.stderr.contains("PMT"))
    }
}
