import Foundation
import NALU
import Testing

/// `nalu concat` against ffmpeg: clips of two sizes (640x360 then 1280x720, H.264 with audio,
/// Scripts/make-fixtures.sh `trim_fixtures`) joined to MP4 and to Annex-B decode to the clips'
/// frames in order (framemd5, ffmpeg's scaling off), from MP4 and Annex-B inputs alike.
@Suite struct ConcatCommandTests {
    static let small = "concat_avc_640x360"
    static let large = "concat_avc_1280x720"

    /// The md5 column of ffmpeg's decode of `path`, frames at their own size.
    static func md5s(_ path: String) throws -> [String] {
        let result = try TrimCommandTests.frameMD5s(["-i", path, "-autoscale", "0"])
        #expect(result.errors.isEmpty)
        return result.md5s
    }

    /// The two clips' frames, in order, as ffmpeg decodes each.
    static func expected() throws -> [String] {
        try md5s(CLIRunner.fixture(small + ".mp4")) + md5s(CLIRunner.fixture(large + ".mp4"))
    }

    @Test(arguments: [[small + ".mp4", large + ".mp4"], [small + ".h264", large + ".mp4"], [small + ".mp4", large + ".h264"], [small + ".h264", large + ".h264"]],
          ["joined.mp4", "joined.h264"])
    func joinedClipsAreTheClipsFramesInOrder(inputs: [String], output: String) throws {
        let folder = try Scratch()
        let path = folder.file(output)
        let result = try CLIRunner.run(["concat"] + inputs.map(CLIRunner.fixture) + ["-o", path])
        // Audio that is not joined (an input without it, Annex-B output) makes the exit status 2.
        let mp4Inputs = inputs.filter { $0.hasSuffix(".mp4") }.count
        let audioJoined = output.hasSuffix(".mp4") && mp4Inputs == inputs.count
        #expect(result.status == (audioJoined || mp4Inputs == 0 ? 0 : 2), "\(result.stderr)")
        let expected = try Self.expected()
        #expect(expected.count == 50)
        #expect(try Self.md5s(path) == expected)
        if output.hasSuffix(".mp4") {
            // Two sample entries (one per size); one track of 50 frames lasting the two clips.
            let ffprobe = try #require(ffmpegPath.map { $0.replacingOccurrences(of: "ffmpeg", with: "ffprobe") })
            let probe = try runProgram(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,nb_frames,duration", "-of", "csv=p=0", path])
            // Two MP4 inputs with the same AAC configuration: the audio is joined (ConcatAudioTests).
            // The second clip's AAC priming frame is left out: the joined track is continuous.
            let audio = inputs.allSatisfy { $0.hasSuffix(".mp4") } ? "\naudio,2.000000,95" : ""
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "video,2.000000,50" + audio)
        }
        // Audio is joined only into MP4 from MP4 inputs; else named, not joined.
        if output.hasSuffix(".mp4"), inputs.contains(where: { $0.hasSuffix(".mp4") }), let raw = inputs.first(where: { $0.hasSuffix(".h264") }) {
            #expect(result.stderr.contains("the audio not carried: it is not joined (\(CLIRunner.fixture(raw)) is not MP4/MOV); the video was written"))
        } else if output.hasSuffix(".h264"), inputs.contains(where: { $0.hasSuffix(".mp4") }) {
            #expect(result.stderr.contains("the audio not carried: it is not joined (an elementary stream holds one video track); the video was written"))
        }
    }

    @Test func avc3KeepsTheParameterSetsInBand() throws {
        let folder = try Scratch()
        let path = folder.file("joined.mp4")
        let result = try CLIRunner.run(["concat", CLIRunner.fixture(Self.small + ".mp4"), CLIRunner.fixture(Self.large + ".mp4"),
                                        "--sample-entry", "avc3", "-o", path, "--verbose"])
        #expect(result.status == 0)
        #expect(try Self.md5s(path) == Self.expected())
    }

