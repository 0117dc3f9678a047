import NALU
import NALUExport
import NALUMedia
import NALUTS

/// Audio an output could not hold although `--no-audio` was not given, subtitle, timecode and
/// data tracks not carried, or programs of a transport stream input not read although `--pid`
/// did not choose one (``NALUExport/CarriageLoss``): the output is written, then ``fail()``
/// exits with status 2 (Docs/cli.md), so a script sees the loss.
typealias NotCarried = CarriageLoss

extension CarriageLoss {
    static let status: Int32 = 2

    func fail() throws { throw CLIError(input, message, hint: hint, status: Self.status) }
}

extension OutputFraming {
    /// What this output carries beside the video.
    var carriageTarget: CarriageTarget {
        switch self {
        case .mp4: .mp4
        case .ts, .m2ts: .transportStream
        case .annexb, .avcc: .elementaryStream
        }
    }

    /// The library's output format for this framing with the MP4 options given (`frameRate`:
    /// `--fps`, where the output has no times of its own).
    func format(_ mp4: MP4OutputOptions, frameRate: Rational? = nil) -> CutOutputFormat {
        switch self {
        case .mp4: return .mp4(mp4.muxerOptions(frameRate: frameRate))
        case .annexb: return .annexB(maxAccessUnitSize: mp4.maxAccessUnitSize)
        case .avcc: return .lengthPrefixed
        case .ts, .m2ts:
            var options = TransportStreamMuxerOptions(frameRate: frameRate)
            options.maxAccessUnitSize = mp4.maxAccessUnitSize
            options.writer.timestampedPackets = self == .m2ts
            return .transportStream(options)
        }
    }
}

extension MediaSource {
    /// What `to` carries of this input (see ``NALUExport/CarriedTracks``).
    func carriedTracks(to: OutputFraming, noAudio: Bool) throws -> CarriedTracks {
        try carriedTracks(to: to.carriageTarget, noAudio: noAudio)
    }

    /// Names the tracks or streams left out (a note), and returns the loss among them
    /// (``NALUExport/MediaSource/carriageLoss(carried:noAudio:to:input:reason:)``).
    func reportNotCarried(carried: Set<UInt32>, noAudio: Bool, to: OutputFraming, input: String, reason: String? = nil) -> NotCarried? {
        let (note, loss) = carriageLoss(carried: carried, noAudio: noAudio, to: to.carriageTarget, input: input, reason: reason)
        if let note { StandardError.write("nalu: note: \(note)\n") }
        return loss
    }
}

/// Prints what a cut or join did: its notes and warnings, its summary with `--verbose`; exits
/// with status 2 for what it did not carry.
func report(_ result: CutResult, verbose: Bool) throws {
    for message in result.messages { StandardError.write("nalu: \(message.kind): \(message.text)\n") }
    if verbose { StandardError.write("nalu: \(result.summary)\n") }
    try result.loss?.fail()
}
