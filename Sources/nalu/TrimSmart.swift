import ArgumentParser
import Logging
import NALU
import NALUAVCodec
import NALUEncoder
import NALUExport
import NALUIO
import NALUMedia
import NALUSmartCut
import NALUX264

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

    /// `--crf`, `--bitrate`, `--preset` and `--encoder` need `--smart`, or what implies it (`trim --keep`).
    func check(smart: Bool) throws {
        if !smart && (crf != nil || bitrate != nil || preset != nil || encoder != nil) { throw ValidationError("--crf, --bitrate, --preset and --encoder go with --smart.") }
    }

    func validate() throws {
        if crf != nil && bitrate != nil { throw ValidationError("Give --crf or --bitrate, not both.") }
        if let bitrate, !(1...2_000_000).contains(bitrate) { throw ValidationError("--bitrate: \(bitrate) kbit/s must be between 1 and 2000000.") }
    }

    var rateControl: RateControl {
        if let bitrate { return .bitrate(bitrate * 1000) }
        return .crf(crf ?? 12)
    }

    /// The encoder of `codec`'s re-encoded pictures: `--encoder`'s (which must encode `codec`),
    /// else x264 for H.264 and x265 for HEVC.
    func encoder(for codec: Codec) throws -> any EncoderBackendFactory {
        var logger = Logger(label: "nalu.smart")
        logger.logLevel = .error
        if let choice = encoder, choice.codec != codec {
            throw CLIError.usage("--encoder", "\(choice.rawValue) encodes \(choice.codec == .hevc ? "HEVC" : "H.264"); the input is \(codec == .hevc ? "HEVC" : "H.264")")
        }
        return EncoderLibrary.encoding(codec, chosen: encoder).factory(logger: logger)
    }
}

extension Trim {
    /// Runs a smart trim (``NALUSmartCut/SmartTrimmer``).
    func runSmart(options: MediaSourceOptions, start: MediaTime, end: MediaTime?) throws {
        guard to != .mp4 || mp4.layout != .fragmented else { throw CLIError.usage("--smart", "does not write fragmented MP4") }
        // The encoder is chosen below, from the codec the input turns out to have.
        let trimmer = try mappingOptionErrors(opening: true) {
            try SmartTrimmer(path: input, options: options, frameRate: fps?.rational, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        }
        if to == .mp4 { try mp4.check(codec: trimmer.source.codec) }
        trimmer.encoder = try smartOptions.encoder(for: trimmer.source.codec)
        trimmer.rateControl = smartOptions.rateControl
        if let preset = smartOptions.preset { trimmer.preset = preset }
        let result = try mappingOptionErrors {
            try trimmer.commit(start: start, end: end, input: input, to: FileSink(path: output), format: to.format(mp4), audio: !noAudio)
        }
        try report(result, verbose: verbose, noOtherTracks: otherTracks.noOtherTracks)
    }
}
