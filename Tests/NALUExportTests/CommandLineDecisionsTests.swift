import Foundation
import Logging
import NALU
import NALUDoctor
import NALUEncoder
import NALUPackager
import NALUSmartCut
import NALUTS
import NALUDecoder
import NALUExport
import NALUIO
import NALUMedia
import NALUMP4
import Testing

/// The decisions that moved out of the `nalu` executable into the libraries (issue 39 item 5),
/// called from Swift as an app calls them: output naming, the file checks before a run, the
/// edit value parsers, the error classification, convert's setting checks, the record file,
/// the encoder library report and the decode check's findings.
@Suite("Command line decisions in the library")
struct CommandLineDecisionsTests {
    private func fixture(_ name: String) -> String { ExportTestSupport.fixture(name) }

    @Test("an output's name says its framing and codec; edit falls back on the input's container")
    func outputNaming() throws {
        let expected: [String: ConversionFormat?] = [
            "a.h264": .annexb, "a.264": .annexb, "A.HEVC": .annexb, "a.h265": .annexb, "a.mp4": .mp4, "a.MOV": .mp4,
            "a.m4v": .mp4, "a.ts": .ts, "a.m2ts": .m2ts, "a.mts": .m2ts, "a.lp": nil, "a.xyz": nil, "-": nil,
        ]
        for (name, format) in expected { #expect(ConversionFormat(outputName: name) == format, "\(name)") }
        #expect(ConversionFormat(chosen: nil, outputPath: "x.yuv") == .annexb)
        #expect(ConversionFormat(chosen: .avcc, outputPath: "x.mp4") == .avcc)
        #expect(Codec(outputName: "x.265") == .hevc)
        #expect(Codec(outputName: "x.AVC") == .h264)
        #expect(Codec(outputName: "x.mp4") == nil)
        // edit: no --to, a name that says nothing: the input's own container (192-byte packets: m2ts).
        let m2ts = try MediaSource(path: fixture("m2ts_avc_aac.m2ts"))
        #expect(ConversionFormat(chosen: nil, outputPath: "-", input: m2ts.container) == .m2ts)
        let mp4 = try MediaSource(path: fixture("avc_main.mp4"))
        #expect(ConversionFormat(chosen: nil, outputPath: nil, input: mp4.container) == .mp4)
        #expect(ConversionFormat(chosen: nil, outputPath: "e.ts", input: mp4.container) == .ts)
        // encode: a device or FIFO takes Annex-B; a regular file's unknown name says nothing.
        #expect(EncodeOutputFraming(outputPath: "/dev/null") == .annexb)
        #expect(EncodeOutputFraming(outputPath: "-") == .annexb)
        #expect(EncodeOutputFraming(outputPath: "/nonexistent/out.xyz") == nil)
        #expect(EncodeOutputFraming(outputPath: "o.m2ts") == .m2ts)
        #expect(EncodeOutputFraming.annexb.defaultOutputPath(forInput: "dir/raw_640x360.yuv", codec: .hevc) == "dir/raw_640x360.h265")
        #expect(EncodeOutputFraming.avcc.defaultOutputPath(forInput: "raw.yuv", codec: .h264) == "raw.h264.lp")
        #expect(EncodeOutputFraming.mp4.defaultOutputPath(forInput: "raw.yuv", codec: .h264, suffix: ".part-0003") == "raw.part-0003.mp4")
        #expect(EncodeOutputFraming.annexb.defaultOutputPath(forInput: "clip.h264", codec: .h264) == "clip.h264.h264")
        #expect(OutputNaming.replacingExtension(of: "a.b/noext", with: ".h264") == "a.b/noext.h264")
        // The frame size in a raw file's name, as x264 reads it: the last WxH, sides of 1 to 5 digits.
        #expect(OutputNaming.frameSize(inName: "cam-1920x1080-nv12.yuv").map { [$0.width, $0.height] } == [1920, 1080])
        #expect(OutputNaming.frameSize(inName: "a_320x240_then_640X360.yuv").map { [$0.width, $0.height] } == [640, 360])
        #expect(OutputNaming.frameSize(inName: "dir_640x360/clip.yuv") == nil)
        #expect(OutputNaming.frameSize(inName: "clip_123456x2.yuv") == nil)
        #expect(OutputNaming.frameSize(inName: "clip_0x360.yuv") == nil)
    }

    @Test("the file checks before a run: unreadable inputs, an output that is an input, two outputs on one file")
    func pathPreflight() throws {
        let folder = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.h264").path
        let record = folder.appendingPathComponent("in.avcC").path
        try Data([0, 0, 0, 1, 0x09, 0x10]).write(to: URL(fileURLWithPath: input))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: record))
        let link = folder.appendingPathComponent("link.h264").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        let missing = folder.appendingPathComponent("missing.h264").path

