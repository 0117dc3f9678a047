import Foundation
import Testing
import NALU
import NALUMP4

/// `nalu edit`: every option checked with ffprobe on the output, and the decoded frames'
/// framemd5 equal to the input's (the pictures are untouched), on an H.264 and an H.265 fixture.
@Suite(.serialized) struct EditCommandTests {
    static let streams = ["avc_main.h264", "hevc_main.h265"]

    static let ffprobePath = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe", "/opt/homebrew/bin/ffprobe"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// ffprobe's stream fields of the first video stream, as `key=value`.
    static func probe(_ path: String) throws -> [String: String] {
        let ffprobe = try #require(ffprobePath)
        let result = try runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_streams", path])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// The MD5 of every decoded frame (the last framemd5 column).
    static func frameMD5s(_ path: String, extra: [String] = [], filter: String? = nil) throws -> [String] {
        let ffmpeg = try #require(ffmpegPath)
        var arguments = ["-nostdin", "-v", "error"] + extra + ["-i", path]
        if let filter { arguments += ["-vf", filter] }
        let result = try runProgram(ffmpeg, arguments + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Runs `nalu edit FIXTURE ARGS -o OUT` and checks it succeeded; returns the output path.
    static func edit(_ fixture: String, _ arguments: [String], in scratch: Scratch, name: String? = nil) throws -> (path: String, stderr: String) {
        let output = scratch.url.appendingPathComponent(name ?? ("out." + (fixture.split(separator: ".").last.map(String.init) ?? "bin"))).path
        let result = try CLIRunner.run(["edit", CLIRunner.fixture(fixture)] + arguments + ["-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        return (output, result.stderr)
    }

    static func checkPicturesUntouched(_ fixture: String, _ output: String) throws {
        let input = try frameMD5s(CLIRunner.fixture(fixture))
        #expect(input.count > 5)
        #expect(try frameMD5s(output) == input)
    }

    @Test(arguments: streams) func colourDescription(fixture: String) throws {
        let scratch = try Scratch()
        let out = try Self.edit(fixture, ["--color-primaries", "bt2020", "--color-transfer", "smpte2084", "--color-space", "bt2020nc"], in: scratch)
        let facts = try Self.probe(out.path)
        #expect(facts["color_primaries"] == "bt2020")
        #expect(facts["color_transfer"] == "smpte2084")
        #expect(facts["color_space"] == "bt2020nc")
        try Self.checkPicturesUntouched(fixture, out.path)
        // Numbers work as names do.
        let numbers = try Self.edit(fixture, ["--color-primaries", "6", "--color-transfer", "18", "--color-space", "5"], in: scratch, name: "n." + fixture)
        let numbered = try Self.probe(numbers.path)
        #expect(numbered["color_primaries"] == "smpte170m")
        #expect(numbered["color_transfer"] == "arib-std-b67")
        #expect(numbered["color_space"] == "bt470bg")
    }

    @Test(arguments: streams) func colourRange(fixture: String) throws {
        let scratch = try Scratch()
        let pc = try Self.edit(fixture, ["--color-range", "pc"], in: scratch)
        #expect(try Self.probe(pc.path)["color_range"] == "pc")
        try Self.checkPicturesUntouched(fixture, pc.path)
        let tv = try Self.edit(fixture, ["--color-range", "tv"], in: scratch, name: "tv." + fixture)
        #expect(try Self.probe(tv.path)["color_range"] == "tv")
    }

    @Test(arguments: streams) func sampleAspectRatio(fixture: String) throws {
        let scratch = try Scratch()
        // 4:3 is Table E-1 index 14; 5:7 is coded as Extended_SAR.
        for sar in ["4:3", "5:7"] {
            let out = try Self.edit(fixture, ["--sar", sar], in: scratch, name: "\(sar.replacingOccurrences(of: ":", with: "_")).\(fixture)")
            #expect(try Self.probe(out.path)["sample_aspect_ratio"] == sar)
            try Self.checkPicturesUntouched(fixture, out.path)
        }
    }

    @Test(arguments: streams) func frameRate(fixture: String) throws {
        let scratch = try Scratch()
        let out = try Self.edit(fixture, ["--fps", "30000/1001"], in: scratch)
        #expect(try Self.probe(out.path)["r_frame_rate"] == "30000/1001")
        try Self.checkPicturesUntouched(fixture, out.path)
    }

    @Test(arguments: streams) func level(fixture: String) throws {
        let scratch = try Scratch()
        let out = try Self.edit(fixture, ["--level", "4.1"], in: scratch)
        // ffprobe's level: level_idc for H.264, general_level_idc for H.265.
        #expect(try Self.probe(out.path)["level"] == (fixture.hasPrefix("avc") ? "41" : "123"))
        #expect(!out.stderr.contains("warning"))
        try Self.checkPicturesUntouched(fixture, out.path)
    }

    @Test func levelBelowTheStreamWarns() throws {
        let scratch = try Scratch()
        // 176x144 at 30 fps: 25344 luma samples × 30 = 760320/s > MaxLumaSr 552960 of level 1.
        let hevc = try Self.edit("hevc_main.h265", ["--level", "1"], in: scratch)
        #expect(hevc.stderr.contains("nalu: warning: --level: 760320 luma samples per second exceed MaxLumaSr 552960 of level 1"))
        #expect(try Self.probe(hevc.path)["level"] == "30")
        // 99 macroblocks × 25 fps = 2475/s > MaxMBPS 1485 of level 1b (Main: level_idc 11 + constraint_set3_flag).
        let avc = try Self.edit("avc_main.h264", ["--level", "1b"], in: scratch)
        #expect(avc.stderr.contains("exceed MaxMBPS 1485 of level 1b"))
        let first = try Self.firstSPS(avc.path)
        let sps = try AVCSequenceParameterSet(nalUnit: try #require(first))
        #expect(sps.isLevel1b && sps.levelIdc == 11 && sps.constraintSet3Flag)
    }

    static func firstSPS(_ path: String) throws -> [UInt8]? {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return AnnexB.nalUnits(in: bytes).map(Array.init).first { (try? AVCNALUnitHeader($0))?.nalUnitType == .sps }
    }

    /// Crop: ffprobe reports the cropped size, and the decode (FFmpeg crops exactly with
    /// `-flags unaligned`) equals FFmpeg's crop filter applied to the input's decode.
    @Test(arguments: streams) func crop(fixture: String) throws {
        let scratch = try Scratch()
        let out = try Self.edit(fixture, ["--crop", "8,8,0,16"], in: scratch)
        let facts = try Self.probe(out.path)
        #expect(facts["width"] == "160")
        #expect(facts["height"] == "128")
        let cropped = try Self.frameMD5s(out.path, extra: ["-flags", "unaligned"])
        #expect(cropped.count > 5)
        #expect(cropped == (try Self.frameMD5s(CLIRunner.fixture(fixture), filter: "crop=160:128:8:0")))
    }

    @Test(arguments: streams) func cropErrorsNameTheOption(fixture: String) throws {
        let scratch = try Scratch()
        let output = scratch.url.appendingPathComponent("x").path
        let odd = try CLIRunner.run(["edit", CLIRunner.fixture(fixture), "--crop", "3,0,0,0", "-o", output])
        #expect(odd.status == 64)
        #expect(odd.stderr.hasPrefix("nalu: error: --crop: left 3 is not a multiple of the crop unit 2 (4:2:0)"))
        let whole = try CLIRunner.run(["edit", CLIRunner.fixture(fixture), "--crop", "0,0,80,64", "-o", output])
        #expect(whole.status == 64)
        #expect(whole.stderr.contains("leaves no picture of the coded 176x144"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let level = try CLIRunner.run(["edit", CLIRunner.fixture(fixture), "--level", "3.3", "-o", output])
        #expect(level.status == 64)
        #expect(level.stderr.hasPrefix("nalu: error: --level: 3.3 is not an H.26"))
    }

    /// MP4 in, MP4 out: the record in the sample entry carries the edit, ffprobe sees it.
    @Test(arguments: ["avc_main.mp4", "mp4_hevc_hvc1.mp4"]) func mp4RecordFollows(fixture: String) throws {
        let scratch = try Scratch()
        let out = try Self.edit(fixture, ["--color-primaries", "bt709", "--color-transfer", "bt709", "--color-space", "bt709",
                                          "--sar", "16:11", "--level", "5.1"], in: scratch, name: "out.mp4")
        let facts = try Self.probe(out.path)
        #expect(facts["color_primaries"] == "bt709")
        #expect(facts["sample_aspect_ratio"] == "16:11")
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(Array(try Data(contentsOf: URL(fileURLWithPath: out.path)))))
        // colr (nclx) and pasp follow the edited VUI.
        let entry = reader.track.sampleDescription
        #expect(entry.colour?.colourType == "nclx")
        #expect(entry.colour?.colourPrimaries == 1 && entry.colour?.transferCharacteristics == 1 && entry.colour?.matrixCoefficients == 1)
        #expect(entry.pixelAspectRatio == MP4PixelAspectRatio(hSpacing: 16, vSpacing: 11))
        switch reader.track.decoderConfiguration {
        case .avc(let record):
            #expect(record.avcLevelIndication == 51)
            let sps = try AVCSequenceParameterSet(nalUnit: try #require(record.sequenceParameterSets.first))
            #expect(sps.levelIdc == 51 && sps.vuiParameters?.colourPrimaries == 1 && sps.vuiParameters?.aspectRatioIdc == 4)
        case .hevc(let record):
            #expect(record.generalLevelIdc == 153)
            let spsUnit = try #require(record.parameterSets.first { (try? HEVCNALUnitHeader($0))?.nalUnitType == .sps })
            let sps = try HEVCSequenceParameterSet(nalUnit: spsUnit)
            #expect(sps.profileTierLevel.generalLevelIdc == 153 && sps.vuiParameters?.colourPrimaries == 1)
        }
        // The same MP4 remuxed without edits decodes to the same frames (FFmpeg drops or repeats
        // frames of the input file by its edit list, so the remux is the reference).
        let plain = scratch.url.appendingPathComponent("plain.mp4").path
        let convert = try CLIRunner.run(["convert", CLIRunner.fixture(fixture), "-o", plain])
        #expect(convert.status == 0, "\(convert.stderr)")
        let reference = try Self.frameMD5s(plain)
        #expect(reference.count > 5)
        #expect(try Self.frameMD5s(out.path) == reference)
    }

    /// Length-prefixed input with --extradata: the record written by --extradata-out carries the edit.
    @Test func extradataRecordFollows() throws {
        let scratch = try Scratch()
        let record = scratch.url.appendingPathComponent("out.avcC").path
        let out = try Self.edit("avc_main.lp", ["--extradata", CLIRunner.fixture("avc_main.avcC"), "--extradata-out", record,
                                                "--color-range", "pc"], in: scratch, name: "out.lp")
        let parsed = try DecoderConfigurationRecord(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: record))), codec: .h264)
        let sps = try AVCSequenceParameterSet(nalUnit: try #require(parsed.parameterSets.first))
        #expect(sps.vuiParameters?.videoFullRangeFlag == true)
        // Back to Annex-B, the stream decodes to the input's frames.
        let annexB = scratch.url.appendingPathComponent("back.h264").path
        let convert = try CLIRunner.run(["convert", out.path, "--extradata", record, "--to", "annexb", "-o", annexB])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try Self.probe(annexB)["color_range"] == "pc")
        try Self.checkPicturesUntouched("avc_main.h264", annexB)
    }

    /// The NAL unit types `nalu nals` lists.
    static func nalTypes(_ path: String) throws -> [Int] {
        let result = try CLIRunner.run(["nals", path])
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ")
            return columns.count > 2 ? Int(columns[2]) : nil
        }
    }

    @Test func accessUnitDelimiters() throws {
        let scratch = try Scratch()
        // avc_main has none: insert one per access unit.
        let input = try Self.nalTypes(CLIRunner.fixture("avc_main.h264"))
        #expect(!input.contains(9))
        let inserted = try Self.edit("avc_main.h264", ["--aud", "insert"], in: scratch)
        let withAUD = try Self.nalTypes(inserted.path)
        let pictures = input.filter { $0 == 1 || $0 == 5 }.count
        #expect(withAUD.filter { $0 == 9 }.count == pictures)
        try Self.checkPicturesUntouched("avc_main.h264", inserted.path)
        // hevc_wpp_aud has one per access unit: strip them all.
        let hevcInput = try Self.nalTypes(CLIRunner.fixture("hevc_wpp_aud.h265"))
        #expect(hevcInput.contains(35))
        let stripped = try Self.edit("hevc_wpp_aud.h265", ["--aud", "strip"], in: scratch)
        let without = try Self.nalTypes(stripped.path)
        #expect(!without.contains(35))
        #expect(without.count == hevcInput.count - hevcInput.filter { $0 == 35 }.count)
        try Self.checkPicturesUntouched("hevc_wpp_aud.h265", stripped.path)
        // Insert goes with Annex-B output only.
        let refused = try CLIRunner.run(["edit", CLIRunner.fixture("avc_main.mp4"), "--aud", "insert", "-o", scratch.url.appendingPathComponent("a.mp4").path])
        #expect(refused.status == 64)
    }

    @Test(arguments: streams) func seiStrip(fixture: String) throws {
        let scratch = try Scratch()
        let seiTypes: Set<Int> = fixture.hasPrefix("avc") ? [6] : [39, 40]
        let input = try Self.nalTypes(CLIRunner.fixture(fixture))
        let seiCount = input.filter(seiTypes.contains).count
        #expect(seiCount > 0)
        // The encoders' settings are a user_data_unregistered (5) message.
        for mode in ["strip", "strip=user_data_unregistered", "strip=5", "keep=recovery_point"] {
            let out = try Self.edit(fixture, ["--sei", mode], in: scratch, name: "\(mode).\(fixture)")
            let types = try Self.nalTypes(out.path)
            #expect(types.filter(seiTypes.contains).isEmpty, "\(mode)")
            #expect(types.count == input.count - seiCount, "\(mode)")
            try Self.checkPicturesUntouched(fixture, out.path)
        }
        let kept = try Self.edit(fixture, ["--sei", "keep=user_data_unregistered"], in: scratch, name: "keep.\(fixture)")
        #expect(try Self.nalTypes(kept.path) == input)
        let bad = try CLIRunner.run(["edit", CLIRunner.fixture(fixture), "--sei", "strip=nonsense", "-o", scratch.url.appendingPathComponent("b").path])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("nalu: error: --sei: unknown SEI payload type \"nonsense\""))
    }

    /// Issue 32 item 1: `--sei keep=` / `strip=` with nothing after "=" trapped (an index past the
    /// end of a split); it is a usage error naming the option, and no output is written.
    @Test(arguments: ["keep=", "strip=", "keep=,", "strip=,,"]) func seiEmptyTypeList(mode: String) throws {
        let scratch = try Scratch()
        let output = scratch.url.appendingPathComponent("out.h264").path
        let result = try CLIRunner.run(["edit", CLIRunner.fixture("avc_main.h264"), "--sei", mode, "-o", output])
        #expect(!result.signalled)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("nalu: error: --sei: \"\(mode)\" names no payload types"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// x264's CBR HRD stream pads with filler data NAL units: --strip-filler removes them.
    @Test func stripFiller() throws {
        let scratch = try Scratch()
        let input = try Self.nalTypes(CLIRunner.fixture("edit_avc_filler.h264"))
        #expect(input.filter { $0 == 12 }.count == 2)
        let out = try Self.edit("edit_avc_filler.h264", ["--strip-filler"], in: scratch)
        let types = try Self.nalTypes(out.path)
        #expect(!types.contains(12))
        #expect(types == input.filter { $0 != 12 })
        try Self.checkPicturesUntouched("edit_avc_filler.h264", out.path)
    }

    /// The parameter sets `nalu edit` writes are byte for byte the ones FFmpeg's
    /// h264_metadata/hevc_metadata filters write for the same edit.
    @Test(arguments: [
        (["--color-primaries", "bt2020", "--color-transfer", "smpte2084", "--color-space", "bt2020nc", "--sar", "4:3", "--color-range", "pc"],
         "colour_primaries=9:transfer_characteristics=16:matrix_coefficients=9:sample_aspect_ratio=4/3:video_full_range_flag=1"),
        (["--crop", "8,8,0,16"], "crop_left=8:crop_right=8:crop_bottom=16"),
        (["--level", "3.1", "--sar", "5:7"], "level=3.1:sample_aspect_ratio=5/7"),
    ])
    func parameterSetsMatchFFmpegMetadataFilters(nalu: [String], filter: String) throws {
        let ffmpeg = try #require(ffmpegPath)
        let scratch = try Scratch()
        for fixture in Self.streams {
            let out = try Self.edit(fixture, nalu, in: scratch)
            let reference = scratch.url.appendingPathComponent("ffmpeg." + fixture).path
            let bsf = (fixture.hasSuffix("h264") ? "h264_metadata=" : "hevc_metadata=") + filter
            let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-y", "-i", CLIRunner.fixture(fixture), "-c", "copy", "-bsf:v", bsf, reference])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.parameterSets(out.path) == (try Self.parameterSets(reference)), "\(fixture) \(filter)")
        }
    }

    /// The SPS (and VPS) NAL units of an Annex-B file, trailing zero bytes removed.
    static func parameterSets(_ path: String) throws -> [[UInt8]] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return AnnexB.nalUnits(in: bytes).map(Array.init).filter { unit in
            if path.hasSuffix("h264") { return (try? AVCNALUnitHeader(unit))?.nalUnitType == .sps }
            return [.vps, .sps].contains((try? HEVCNALUnitHeader(unit))?.nalUnitType)
        }
    }

    /// The malformed corpus (bit flips in every fixture) through every parameter-set and SEI edit:
    /// each run ends with the output written (0) or a data error (65), never a trap, and a failed
    /// run leaves nothing at -o.
    @Test func malformedInputNeverTraps() throws {
        let scratch = try Scratch()
        let directory = CLIRunner.fixtures.appendingPathComponent("malformed")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("bitflip-") }.sorted()
        #expect(names.count > 20)
        var statuses: [Int32: Int] = [:]
        for name in names.prefix(80) {
            let output = scratch.url.appendingPathComponent("out-" + name).path
            let run = try CLIRunner.run(["edit", directory.appendingPathComponent(name).path, "--color-primaries", "bt709",
                                         "--level", "4", "--sar", "1:1", "--fps", "25", "--sei", "strip=5", "--strip-filler", "-o", output])
            #expect(!run.signalled, "\(name)")
            #expect(run.status == 0 || run.status == 65 || run.status == 64, "\(name): \(run.stderr)")
            if run.status != 0 {
                #expect(run.stderr.hasPrefix("nalu: error: "), "\(name)")
                #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
            }
            statuses[run.status, default: 0] += 1
        }
        #expect(statuses[0, default: 0] > 0)
    }
}
