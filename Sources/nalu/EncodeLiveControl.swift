import ArgumentParser
import NALUEncoder

/// `nalu encode`'s live controls (issue 14): bitrate changes and forced IDRs at chosen frames,
/// made through the session's live API, so the live and rebuild paths run end to end.
struct LiveControlOptions: ParsableArguments {
    @Option(name: .customLong("bitrate-at"),
            help: ArgumentHelp("Change the average bitrate before frame FRAME (from 0), e.g. 120:400k; repeatable. Live when the encoder allows it (x264 with VBV), else the encoder is rebuilt there with an IDR.",
                               valueName: "FRAME:RATE"))
    var bitrateAt: [BitrateChange] = []
    @Option(name: .customLong("idr-at"),
            help: ArgumentHelp("Force IDR pictures at these frames (from 0), e.g. 60,120; repeatable.", valueName: "FRAME[,FRAME…]"))
    var idrAt: [FrameList] = []

    func validate() throws {
        var seen = Set<Int>()
        for change in bitrateAt where !seen.insert(change.frame).inserted {
            throw ValidationError("--bitrate-at names frame \(change.frame) twice.")
        }
    }
}

/// `FRAME:RATE`, e.g. `120:400k` (``NALUEncoder/EncoderLiveChanges/bitrateChange(parsing:)``).
struct BitrateChange: ExpressibleByArgument, Hashable {
    var frame: Int
    var bitsPerSecond: Int

    init?(argument: String) {
        guard let change = EncoderLiveChanges.bitrateChange(parsing: argument) else { return nil }
        (frame, bitsPerSecond) = change
    }
}

/// `FRAME[,FRAME…]` (``NALUEncoder/EncoderLiveChanges/frames(parsing:)``).
struct FrameList: ExpressibleByArgument, Hashable {
    var frames: [Int]

    init?(argument: String) {
        guard let frames = EncoderLiveChanges.frames(parsing: argument) else { return nil }
        self.frames = frames
    }
}

extension LiveControlOptions {
    /// The changes asked for, as the library makes them.
    var changes: EncoderLiveChanges {
        var bitrates: [Int64: Int] = [:]
        for change in bitrateAt { bitrates[Int64(change.frame)] = change.bitsPerSecond }
        return EncoderLiveChanges(bitrates: bitrates, keyframes: Set(idrAt.flatMap(\.frames).map(Int64.init)))
    }
}