        func conflict(_ check: PathPreflight, outputs: Bool = true) -> PathConflict? {
            do {
                try check.checkInputs()
                if outputs { try check.checkOutputs() }
                return nil
            } catch {
                return error
            }
        }
        #expect(conflict(PathPreflight(input: missing, outputs: [])) == .unreadableInput(path: missing, reason: String(cString: strerror(ENOENT))))
        #expect(conflict(PathPreflight(input: folder.path, outputs: [])) == .unreadableInput(path: folder.path, reason: "is a directory"))
        #expect(conflict(PathPreflight(input: folder.path, outputs: [], inputMayBeFolder: true)) == nil)
        #expect(conflict(PathPreflight(input: input, otherInputs: [missing], outputs: [])) == .unreadableInput(path: missing, reason: String(cString: strerror(ENOENT))))
        // The input by another path (a symbolic link) is still the input.
        #expect(conflict(PathPreflight(input: input, outputs: [("-o", link)])) == .outputIsInput(output: link, input: input))
        #expect(conflict(PathPreflight(input: input, otherInputs: [record], outputs: [("-o", record)])) == .outputIsOtherInput(output: record, input: record))
        let out = folder.appendingPathComponent("out.lp").path
        #expect(conflict(PathPreflight(input: input, outputs: [("-o", out), ("--extradata-out", out)]))
                == .outputsCollide(path: out, name: "--extradata-out", earlierName: "-o"))
        #expect(conflict(PathPreflight(input: input, outputs: [("-o", out), ("--extradata-out", out + ".avcC")])) == nil)
        // Devices may be shared by outputs.
        #expect(conflict(PathPreflight(input: input, outputs: [("-o", "/dev/null"), ("--stats-json", "/dev/null")])) == nil)
        #expect(FailureKind(PathConflict.unreadableInput(path: missing, reason: "")).exitStatus == 66)
        #expect(FailureKind(PathConflict.outputIsInput(output: link, input: input)).exitStatus == 73)
        #expect(FailureKind(PathConflict.outputsCollide(path: out, name: "a", earlierName: "b")) == .usage)
    }

    @Test("nalu edit's values are read by the library, errors naming the option")
    func editParsers() throws {
        #expect(try SEIEdit(parsing: "keep=user_data_unregistered,6") == .keep([5, 6]))
        #expect(try SEIEdit(parsing: "strip=RECOVERY_POINT") == .strip([6]))
        #expect(try SEIEdit(parsing: "strip") == .stripAll)
        for bad in ["keep=", "strip=foo", "drop"] {
            #expect(throws: NALUError.self) { try SEIEdit(parsing: bad) }
            do { _ = try SEIEdit(parsing: bad) } catch { #expect(error.field == "--sei" && error.code == .invalidValue) }
        }
        #expect(try ParameterSetEdits.Crop(parsing: "0,2,4,8") == ParameterSetEdits.Crop(left: 0, right: 2, top: 4, bottom: 8))
        #expect(throws: NALUError.self) { try ParameterSetEdits.Crop(parsing: "1,2") }
        #expect(try ParameterSetEdits.sampleAspectRatio(parsing: "40:33") == Rational(40, 33))
        #expect(try ParameterSetEdits.sampleAspectRatio(parsing: "4/3") == Rational(4, 3))
        #expect(throws: NALUError.self) { try ParameterSetEdits.sampleAspectRatio(parsing: "0:1") }
        #expect(throws: NALUError.self) { try ParameterSetEdits.sampleAspectRatio(parsing: "65536:1") }
        #expect(try ParameterSetEdits.Level(parsing: "1b").is1b)
        #expect(try ParameterSetEdits.Level(parsing: "4.1") == ParameterSetEdits.Level(major: 4, minor: 1))
        #expect(throws: NALUError.self) { try ParameterSetEdits.Level(parsing: "4.12") }
        #expect(try ColourNames.codePoint(parsing: "bt709", in: ColourNames.primaries, field: "--color-primaries") == 1)
        #expect(try ColourNames.codePoint(parsing: "smpte2084", in: ColourNames.transfer, field: "--color-transfer") == 16)
        #expect(try ColourNames.codePoint(parsing: "9", in: ColourNames.space, field: "--color-space") == 9)
        do {
            _ = try ColourNames.codePoint(parsing: "300", in: ColourNames.transfer, field: "--color-transfer")
            Issue.record("300 is no code point")
        } catch {
            #expect(error.field == "--color-transfer" && error.detail == "300 is not a code point (0...255)")
        }
        #expect(SEIEdit.payloadTypeNames(first: 3) == ["active_parameter_sets", "alternative_transfer_characteristics", "ambient_viewing_environment"])
    }

    @Test("the classification of every library's errors and its exit status")
    func failureKinds() {
        #expect(FailureKind(NALUError(.truncated, field: "sps")) == .data)
        #expect(FailureKind(NALUError(.cannotCreate, field: "o.mp4")).exitStatus == 73)
        #expect(FailureKind(NALUError(.io, field: "-")).exitStatus == 74)
        #expect(FailureKind(ExportError(.tracksNotCarried, "x")).exitStatus == 2)
        #expect(FailureKind(ExportError(.invalidSettings, "x")).exitStatus == 64)
        #expect(FailureKind(ExportError(.noInput, "x")).exitStatus == 66)
        #expect(FailureKind(ExportError(.resources, "x")).exitStatus == 1)
        #expect(FailureKind(CancellationError()) == .failure)
        #expect(Set(FailureKind.allCases.map(\.exitStatus)) == [1, 2, 64, 65, 66, 69, 73, 74])
    }

    @Test("convert's setting combinations are refused by ConversionSettings.validate()")
    func conversionSettings() throws {
        var settings = ConversionSettings(format: .annexb)
        try settings.validate()
        settings.writesRecord = true
        #expect(throws: NALUError.self) { try settings.validate() }
        settings = ConversionSettings(format: .ts)
        settings.accessUnitDelimiters = .strip
        do { try settings.validate(); Issue.record("ts with --aud strip") } catch { #expect(error.field == "--to") }
        settings = ConversionSettings(format: .mp4)
        settings.mp4.layout = .fragmented
        try settings.validate()
        settings.format = .avcc
        #expect(throws: NALUError.self) { try settings.validate() }
        settings = ConversionSettings(format: .ts)
        settings.frameRate = Rational(25, 1)
        try settings.validate()
    }

    @Test("an --extradata record file is read and parsed; a wrong file names itself")
    func recordFile() throws {
        let path = fixture("avc_main.avcC")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try DecoderConfigurationRecord(contentsOf: path, codec: nil) == DecoderConfigurationRecord(parsing: bytes))
        #expect(try DecoderConfigurationRecord(contentsOf: path, codec: .h264) == DecoderConfigurationRecord(parsing: bytes, codec: .h264))
        let wrong = fixture("avc_main.h264")
        do {
            _ = try DecoderConfigurationRecord(contentsOf: wrong, codec: nil)
            Issue.record("an Annex-B stream is no record")
        } catch {
            #expect(error.field.hasPrefix(wrong + ": "))
        }
        #expect(throws: NALUError.self) { try DecoderConfigurationRecord(contentsOf: fixture("missing.avcC"), codec: nil) }
    }

    @Test("the encoder libraries' report: one line per library and a summary")
    func encoderReport() throws {
        let statuses = EncoderLibraries.statuses
        let lines = EncoderLibraries.reportLines(statuses, json: true)
        #expect(lines.count == statuses.count + 1)
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)") }
        let missing = statuses.filter { !$0.isAvailable }.count
        let summary = try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: [String: Int]]
        #expect(summary?["summary"] == ["errors": 0, "warnings": missing])
        let text = EncoderLibraries.reportLines(statuses, json: false)
        #expect(text.last == (missing == 0 ? "encoders: all \(statuses.count) libraries load" : "encoders: \(missing) of \(statuses.count) libraries cannot be loaded"))
    }

    @Test("decoding every picture: a damaged stream gives one decode-error finding, a clean one none")
    func decodeFindings() throws {
        for (name, expected) in [("avc_main.h264", 0), ("malformed/bitflip-avc_main-0.h264", 1)] {
            let path = fixture(name)
            let source = try MediaSource(path: path)
            let decoding = try InputDecoder(path: path, source: source, factory: DecoderLibrary.avcodec.factory, threadCount: 1)
            let findings = try decoding.check().findings(codec: source.codec, libraryName: "libavcodec")
            #expect(findings.count == expected, "\(name): \(findings)")
            if let finding = findings.first {
                #expect(finding.code == .decodeError)
                #expect(finding.clause == "H.264 7.3.4 slice_data()")
                #expect(finding.message.hasPrefix("the decoder (libavcodec) reports: "))
            }
        }
    }

    @Test("the packager's option combinations: PackagerOptions.validate(live:)")
    func packagerOptions() throws {
        func refusal(_ options: PackagerOptions, live: Bool = false) -> String? {
            do { try options.validate(live: live); return nil } catch { return error.field }
        }
        #expect(refusal(PackagerOptions()) == nil)
        #expect(refusal(PackagerOptions(segmentDuration: Rational(1, 20))) == "--segment-duration")
        #expect(refusal(PackagerOptions(segmentDuration: Rational(3601, 1))) == "--segment-duration")
        #expect(refusal(PackagerOptions(segmentType: .ts, dash: true)) == "--dash")
        var options = PackagerOptions(segmentDuration: Rational(2, 1))
        options.partDuration = Rational(3, 1)
        #expect(refusal(options) == "--part-duration")
        options.partDuration = Rational(1, 2)
        #expect(refusal(options) == nil)
        options.singleFile = true
        #expect(refusal(options) == nil)
        #expect(refusal(options, live: true) == "--single-file")
        options.singleFile = false
        options.window = 0
        #expect(refusal(options, live: true) == "--window")
        options.window = 6
        options.maxAccessUnitSize = 1000
        #expect(refusal(options) == "--max-access-unit-size")
    }

    @Test("edit's delimiter and record choices per output: StreamEditing.validate")
    func editingChoices() throws {
        #expect(throws: NALUError.self) { try StreamEditing.validate(format: .mp4, accessUnitDelimiters: .insert, writesRecord: false) }
        #expect(throws: NALUError.self) { try StreamEditing.validate(format: .m2ts, accessUnitDelimiters: .strip, writesRecord: false) }
        #expect(throws: NALUError.self) { try StreamEditing.validate(format: .annexb, accessUnitDelimiters: .keep, writesRecord: true) }
        try StreamEditing.validate(format: .ts, accessUnitDelimiters: .insert, writesRecord: false)
        try StreamEditing.validate(format: .avcc, accessUnitDelimiters: .strip, writesRecord: true)
    }

    @Test("what a composition cannot write: CompositionWriter.validate")
    func compositionChoices() throws {
        var composition = Composition()
        composition.clips.append(try Composition.Clip(argument: fixture("avc_main.mp4") + "@0-1"))
        func field(_ format: CutOutputFormat) -> String? {
            do { try CompositionWriter.validate(composition, format: format); return nil } catch { return error.field }
        }
        #expect(field(.lengthPrefixed) == "format")
        #expect(field(.mp4(MP4MuxerOptions(layout: .fragmented))) == "layout")
        #expect(field(.mp4(MP4MuxerOptions())) == nil)
        #expect(field(.annexB()) == nil)
        composition.clips.append(try Composition.Clip(argument: "-"))
        #expect(field(.annexB()) == "standard input")
    }

    @Test("the encoder library for a codec, and its factory")
    func encoderLibrary() {
        #expect(EncoderLibrary.encoding(.h264) == .x264)
        #expect(EncoderLibrary.encoding(.hevc) == .x265)
        #expect(EncoderLibrary.encoding(.h264, chosen: .openh264) == .openh264)
        #expect(EncoderLibrary.encoding(.hevc, chosen: .x264) == .x265)
        #expect(EncoderLibrary.allCases.map(\.codec) == [.h264, .hevc, .h264])
        #expect(EncoderLibrary.allCases.map { $0.factory(logger: Logger(label: "test")).name } == ["x264", "x265", "openh264"])
    }

    @Test("small files written whole through the output rules; a summary's JSON; a broken pipe told apart")
    func wholeFiles() throws {
        let folder = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("record.avcC").path
        try FileSink.writeWhole([1, 0x64, 0, 0x1F, 0xFF, 0xE0, 0], to: path)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == [1, 0x64, 0, 0x1F, 0xFF, 0xE0, 0])
        #expect(throws: NALUError.self) { try FileSink.writeWhole([1], to: folder.appendingPathComponent("no/such/folder/x").path) }
        #expect(ExportTestSupport.contents(folder) == ["record.avcC"])
        var statistics = EncoderSession.Statistics()
        statistics.framesIn = 3
        let summary = EncodeSummary(statistics, elapsed: 1, frameRate: Rational(30, 1), output: "out.h264", codec: .h264)
        let json = folder.appendingPathComponent("stats.json").path
        try summary.writeJSON(to: json)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(object?["codec"] as? String == "h264")
        #expect(object?.keys.count == summary.fields.count)
        #expect(NALUError(.io, field: "-", detail: String(cString: strerror(EPIPE))).isBrokenPipe)
        #expect(!NALUError(.io, field: "-", detail: String(cString: strerror(ENOSPC))).isBrokenPipe)
    }

    @Test("option values read by the library: PIDs, --scale, live changes, concat --smart's clips, edit hints")
    func optionValues() throws {
        #expect(TransportStream.pid(parsing: "0x100") == 256)
        #expect(TransportStream.pid(parsing: "0X1fff") == 0x1FFF)
        #expect(TransportStream.pid(parsing: "481") == 481)
        #expect(TransportStream.pid(parsing: "0x2000") == nil)
        #expect(TransportStream.pid(parsing: "-1") == nil)
        #expect(EncodeInputOptions.scale(parsing: "1280x-1").map { [$0.width, $0.height] } == [1280, nil])
        #expect(EncodeInputOptions.scale(parsing: "-1X720").map { [$0.width, $0.height] } == [nil, 720])
        #expect(EncodeInputOptions.scale(parsing: "-1x-1") == nil)
        #expect(EncodeInputOptions.scale(parsing: "16385x2") == nil)
        #expect(EncoderLiveChanges.bitrateChange(parsing: "120:400k").map { [$0.frame, $0.bitsPerSecond] } == [120, 400_000])
        #expect(EncoderLiveChanges.bitrateChange(parsing: "120:zz") == nil)
        #expect(EncoderLiveChanges.frames(parsing: "60,120") == [60, 120])
        #expect(EncoderLiveChanges.frames(parsing: "3,") == nil)
        let input = fixture("trim_avc_bframes_audio.mp4")
        let composition = try Composition(arguments: [input + "@0.5-1", input, input + "@1.5-"])
        #expect(composition.clips.map(\.path) == [input, input, input])
        #expect(composition.clips[1].range == .whole)
        do {
            _ = try Composition(arguments: [input + "@1-0.5"])
            Issue.record("an empty range was taken")
        } catch {
            #expect(error.field == input + "@1-0.5" && error.detail == "the range is empty: it ends at or before its start")
        }
        #expect(StreamEditing.hint(for: NALUError(.invalidValue, field: "--crop", detail: "x")) == "--crop 0,0,0,8")
        let colour = StreamEditing.hint(for: NALUError(.invalidValue, field: "--color-transfer", detail: "unknown value \"x\""))
        #expect(colour?.contains("smpte2084") == true && colour?.contains("smpte432") == false)
        #expect(StreamEditing.hint(for: NALUError(.invalidValue, field: "--extradata-out", detail: "unknown value")) == nil)
    }

    @Test("extradata in each format, --size, encode's time range, a decoder library's install fix")
    func moreValues() throws {
        let collector = try ParameterSetCollector.collect(try MediaSource(path: fixture("avc_main.h264")))
        let record = Array(try Data(contentsOf: URL(fileURLWithPath: fixture("avc_main.avcC"))))
        #expect(try collector.extradata(.avcc) == record)
        #expect(try collector.extradata(.hvcc) == record)
        let annexB = try collector.extradata(.annexb)
        #expect(annexB.starts(with: [0, 0, 0, 1]))
        #expect(annexB.count == collector.parameterSets.reduce(0) { $0 + 4 + $1.count })
        #expect(EncodeInputOptions.size(parsing: "640X360").map { [$0.width, $0.height] } == [640, 360])
        #expect(EncodeInputOptions.size(parsing: "0x360") == nil)
        let range = try EncodeInputOptions.timeRange(start: nil, end: "1:02.5")
        let expectedEnd = try MediaTime(parsing: "62.5")
        #expect(range.start == .zero && range.end == expectedEnd)
        do {
            _ = try EncodeInputOptions.timeRange(start: "0.5", end: "1:99")
            Issue.record("1:99 is no time")
        } catch {
            #expect(error.field == "--end")
        }
        let missing = DecoderError(.libraryUnavailable, field: "libavcodec", detail: "libavcodec.so.59: cannot open shared object file; install libavcodec59")
        #expect(DecoderLibrary.explanation(missing) == ("libavcodec.so.59: cannot open shared object file", "install libavcodec59"))
        #expect(DecoderLibrary.explanation(DecoderError(.libraryUnavailable, field: "x", detail: "gone")) == ("gone", nil))
    }
}
