import ArgumentParser
import Logging
import NALU
import NALUAVCodec
import NALUEncoder
import NALUIO
import NALUMP4
import NALUExport
import NALUMedia
import NALUOpenH264
import NALUSmartCut
import NALUTS
import NALUX264
import NALUX265

/// `nalu trim --smart` (issue 34): frame-exact without an edit list, re-encoding only the
/// partial GOPs at the ends (``SmartTrimmer``).
struct SmartTrimOptions: ParsableArguments {
    @Flag(help: "Frame-exact without an edit list: re-encode the pictures before the first keyframe in the range and after the last whole GOP, with the source's profile, level, entropy coding and VUI; copy the rest (any input; MP4, Annex-B, length-prefixed or MPEG-TS output).")
    var smart = false

    @Option(help: ArgumentHelp("--smart: constant rate factor of the re-encoded pictures (default 12).", valueName: "crf"))
    var crf: Double?

    @Option(help: ArgumentHelp("--smart: average bitrate of the re-encoded pictures in kbit/s, instead of --crf.", valueName: "kbps"))
    var bitrate: Int?

    @Option(name: .customLong("preset"), help: ArgumentHelp("--smart: x264/x265 preset of the re-encoded pictures (default medium).", valueName: "name"))
    var preset: String?

    @Option(help: "--smart: encoder of the re-encoded pictures: x264 (H.264, default), x265 (HEVC, default) or openh264 (Constrained Baseline H.264 sources).")
    var encoder: EncoderName?

    var isSet: Bool { crf != nil || bitrate != nil || preset != nil || encoder != nil }

    /// `--crf`, `--bitrate`, `--preset` and `--encoder` need `--smart`, or what implies it (`trim --keep`).
    func check(smart: Bool) throws {
        if !smart && isSet { throw ValidationError("--crf, --bitrate, --preset and --encoder go with --smart.") }
    }

    func validate() throws {
        if crf != nil && bitrate != nil { throw ValidationError("Give --crf or --bitrate, not both.") }
        if let bitrate, !(1...2_000_000).contains(bitrate) { throw ValidationError("--bitrate: \(bitrate) kbit/s must be between 1 and 2000000.") }
    }

    var rateControl: RateControl {
        if let bitrate { return .bitrate(bitrate * 1000) }
        return .crf(crf ?? 12)
    }
}

extension Trim {
    /// Runs a smart trim.
    func runSmart(options: MediaSourceOptions, start: MediaTime, end: MediaTime?) throws {
        guard to != .mp4 || mp4.layout != .fragmented else { throw CLIError.usage("--smart", "does not write fragmented MP4") }
        var logger = Logger(label: "nalu.trim.smart")
        logger.logLevel = .error
        let trimmer: SmartTrimmer
        do {
            // The encoder is chosen below, from the codec the input turns out to have.
            trimmer = try SmartTrimmer(path: input, options: options, frameRate: fps?.rational, decoder: AVCodecDecoderFactory(),
                                       encoder: X264BackendFactory(logger: logger))
        } catch let error as NALUError where error.field == "standard input" {
            throw CLIError.usage("standard input", error.detail ?? "read twice", hint: "give it as a file; MP4 may come through a pipe")
        } catch let error as NALUError where error.code == .invalidValue && error.field.hasPrefix("--") {
            throw ValidationError("\(error.field): \(error.detail ?? "does not apply to this input")")
        }
        let probe = trimmer.source
        if to == .mp4 { try mp4.check(codec: probe.codec) }
        if let choice = smartOptions.encoder, choice.codec != probe.codec {
            throw CLIError.usage("--encoder", "\(choice.rawValue) encodes \(choice.codec == .hevc ? "HEVC" : "H.264"); the input is \(probe.codec == .hevc ? "HEVC" : "H.264")")
        }
        switch smartOptions.encoder {
        case .openh264?: trimmer.encoder = OpenH264BackendFactory(logger: logger)
        default: if probe.codec == .hevc { trimmer.encoder = X265BackendFactory(logger: logger) }
        }
        trimmer.rateControl = smartOptions.rateControl
        if let preset = smartOptions.preset { trimmer.preset = preset }
        var muxerOptions = mp4.muxerOptions(frameRate: nil)
        muxerOptions.editList = nil
        // Rotation, creation times, location and the `.mov` brand, as a plain trim keeps them.
        muxerOptions.metadata = try outputMetadata(from: probe, output: output)
        let file = try FileSink(path: output)
        let report: SmartTrimmer.Report
        do {
            switch to {
            case .annexb: report = try trimmer.writeAnnexB(start: start, end: end, output: file)
            case .avcc: report = try trimmer.writeLengthPrefixed(start: start, end: end, output: file)
            case .ts, .m2ts:
                var tsOptions = TransportStreamMuxerOptions()
                tsOptions.maxAccessUnitSize = mp4.maxAccessUnitSize
                tsOptions.writer.timestampedPackets = to == .m2ts
                report = try trimmer.writeTransportStream(start: start, end: end, output: file, options: tsOptions, audio: !noAudio)
            case .mp4: report = try trimmer.writeMP4(start: start, end: end, output: file, options: muxerOptions, audio: !noAudio)
            }
        } catch let error as NALUError where error.field.hasPrefix("--") {
            throw CLIError.usage(error.field, error.detail ?? "\(error.code)")
        }
        try file.commit()
        // Tracks not carried are named; audio left out without --no-audio: exit status 2.
        let lost = probe.reportNotCarried(carried: Set(report.audioTrackIDs + report.otherTrackIDs), noAudio: noAudio, to: to, input: input)
        for note in report.sink.notes { StandardError.write("nalu: note: \(note)\n") }
        if verbose {
            StandardError.write("nalu: smart trim: \(report.plan.pictureCount) pictures shown: \(report.headPictures) re-encoded before, "
                                + "\(report.copiedAccessUnits) access units copied, \(report.tailPictures) re-encoded after"
                                + (report.plan.rewritesCopyPointAsBLA ? "; the CRA copy point written as BLA" : "")
                                + ", \(report.audioTracks) audio track(s)\n")
        }
        try lost?.fail()
    }
}
