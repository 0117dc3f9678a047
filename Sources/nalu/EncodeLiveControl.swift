import ArgumentParser
import Logging
import NALU
import NALUEncoder
import NALUX264
import NALUX265

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

/// `FRAME:RATE`, e.g. `120:400k`.
struct BitrateChange: ExpressibleByArgument, Hashable {
    var frame: Int
    var rate: BitRate

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let frame = Int(parts[0]), frame >= 0, let rate = BitRate(argument: String(parts[1])) else { return nil }
        self.frame = frame
        self.rate = rate
    }
}

/// `FRAME[,FRAME…]`.
struct FrameList: ExpressibleByArgument, Hashable {
    var frames: [Int]

    init?(argument: String) {
        var frames: [Int] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let frame = Int(part), frame >= 0 else { return nil }
            frames.append(frame)
        }
        guard !frames.isEmpty else { return nil }
        self.frames = frames
    }
}

/// Applies the live controls as frames go in and remembers how each change was made.
struct LiveControl {
    /// One change made.
    struct Applied {
        var frame: Int64
        /// `nil` for a forced IDR.
        var bitsPerSecond: Int?
        /// Whether the running encoder took the change (a forced IDR always is); `false`: the
        /// encoder was rebuilt.
        var live: Bool
    }

    private var bitrates: [Int64: Int] = [:]
    private var idrs: Set<Int64> = []
    private(set) var applied: [Applied] = []

    init(_ options: LiveControlOptions) {
        for change in options.bitrateAt { bitrates[Int64(change.frame)] = change.rate.bitsPerSecond }
        for list in options.idrAt { for frame in list.frames { idrs.insert(Int64(frame)) } }
    }

    /// Makes the changes due before frame `index`.
    mutating func beforeFrame(_ index: Int64, session: EncoderSession) throws {
        if let rate = bitrates[index] {
            let live = try session.setBitrate(rate)
            applied.append(Applied(frame: index, bitsPerSecond: rate, live: live))
        }
        if idrs.contains(index) {
            session.requestKeyframe()
            applied.append(Applied(frame: index, bitsPerSecond: nil, live: true))
        }
    }

    /// The changes asked for at frames the input did not reach (`frames`: how many were
    /// encoded), as warning lines: `--idr-at 500: the input ended after 300 frames; not applied`
    /// (issue 32 item 12).
    func unreached(frames: Int64) -> [String] {
        let bitrateFrames = bitrates.keys.filter { $0 >= frames }.sorted().map { "--bitrate-at \($0)" }
        let idrFrames = idrs.filter { $0 >= frames }.sorted().map { "--idr-at \($0)" }
        return (bitrateFrames + idrFrames).map { "\($0): the input ended after \(frames) frame\(frames == 1 ? "" : "s"); not applied" }
    }

    /// Adds the changes to the summary line (`; bitrate 400 kbit/s at frame 120 (rebuild)`) and
    /// to its JSON (`live_changes`: `frame`, `kind` "bitrate"/"idr", `bitrate`, `live`).
    func annotate(_ summary: inout EncodeSummary) {
        guard !applied.isEmpty else { return }
        for change in applied {
            if let rate = change.bitsPerSecond {
                summary.line += "; bitrate \(decimal(Double(rate) / 1000)) kbit/s at frame \(change.frame) (\(change.live ? "live" : "rebuild"))"
            } else {
                summary.line += "; IDR at frame \(change.frame)"
            }
        }
        guard case .object(var members) = summary.object else { return }
        members.append(("live_changes", JSON.array(applied.map { change in
            var fields: [(String, JSON)] = [("frame", .int(change.frame)), ("kind", .string(change.bitsPerSecond == nil ? "idr" : "bitrate"))]
            if let rate = change.bitsPerSecond { fields.append(("bitrate", .int(Int64(rate)))) }
            fields.append(("live", .bool(change.live)))
            return JSON.object(fields)
        })))
        summary.object = .object(members)
    }

    /// The encoder factory for `codec`, logging x264's lines as `x264 [warning]: …` on standard
    /// error, and nothing at all (x265 included) with `--quiet`.
    static func factory(_ codec: Codec, quiet: Bool) -> any EncoderBackendFactory {
        let name = codec == .h264 ? "x264" : "x265"
        var logger = Logger(label: "nalu.\(name)") { _ in EncoderLogHandler(name: name) }
        logger.logLevel = quiet ? .critical : .warning
        return codec == .h264 ? X264BackendFactory(logger: logger) : X265BackendFactory(logger: logger)
    }
}

/// Writes encoder log lines to standard error as the encoders' own CLIs do: `x264 [warning]: …`.
struct EncoderLogHandler: LogHandler {
    var name: String
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        StandardError.write("\(name) [\(event.level)]: \(event.message)\n")
    }
}