    @Test func h264WithH265IsRefusedNamingBoth() throws {
        let folder = try Scratch()
        let a = CLIRunner.fixture("avc_main.h264")
        let b = CLIRunner.fixture("hevc_main.h265")
        let result = try CLIRunner.run(["concat", a, b, "-o", folder.file("x.mp4")])
        #expect(result.status == 65)
        #expect(result.stderr == "nalu: error: concat: \(a) is H.264 and \(b) is H.265\n")
        #expect(try folder.names().isEmpty)
    }

    @Test func timestampsContinueAcrossTheJoin() throws {
        let folder = try Scratch()
        let path = folder.file("joined.mp4")
        #expect(try CLIRunner.run(["concat", CLIRunner.fixture("mp4_avc_bframes.mp4"), CLIRunner.fixture("avc_open_gop.h264"), "-o", path]).status == 0)
        let ffprobe = try #require(ffmpegPath.map { $0.replacingOccurrences(of: "ffmpeg", with: "ffprobe") })
        let probe = try runProgram(ffprobe, ["-v", "error", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        let times = probe.stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        // 30 + 30 frames at 30 fps, every 1/30 s from 0.
        #expect(times.count == 60)
        for (index, time) in times.enumerated() { #expect(abs(time - Double(index) / 30) < 0.0001) }
    }

    @Test func anOutputThatIsALaterInputIsRefused() throws {
        let folder = try Scratch()
        let copy = folder.file("b.h264")
        try FileManager.default.copyItem(atPath: CLIRunner.fixture("avc_main.h264"), toPath: copy)
        let result = try CLIRunner.run(["concat", CLIRunner.fixture("avc_main.h264"), copy, "-o", copy])
        #expect(result.status == 73)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264"))))
    }
    /// A cut across the join of two sizes: the pictures 0.52 s to 1.52 s of the joined file (13
    /// to 37), the second clip's parameter sets taken from the access unit that changed them.
    @Test func aCutAcrossTheJoinShowsThoseFrames() throws {
        let folder = try Scratch()
        let joined = folder.file("joined.mp4")
        let cut = folder.file("cut.mp4")
        #expect(try CLIRunner.run(["concat", CLIRunner.fixture(Self.small + ".mp4"), CLIRunner.fixture(Self.large + ".h264"), "--no-audio", "-o", joined]).status == 0)
        let result = try CLIRunner.run(["trim", joined, "--start", "0.5", "--end", "1.5", "-o", cut])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.md5s(cut) == Array(Self.expected()[13..<38]))
    }
    /// H.265 of two sizes (176x144 Annex-B, then 320x180 from an MP4): two `hvc1` entries, or
    /// Annex-B with each stream's VPS/SPS/PPS; the frames are the streams' own, in order.
    @Test(arguments: ["joined.mp4", "joined.h265"]) func hevcOfTwoSizes(output: String) throws {
        let folder = try Scratch()
        let path = folder.file(output)
        let result = try CLIRunner.run(["concat", CLIRunner.fixture("hevc_main.h265"), CLIRunner.fixture("hevc_slices.mp4"), "-o", path])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try Self.md5s(CLIRunner.fixture("hevc_main.h265")) + Self.md5s(CLIRunner.fixture("hevc_slices.h265"))
        #expect(expected.count == 32)
        #expect(try Self.md5s(path) == expected)
    }
    /// An H.265 stream cut at its second CRA (from the VPS x265 repeats there: the CRA, then 3
    /// RASL pictures that refer to the pictures before it). Joined, each input's RASL pictures are
    /// dropped (a decoder discards them after the end of sequence), so every sample shows: the
    /// frames are those ffmpeg decodes from each input alone, in order.
    @Test(arguments: ["joined.mp4", "joined.h265"]) func raslPicturesOfAStartingCRAAreDropped(output: String) throws {
        let folder = try Scratch()
        let data = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("trim_hevc_open_gop.h265")))
        var vpsOffsets: [Int] = []
        data.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                if HEVCNALUnitType(rawValue: buffer[range.lowerBound] >> 1) == .vps { vpsOffsets.append(range.lowerBound) }
            }
        }
        let second = try #require(vpsOffsets.dropFirst().first)
        let cra = folder.file("cra.h265")
        try ([0, 0, 0, 1] + data[second...]).write(to: URL(fileURLWithPath: cra))
        let path = folder.file(output)
        let result = try CLIRunner.run(["concat", cra, cra, "-o", path])
        #expect(result.status == 0, "\(result.stderr)")
        let alone = try Self.md5s(cra)
        #expect(alone.count == 63)
        #expect(try Self.md5s(path) == alone + alone)
        if output.hasSuffix(".mp4") {
            let ffprobe = try #require(ffmpegPath.map { $0.replacingOccurrences(of: "ffmpeg", with: "ffprobe") })
            let probe = try runProgram(ffprobe, ["-v", "error", "-show_entries", "stream=nb_frames", "-of", "csv=p=0", path])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "126")
        }
    }
    /// Length-prefixed (with --extradata), Annex-B and MP4 inputs of one stream, joined: the
    /// record goes to the length-prefixed input only.
    @Test(arguments: ["joined.mp4", "joined.h264", "joined.lp"]) func threeContainersJoin(output: String) throws {
        let folder = try Scratch()
        let path = folder.file(output)
        let inputs = ["avc_main.lp", "avc_main.h264", "avc_main.mp4"].map(CLIRunner.fixture)
        var arguments = ["concat"] + inputs + ["--extradata", CLIRunner.fixture("avc_main.avcC"), "-o", path]
        if output.hasSuffix(".lp") { arguments += ["--to", "avcc"] }
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        var decoded = path
        if output.hasSuffix(".lp") {
            decoded = folder.file("back.h264")
            #expect(try CLIRunner.run(["convert", path, "--to", "annexb", "-o", decoded]).status == 0)
        }
        let one = try Self.md5s(CLIRunner.fixture("avc_main.h264"))
        #expect(one.count == 20)
        #expect(try Self.md5s(decoded) == one + one + one)
    }
    /// MP4 inputs at different rates (timescales 15360 and 12800) keep their own times: the
    /// output's timescale is a multiple of both, the 30 fps pictures last 1/30 s and the 25 fps
    /// ones 1/25 s (ffprobe), with nothing to warn about.
    @Test func inputsAtDifferentRatesKeepTheirTimes() throws {
        let folder = try Scratch()
        let other = CLIRunner.fixture("trim_avc_bframes_audio.mp4")
        let joined = folder.file("joined.mp4")
        let result = try CLIRunner.run(["concat", CLIRunner.fixture("mp4_avc_bframes.mp4"), other, "--no-audio", "-o", joined])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", joined])
        let times = probe.stdout.split(separator: "\n").compactMap { Double($0.replacingOccurrences(of: ",", with: "").trimmingCharacters(in: .whitespaces)) }
        #expect(times.count == 105)
        let steps = zip(times.dropFirst(), times).map { (($0 - $1) * 1000).rounded() / 1000 }
        #expect(steps.prefix(29).allSatisfy { abs($0 - 1.0 / 30) < 0.001 }, "\(steps)")
        #expect(steps.suffix(74).allSatisfy { abs($0 - 0.04) < 0.001 }, "\(steps)")
        #expect(abs((times.last ?? 0) - 3.96) < 0.0005)
        // --fps chose the rate: nothing to warn about.
        let chosen = try CLIRunner.run(["concat", CLIRunner.fixture("mp4_avc_bframes.mp4"), other, "--fps", "25", "--no-audio", "-o", folder.file("chosen.mp4")])
        #expect(chosen.status == 0)
        #expect(!chosen.stderr.contains("warning"), "\(chosen.stderr)")
    }
}
