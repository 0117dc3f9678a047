public import NALU
public import NALUMP4
public import NALUTS

/// How ``Concatenator`` joins the audio of transport stream inputs, as `ffmpeg -f concat` does:
/// the k-th audio stream of every input (AAC, AC-3 or MPEG audio, ``TransportStreamAudioReader``)
/// is joined into the output's k-th, each input's frames at their own PTS against that input's
/// first picture, so every input keeps its own A/V offset across the joins.
///
/// Every input must have as many audio streams as the first, each read by nalu, and the k-th
/// streams must agree in what a decoder needs: the same coding, sample rate and channel count
/// (for AAC the same AudioSpecificConfig). Otherwise nothing is joined and ``plan(count:open:)``
/// says why.
///
/// The inputs' pictures are laid end to end at one frame rate (``Concatenator``): input *k*'s
/// first picture presents after the pictures of the inputs before it
/// (``begin(_:picturesBefore:)``). Its audio frame of PTS *p* goes to that time plus
/// *p* − (the PTS of its first picture). Where the end of one input's audio and the start of the
/// next overlap by more than half a frame (a cut's audio runs on past its last picture), the
/// next input's frames that would start inside the previous frame are left out
/// (``ConcatTransportStreamAudioStream/dropped``): a join costs at most one frame, and no error
/// accumulates over the joins.
public final class ConcatTransportStreamAudio {
    /// One input's audio stream: where to open it again.
    struct Input {
        let path: String
        let packetSize: Int
        let streams: [ProgramElement]
        /// The PTS (90 kHz) of the input's first picture, unwrapped near its audio's.
        let videoOrigin: Int64?
    }

    let inputs: [Input]
    /// Each joined stream as the first input has it (its coding, configuration, language).
    public let first: [TransportStreamAudioReader]
    /// Where each input's first picture presents in the output (90 kHz from the output's first
    /// picture), once its turn has come.
    private var videoStarts: [Int64?]
    /// The output's frame rate: input *k* starts after the pictures before it at this rate.
    let frameRate: Rational

    private init(inputs: [Input], first: [TransportStreamAudioReader], frameRate: Rational) {
        self.inputs = inputs
        self.first = first
        self.frameRate = frameRate
        videoStarts = Array(repeating: nil, count: inputs.count)
    }

    /// The join of the audio streams of `count` transport stream inputs that `open` gives in
    /// turn (each let go before the next is opened), the pictures laid at `frameRate`; `nil` with
    /// the reason (one phrase) when they cannot all be joined. `(nil, nil)` when no input has audio.
    public static func plan(count: Int, frameRate: Rational?, open: (Int) throws -> MediaSource) throws -> (audio: ConcatTransportStreamAudio?, reason: String?) {
        guard count > 0 else { return (nil, "no input") }
        var inputs: [Input] = []
        var first: [TransportStreamAudioReader] = []
        var firstPath = ""
        for position in 0..<count {
            let source = try open(position)
            guard case .transportStream(let packetSize) = source.container, let program = source.transportStream else {
                return (nil, "\(source.path) is not MPEG-TS")
            }
            let audio = program.otherStreams.filter(\.isAudio)
            // Each stream is read by a pass of its own: a pipe cannot be read again.
            if !audio.isEmpty, source.path == "-" { return (nil, "standard input's audio cannot be read again: give it as a file") }
            let readers = try source.transportStreamAudioStreams()
            guard readers.count == audio.count else {
                let unread = audio.filter { stream in !readers.contains { $0.pid == stream.pid } }.map(\.description)
                return (nil, "\(source.path)'s \(unread.joined(separator: ", ")) is not AAC, AC-3 or MPEG audio nalu reads")
            }
            if position == 0 {
                (first, firstPath) = (readers, source.path)
            } else {
                guard readers.count == first.count else {
                    return (nil, "\(source.path) has \(readers.count) audio stream\(readers.count == 1 ? "" : "s"), \(firstPath) has \(first.count)")
                }
                for (index, (reader, joined)) in zip(readers, first).enumerated() {
                    guard reader.coding == joined.coding, reader.sampleRate == joined.sampleRate, reader.channelCount == joined.channelCount,
                          reader.audioSpecificConfig == joined.audioSpecificConfig else {
                        return (nil, "\(source.path)'s audio stream \(index + 1) is coded unlike \(firstPath)'s "
                                + "(\(reader.coding), \(reader.sampleRate) Hz, \(reader.channelCount) channels)")
                    }
                }
            }
            let origin = source.transportStreamVideoStart.map { SampleClock.unwrap($0, near: readers.first?.firstPTS ?? $0) }
            inputs.append(Input(path: source.path, packetSize: packetSize, streams: readers.map(\.stream), videoOrigin: origin))
        }
        guard !first.isEmpty else { return (nil, nil) }
        guard let frameRate, frameRate.numerator > 0, frameRate.denominator > 0 else {
            return (nil, "the output's frame rate is not known")
        }
        return (ConcatTransportStreamAudio(inputs: inputs, first: first, frameRate: frameRate), nil)
    }

