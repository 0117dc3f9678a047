import Foundation
import Testing

/// NAL units of an Annex-B byte stream (start codes and trailing zeros removed).
func annexBUnits(_ data: Data) -> [Data] {
    let bytes = [UInt8](data)
    var units: [Data] = []
    var index = 0
    var start: Int?
    func close(_ end: Int) {
        guard let begin = start else { return }
        var last = end
        while last > begin && bytes[last - 1] == 0 { last -= 1 }
        if last > begin { units.append(Data(bytes[begin..<last])) }
    }
    while index + 2 < bytes.count {
        if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
            close(index)
            start = index + 3
            index += 3
        } else {
            index += 1
        }
    }
    close(bytes.count)
    return units
}

/// The temporary files (`.<name>.<random>.nalu-tmp`) left beside `path`.
func temporaryFiles(of path: String) -> [String] {
    let url = URL(fileURLWithPath: path)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
    return names.filter { $0.hasPrefix("." + url.lastPathComponent + ".") && $0.hasSuffix(".nalu-tmp") }
}

func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("nalu-\(getpid())-\(UUID().uuidString)-\(name)").path
}

@Suite struct ConvertCommandTests {
    /// Annex-B → avcc (+ record) → Annex-B: the same NAL units, for every fixture.
    @Test(arguments: fixtureNames) func roundTrip(name: String) throws {
        let lp = temporaryPath("\(name).lp")
        let record = temporaryPath("\(name).record")
        let back = temporaryPath("\(name).back")
        defer { for path in [lp, record, back] { try? FileManager.default.removeItem(atPath: path) } }
        let first = try CLIRunner.run(["convert", streamFile(name), "--to", "avcc", "-o", lp, "--extradata-out", record])
        #expect(first.status == 0, "\(first.stderr)")
        let ffmpegRecord = try Data(contentsOf: CLIRunner.fixtures.appendingPathComponent(name + (name.hasPrefix("hevc") ? ".hvcC" : ".avcC")))
        let ours = try Data(contentsOf: URL(fileURLWithPath: record))
        if name.hasPrefix("hevc") {
            // hvc1 record: ffmpeg 5.1 writes array_completeness 0; nalu 1 (parameter sets moved out).
            var adjusted = [UInt8](ffmpegRecord)
            var position = 23
            for _ in 0..<Int(adjusted[22]) {
                adjusted[position] |= 0x80
                let count = Int(adjusted[position + 1]) << 8 | Int(adjusted[position + 2])
                position += 3
                for _ in 0..<count {
                    position += 2 + (Int(adjusted[position]) << 8 | Int(adjusted[position + 1]))
                }
            }
            #expect([UInt8](ours) == adjusted)
        } else {
            #expect(ours == ffmpegRecord)
        }
        let second = try CLIRunner.run(["convert", lp, "--extradata", record, "--to", "annexb", "-o", back])
        #expect(second.status == 0, "\(second.stderr)")
        let original = try Data(contentsOf: URL(fileURLWithPath: streamFile(name)))
        #expect(annexBUnits(try Data(contentsOf: URL(fileURLWithPath: back))) == annexBUnits(original))
    }

