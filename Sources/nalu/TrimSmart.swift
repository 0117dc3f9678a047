import ArgumentParser
import Logging
import NALU
import NALUAVCodec
import NALUEncoder
import NALUIO
import NALUMP4
import NALUMedia
import NALUSmartCut
import NALUX264
import NALUX265

/// `nalu trim --smart` (issue 34): frame-exact without an edit list, re-encoding only the
/// partial GOPs at the ends (``SmartTrimmer``).
struct SmartTrimOptions: ParsableArguments {
    @Flag(help: "Frame-exact without an edit list: re-encode the pictures before the first keyframe in the range and after the last whole GOP, with the source's profile, level, entropy coding and VUI; copy the rest (MP4 output).")
    var smart = false

    @Option(help: ArgumentHelp("--smart: constant rate factor of the re-encoded pictures (default 12).", valueName: "crf"))
    var crf: Double?

    @Option(help: ArgumentHelp("--smart: average bitrate of the re-encoded pictures in kbit/s, instead of --crf.", valueName: "kbps"))
    var bitrate: Int?

    @Option(name: .customLong("preset"), help: ArgumentHelp("--smart: x264/x265 preset of the re-encoded pictures.", valueName: "name"))
    var preset: String?

    var isSet: Bool { crf != nil || bitrate != nil || preset != nil }

    /// `--crf`, `--bitrate` and `--preset` need `--smart`, or what implies it (`trim --keep`).
    func check(smart: Bool) throws {
        if !smart && isSet { throw ValidationError("--crf, --bitrate and --preset go with --smart.") }
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
    /// Runs a smart trim to MP4.
    func runSmart(options: MediaSourceOptions, start: MediaTime, end: MediaTime?) throws {
        guard to == .mp4 || to == .annexb else {
            throw CLIError.usage("--smart", "writes MP4 and Annex-B only for now", hint: "nalu trim in.mp4 --start 1 --end 3 --smart -o cut.mp4")
        }
        guard to == .annexb || mp4.layout != .fragmented else { throw CLIError.usage("--smart", "does not write fragmented MP4") }
        var logger = Logger(label: "nalu.trim.smart")
        logger.logLevel = .error
        let probe = try MediaSource(path: input, options: options)
        let encoder: any EncoderBackendFactory = probe.codec == .h264 ? X264BackendFactory(logger: logger) : X265BackendFactory(logger: logger)
        let trimmer = try SmartTrimmer(path: input, options: options, decoder: AVCodecDecoderFactory(), encoder: encoder)
        trimmer.rateControl = smartOptions.rateControl
        trimmer.preset = smartOptions.preset
        var muxerOptions = mp4.muxerOptions(frameRate: nil)
        muxerOptions.editList = nil
        let file = try FileSink(path: output)
        let report: SmartTrimmer.Report
        do {
            report = to == .annexb ? try trimmer.writeAnnexB(start: start, end: end, output: file)
                : try trimmer.writeMP4(start: start, end: end, output: file, options: muxerOptions, audio: !noAudio)
        } catch let error as NALUError where error.field.hasPrefix("--") {
            throw CLIError.usage(error.field, error.detail ?? "\(error.code)")
        }
        try file.commit()
        // Tracks not carried are named (nothing lost silently).
        let carried = Set(report.audioTrackIDs)
        let dropped = probe.otherTracks.filter { !carried.contains($0.trackID) && !(noAudio && $0.handler == "soun") }
        if !dropped.isEmpty {
            StandardError.write("nalu: note: \(input): \(dropped.map(\.description).joined(separator: ", ")) not carried; the cut has the video"
                                + (carried.isEmpty ? " track only\n" : " and audio tracks only\n"))
        }
        for note in report.sink.notes { StandardError.write("nalu: note: \(note)\n") }
        if verbose {
            StandardError.write("nalu: smart trim: \(report.plan.pictureCount) pictures shown: \(report.headPictures) re-encoded before, "
                                + "\(report.copiedAccessUnits) access units copied, \(report.tailPictures) re-encoded after"
                                + (report.plan.rewritesCopyPointAsBLA ? "; the CRA copy point written as BLA" : "")
                                + ", \(report.audioTracks) audio track(s)\n")
        }
    }
}