    /// Input `position`'s turn: `picturesBefore` pictures of the inputs before it were written,
    /// so its first picture presents that many frame durations after the output's first.
    public func begin(_ position: Int, picturesBefore: Int) {
        guard videoStarts.indices.contains(position) else { return }
        // picturesBefore · 90000 · den / num, saturating (a malformed rate gives wrong times, never a trap).
        let ticks = CheckedNumber.product(Int64(picturesBefore), 90_000).flatMap { CheckedNumber.product($0, frameRate.denominator) }
        videoStarts[position] = (ticks ?? Int64.max / 2) / frameRate.numerator
    }

    /// Where input `position`'s first picture presents in the output, once its turn has come.
    func videoStart(_ position: Int) -> Int64? { videoStarts[position] }

    /// The joined stream `index`, read input by input.
    public func stream(_ index: Int) -> ConcatTransportStreamAudioStream { ConcatTransportStreamAudioStream(join: self, index: index) }
}

/// One joined audio stream of a ``ConcatTransportStreamAudio``: every input's frames in turn, each
/// with its time in the output (90 kHz from the output's first picture). Each input's stream is
/// opened when its turn comes and closed after it.
public final class ConcatTransportStreamAudioStream {
    /// What ``next()`` gives.
    public enum Step {
        /// A frame and its time in the output (90 kHz from the first picture).
        case frame([UInt8], time: Int64)
        /// The next input's pictures have not started yet: its frames' times are not known.
        case wait
        /// Every input's frames were given.
        case end
    }

    private let join: ConcatTransportStreamAudio
    /// Which of each input's audio streams.
    public let index: Int
    private var position = 0
    private var reader: TransportStreamAudioReader?
    /// The end of the last frame given (90 kHz, output time).
    private var lastEnd: Int64?
    /// Frames given, and frames left out because they overlapped the previous input's.
    public private(set) var given = 0
    public private(set) var dropped = 0

    init(join: ConcatTransportStreamAudio, index: Int) {
        self.join = join
        self.index = index
    }

    /// The joined stream as the first input has it (coding, configuration, language).
    public var first: TransportStreamAudioReader { join.first[index] }

    /// The PTS of the first input's first picture (its first audio frame's when it has none).
    public var firstVideoOrigin: Int64 { join.inputs.first?.videoOrigin ?? first.firstPTS }

    /// One frame's duration in 90 kHz ticks.
    public var frameTicks: Int64 { Int64(first.samplesPerFrame) * 90_000 / Int64(max(1, first.sampleRate)) }

    /// The next frame with its output time, or why there is none yet.
    public func next() throws -> Step {
        while position < join.inputs.count {
            guard let start = join.videoStart(position) else { return .wait }
            let input = join.inputs[position]
            if reader == nil {
                guard let opened = try TransportStreamAudioReader(path: input.path, packetSize: input.packetSize, stream: input.streams[index]) else {
                    throw NALUError(.missing, field: "audio stream", detail: "\(input.path): PID \(input.streams[index].pid) has no frame now")
                }
                reader = opened
            }
            guard let reader, let frame = try reader.next() else {
                // This input's frames are done: the next input's.
                self.reader = nil
                position += 1
                continue
            }
            let origin = input.videoOrigin ?? reader.firstPTS
            let time = start &+ (frame.pts &- origin)
            if let lastEnd, time < lastEnd &- frameTicks / 2 {
                // Starts inside the previous input's last frame.
                dropped += 1
                continue
            }
            lastEnd = time &+ frameTicks
            given += 1
            return .frame(frame.frame, time: time)
        }
        return .end
    }
}

/// Pushes a joined audio stream (``ConcatTransportStreamAudioStream``) into a
/// ``TransportStreamMuxer``, interleaved with the video by time: each frame at its output time.
public final class ConcatTransportStreamInputAudioFeeder {
    private let stream: ConcatTransportStreamAudioStream
    private let muxerStream: Int
    private var next: (frame: [UInt8], time: Int64)?
    private var ended = false
    /// Frames pushed so far.
    public private(set) var pushed = 0
    /// Frames left out at the joins (``ConcatTransportStreamAudioStream/dropped``).
    public var dropped: Int { stream.dropped }

    /// - Parameter muxerStream: the muxer's audio stream the frames go to (``NALUTS/TransportStreamMuxer/addAudio(_:)``).
    public init(_ stream: ConcatTransportStreamAudioStream, muxerStream: Int) {
        self.stream = stream
        self.muxerStream = muxerStream
    }

    /// Wires the feeder to `muxer` beside the feeders already there.
    public func attach<Sink: ByteSink>(to muxer: TransportStreamMuxer<Sink>) {
        muxer.alsoBeforeVideo { [unowned muxer] time in try self.push(upTo: time, muxer: muxer) }
    }