    @Test func pipesThroughStandardInputAndOutput() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        let result = try CLIRunner.run(["convert", "-", "--to", "avcc", "--keep-parameter-sets", "-o", "-"], stdin: input)
        #expect(result.status == 0)
        // With parameter sets kept, x264 output converts to exactly ffmpeg's MP4 samples.
        #expect(result.stdoutBytes == (try Data(contentsOf: CLIRunner.fixtures.appendingPathComponent("avc_main.lp"))))
    }

    @Test func lengthSizeTwoAndFlagsReported() throws {
        let out = temporaryPath("two.lp")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let moved = temporaryPath("two-moved.avcC")
        defer { try? FileManager.default.removeItem(atPath: moved) }
        let result = try CLIRunner.run(["convert", streamFile("avc_ntsc_aud"), "--to", "avcc", "--length-size", "2",
                                        "--aud", "strip", "-o", out, "--extradata-out", moved, "--verbose"])
        #expect(result.status == 0)
        #expect(result.stderr == "nalu: annexb h264 → avcc, 37 NAL units in, 16 out, 6 parameter sets moved to the record, 15 AUDs stripped\n")
        // Without the record the slices refer to parameter sets nobody has.
        let bare = try CLIRunner.run(["info", "--json", "--length-size", "2", "--codec", "h264", out])
        #expect(bare.status == 65)
        #expect(bare.stderr == "nalu: error: pic_parameter_set_id: missing (no PPS 0) at byte 688\n")
        let record = temporaryPath("two.avcC")
        defer { try? FileManager.default.removeItem(atPath: record) }
        #expect(try CLIRunner.run(["extradata", streamFile("avc_ntsc_aud"), "--record-length-size", "2", "-o", record]).status == 0)
        let info = try CLIRunner.run(["info", "--json", "--extradata", record, out])
        #expect(info.status == 0)
        let object = try jsonObject(info.stdout)
        #expect(object["nal_units"] as? Int == 16)
        #expect(object["length_size"] as? Int == 2)
        #expect(object["width"] as? Int == 176)
        #expect(object["access_units"] as? Int == 15)
    }

    @Test func lengthSizeOneThatDoesNotFitFailsAndLeavesNoFile() throws {
        let out = temporaryPath("one.lp")
        let result = try CLIRunner.run(["convert", streamFile("avc_baseline"), "--to", "avcc", "--length-size", "1", "-o", out,
                                        "--extradata-out", temporaryPath("one.avcC")])
        #expect(result.status == 65)
        #expect(result.stderr == "nalu: error: NAL unit length: does not fit (SEI NAL unit of 623 bytes does not fit a 1-byte length) at byte 38\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(temporaryFiles(of: out) == [])
    }

    @Test func missingParameterSetsForAKeyframe() throws {
        let out = temporaryPath("missing.h264")
        let samples = CLIRunner.fixture("avc_main.lp")
        // Strip the in-band parameter sets first, then convert back without a record.
        let stripped = temporaryPath("stripped.lp")
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        let record = temporaryPath("stripped.avcC")
        defer { try? FileManager.default.removeItem(atPath: record) }
        #expect(try CLIRunner.run(["convert", samples, "--input-length-size", "4", "--to", "avcc", "-o", stripped, "--extradata-out", record]).status == 0)
        let result = try CLIRunner.run(["convert", stripped, "--length-size", "4", "--to", "annexb", "-o", out])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("nalu: error: pic_parameter_set_id: missing"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `--to avcc` without `--extradata-out`: the record has nowhere to go, so the parameter sets
    /// stay in band (the bytes `--keep-parameter-sets` gives) and stderr says which flag moves them.
    @Test func avccWithoutRecordKeepsParameterSetsInBand() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: streamFile("avc_main")))
        let result = try CLIRunner.run(["convert", "-", "--to", "avcc", "-o", "-"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stderr == "nalu: note: the parameter sets stay in band (no --extradata-out); give --extradata-out FILE to move them to an avcC/hvcC record\n")
        #expect(result.stdoutBytes == (try Data(contentsOf: CLIRunner.fixtures.appendingPathComponent("avc_main.lp"))))
        // Decodable on its own: info finds the parameter sets in band.
        let lp = temporaryPath("inband.lp")
        defer { try? FileManager.default.removeItem(atPath: lp) }
        try result.stdoutBytes.write(to: URL(fileURLWithPath: lp))
        let info = try CLIRunner.run(["info", "--json", "--length-size", "4", lp])
        #expect(info.status == 0)
        #expect(try jsonObject(info.stdout)["width"] as? Int == 176)
    }

    @Test func policiesAreUsageCheckedPerDirection() throws {
        let result = try CLIRunner.run(["convert", streamFile("avc_main"), "--to", "avcc", "--aud", "insert", "-o", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--aud insert goes with --to annexb"))
    }

    @Test func parameterSetsFirstOnly() throws {
        let lp = temporaryPath("first.lp")
        let record = temporaryPath("first.avcC")
        let back = temporaryPath("first.h264")
        defer { for path in [lp, record, back] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try CLIRunner.run(["convert", streamFile("avc_ntsc_aud"), "--to", "avcc", "-o", lp, "--extradata-out", record]).status == 0)
        let result = try CLIRunner.run(["convert", lp, "--extradata", record, "--to", "annexb", "--parameter-sets", "first", "-o", back, "--verbose"])
        #expect(result.status == 0)
        #expect(result.stderr == "nalu: length-prefixed h264 → annexb, 31 NAL units in, 33 out, 15 access units, 2 parameter sets inserted\n")
    }
}

@Suite struct ExtradataCommandTests {
    @Test(arguments: fixtureNames) func recordMatchesFFmpeg(name: String) throws {
        var arguments = ["extradata", streamFile(name)]
        if name.hasPrefix("hevc") { arguments.append("--hev1") }
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 0)
        let ffmpeg = try Data(contentsOf: CLIRunner.fixtures.appendingPathComponent(name + (name.hasPrefix("hevc") ? ".hvcC" : ".avcC")))
        #expect(result.stdoutBytes == ffmpeg)
    }

    @Test func annexBFormat() throws {
        let result = try CLIRunner.run(["extradata", streamFile("hevc_main"), "--format", "annexb"])
        #expect(result.status == 0)
        let units = annexBUnits(result.stdoutBytes)
        #expect(units.map { ($0.first ?? 0) >> 1 } == [32, 33, 34])
    }

    @Test func noParameterSetsIsAnError() throws {
        let stripped = temporaryPath("noparams.lp")
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        let record = temporaryPath("noparams.hvcC")
        defer { try? FileManager.default.removeItem(atPath: record) }
        #expect(try CLIRunner.run(["convert", streamFile("hevc_main"), "--to", "avcc", "-o", stripped, "--extradata-out", record]).status == 0)
        let result = try CLIRunner.run(["extradata", "--length-size", "4", stripped])
        #expect(result.status == 65)
        #expect(result.stderr == "nalu: error: parameter sets: missing (the stream has no VPS, SPS and PPS)\n")
    }
}

@Suite struct KeyframesCommandTests {
    /// Keyframe indices equal ffprobe's K flags, in decoding order, for every fixture.
    @Test(arguments: fixtureNames) func keyframesMatchFFprobe(name: String) throws {
        let facts = try ProbeFacts.load(name)
        let result = try CLIRunner.run(["keyframes", "--json", streamFile(name)])
        #expect(result.status == 0)
        let indices = try result.stdout.split(separator: "\n").map { line in
            try #require(try jsonObject(String(line))["index"] as? Int)
        }
        #expect(indices == facts.key_packets)
    }

    @Test func classesAndText() throws {
        let result = try CLIRunner.run(["keyframes", streamFile("hevc_open_gop")])
        #expect(result.stdout == """
               index      offset  class     type
                   0           0  idr       I
                   9        8974  cra       I
                  19       17916  cra       I

            """)
        let refresh = try CLIRunner.run(["keyframes", "--json", streamFile("avc_intra_refresh")])
        #expect(refresh.stdout.split(separator: "\n").last == #"{"index": 20, "offset": 23974, "class": "recovery", "picture_type": "P", "recovery_count": 9}"#)
    }
}