    private func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws {
        while true {
            if next == nil && !ended {
                switch try stream.next() {
                case .frame(let bytes, let at): next = (bytes, at)
                case .wait: return
                case .end: ended = true
                }
            }
            guard let frame = next else { return }
            if let time, frame.time > time { return }
            try frame.frame.withUnsafeBytes { try muxer.pushAudio($0, time: frame.time, timescale: 90_000, stream: muxerStream) }
            pushed += 1
            next = nil
        }
    }
}

/// Appends a joined audio stream (``ConcatTransportStreamAudioStream``) to an ``MP4Writer``'s
/// passthrough track, about half a second ahead of the video (as ``MP4PassthroughInterleaver``):
/// each frame lasts until the next one's output time (whole frames between, a join's gap or
/// overlap taken up by the frame before it), so every frame starts where its own PTS puts it
/// within one sample; at the end the track's edit list (ISO/IEC 14496-12 8.6.6) places the first
/// frame against the first picture (an empty edit when it starts later, a `media_time` when earlier).
public final class ConcatTransportStreamInputMP4Feeder {
    private let stream: ConcatTransportStreamAudioStream
    private let track: Int
    private let movieScale: Int64
    private var next: (frame: [UInt8], time: Int64)?
    private var following: (frame: [UInt8], time: Int64)?
    private var ended = false
    private var firstTime: Int64?
    /// Samples appended so far (the track's media time).
    private var time: Int64 = 0
    /// Frames appended so far.
    public private(set) var appended = 0
    /// Frames left out at the joins.
    public var dropped: Int { stream.dropped }

    /// - Parameters:
    ///   - track: the writer's passthrough track.
    ///   - movieTimescale: the movie's timescale, which the edit list's durations are in.
    public init(_ stream: ConcatTransportStreamAudioStream, track: Int, movieTimescale: UInt32) {
        self.stream = stream
        self.track = track
        movieScale = Int64(max(1, movieTimescale))
    }

    /// The output track for the joined stream: the first input's sample entry, language and
    /// sample rate, with the edit list its first frame implies (replaced at the end).
    public static func track(_ stream: ConcatTransportStreamAudioStream, movieTimescale: UInt32) -> MP4PassthroughTrack {
        stream.first.mp4Track(origin: stream.firstVideoOrigin, movieTimescale: movieTimescale)
    }

    /// The next frame, or `nil` (`waiting` true when the next input's times are not known yet).
    private func fetch() throws -> (frame: (frame: [UInt8], time: Int64)?, waiting: Bool) {
        if ended { return (nil, false) }
        switch try stream.next() {
        case .frame(let bytes, let at): return ((bytes, at), false)
        case .wait: return (nil, true)
        case .end:
            ended = true
            return (nil, false)
        }
    }

    /// Appends the frames due before a video sample decoding at `decodeTime` / `timescale` s
    /// (half a second ahead); `nil` appends the rest and sets the edit list.
    public func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws {
        let rate = Int64(max(1, stream.first.sampleRate))
        let whole = Int64(stream.first.samplesPerFrame)
        while true {
            if next == nil {
                let (frame, waiting) = try fetch()
                if waiting { return }
                next = frame
            }
            guard let frame = next else { break }
            if let decodeTime {
                // time / rate ≥ decodeTime / timescale + 1/2: later.
                let left = time.multipliedFullWidth(by: 2 * Int64(timescale))
                let right = (decodeTime &* 2 &+ Int64(timescale)).multipliedFullWidth(by: rate)
                if left.high > right.high || (left.high == right.high && left.low >= right.low) { return }
            }
            // Its duration: up to the following frame's place (which may not be known yet).
            if following == nil && !ended {
                let (after, waiting) = try fetch()
                if waiting { return }
                following = after
            }
            if firstTime == nil { firstTime = frame.time }
            var samples = whole
            if let following, let first = firstTime,
               let target = CheckedNumber.rescale(following.time &- first, from: 90_000, to: rate) {
                samples = min(max(1, target &- time), Int64(UInt32.max))
            }
            try writer.append(frame.frame, track: track, duration: UInt32(samples), compositionOffset: 0, isSync: true, sampleDescription: 1)
            time &+= samples
            appended += 1
            next = following
            following = nil
        }
        guard decodeTime == nil, let firstTime else { return }
        // Where the first frame presents against the first picture (90 kHz); times past 63 bits
        // (a malformed stream's) give an edit of 0, never a trap.
        let media = max(0, time)
        var edits: [MP4EditListEntry] = []
        var mediaTime: Int64 = 0
        if firstTime > 0 {
            let delay = CheckedNumber.rescale(firstTime, from: 90_000, to: movieScale) ?? 0
            edits.append(MP4EditListEntry(segmentDuration: UInt64(max(0, delay)), mediaTime: -1))
        } else if firstTime < 0 {
            mediaTime = min(media, max(0, CheckedNumber.rescale(0 &- firstTime, from: 90_000, to: rate) ?? media))
        }
        let presented = CheckedNumber.rescale(media - mediaTime, from: rate, to: movieScale) ?? 0
        edits.append(MP4EditListEntry(segmentDuration: UInt64(max(0, presented)), mediaTime: mediaTime))
        try writer.setEditList(edits, passthroughTrack: track)
    }
}
