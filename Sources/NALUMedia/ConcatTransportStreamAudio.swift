public import NALU
public import NALUMP4
public import NALUTS

/// How ``Concatenator`` joins the audio of transport stream inputs, and of MP4/MOV and transport
/// stream inputs mixed, as `ffmpeg -f concat` does: the k-th audio stream of every input (a
/// transport stream's AAC, AC-3 or MPEG audio, ``TransportStreamAudioReader``; an MP4/MOV's k-th
/// sound track) is joined into the output's k-th, each input's frames at their own times against
/// that input's pictures, so every input keeps its own A/V offset across the joins.
///
/// Every input must have as many audio streams as the first, each read by nalu, and the k-th
/// streams must agree in what a decoder needs (``ConcatAudioStreamFormat``: the same coding,
/// sample rate and channel count; for AAC the same object type). Otherwise nothing is joined and
/// ``plan(count:timing:frameRate:open:)`` says why.
///
/// Where each input starts: with the inputs' own times (``ConcatTiming``), where its presentation
/// starts in the output (``ConcatTiming/inputStart(_:scale:)``: a transport stream's first
/// picture, an MP4's movie time 0), its frames at their times from there (a transport stream's
/// PTS less its first picture's, an MP4 sample's place on its movie's timeline, ISO/IEC 14496-12
/// 8.6.6 edit list applied). With the pictures laid at one frame rate, input *k*'s first picture
/// presents after the pictures of the inputs before it (``begin(_:picturesBefore:)``), its frames
/// at their times against that picture. Where the end of one input's audio and the start of the
/// next overlap by more than half a frame (a cut's audio runs on past its last picture), the
/// next input's frames that would start inside the previous frame are left out
/// (``ConcatTransportStreamAudioStream/dropped``): a join costs at most one frame, and no error
/// accumulates over the joins.
public final class ConcatTransportStreamAudio {
    /// One input's audio: where to open it again and how its times count.
    struct Input {
        let path: String
        /// A transport stream's packet size and audio streams; `nil` for an MP4/MOV.
        let packetSize: Int?
        let streams: [ProgramElement]
        /// A transport stream: the PTS (90 kHz) its frames count from, unwrapped near its
        /// audio's. An MP4/MOV: 90 kHz ticks its frames' movie times count from (its video's
        /// start delay when timed at a rate, else 0).
        let origin: Int64
    }

    let inputs: [Input]
    /// Opens input `i` again (its MP4 sound tracks are read from it).
    let open: (Int) throws(NALUError) -> MediaSource
    /// Each joined stream as the first input has it (its coding, configuration, language).
    public let formats: [ConcatAudioStreamFormat]
    /// Each joined stream's first frame's time in the output (90 kHz from its presentation start).
    let firstTimes: [Int64]
    /// Where each input's frames count from in the output (90 kHz from its presentation start),
    /// once its turn has come.
    private var videoStarts: [Int64?]
    /// The inputs' own times, or `nil` when the pictures are laid at ``frameRate``.
    let timing: ConcatTiming?
    let frameRate: Rational?

    private init(inputs: [Input], open: @escaping (Int) throws(NALUError) -> MediaSource, formats: [ConcatAudioStreamFormat], firstTimes: [Int64],
                 timing: ConcatTiming?, frameRate: Rational?) {
        self.inputs = inputs
        self.open = open
        self.formats = formats
        self.firstTimes = firstTimes
        self.timing = timing
        self.frameRate = frameRate
        videoStarts = Array(repeating: nil, count: inputs.count)
    }

    /// The join of the audio streams of `count` MP4/MOV and transport stream inputs that `open`
    /// gives in turn (each let go before the next is opened), timed by `timing` (the inputs'
    /// own times), else with the pictures laid at `frameRate`; `nil` with the reason (one phrase)
    /// when they cannot all be joined. `(nil, nil)` when no input has audio.
    /// - Throws: ``NALU/NALUError`` (typed): what `open` throws; a malformed input.
    public static func plan(count: Int, timing: ConcatTiming? = nil, frameRate: Rational?,
                            open: @escaping (Int) throws(NALUError) -> MediaSource) throws(NALUError) -> (audio: ConcatTransportStreamAudio?, reason: String?) {
        guard count > 0 else { return (nil, "no input") }
        var inputs: [Input] = []
        var formats: [ConcatAudioStreamFormat] = []
        var firstTimes: [Int64] = []
        var firstPath = ""
        for position in 0..<count {
            let source = try open(position)
            var found: [ConcatAudioStreamFormat] = []
            var times: [Int64] = []
            let input: Input
            if case .transportStream(let packetSize) = source.container, let program = source.transportStream {
                let audio = program.otherStreams.filter(\.isAudio)
                // Each stream is read by a pass of its own: a pipe cannot be read again.
                if !audio.isEmpty, source.path == "-" { return (nil, "standard input's audio cannot be read again: give it as a file") }
                let readers = try source.transportStreamAudioStreams()
                guard readers.count == audio.count else {
                    let unread = audio.filter { stream in !readers.contains { $0.pid == stream.pid } }.map(\.description)
                    return (nil, "\(source.path)'s \(unread.joined(separator: ", ")) is not AAC, AC-3 or MPEG audio nalu reads")
                }
                let video = timing?.inputOrigins[position] ?? source.transportStreamVideoStart
                let origin = SampleClock.unwrap(video ?? readers.first?.firstPTS ?? 0, near: readers.first?.firstPTS ?? video ?? 0)
                for reader in readers {
                    found.append(try ConcatAudioStreamFormat(reader))
                    times.append(SampleClock.unwrap(reader.firstPTS, near: origin) &- origin)
                }
                input = Input(path: source.path, packetSize: packetSize, streams: readers.map(\.stream), origin: origin)
            } else if let movie = try source.movie() {
                let sound = movie.tracks.filter(\.track.isAudio)
                for (index, reader) in sound.enumerated() {
                    var samples = reader.samples()
                    let first = try samples.next()
                    guard let format = ConcatAudioStreamFormat(reader.track, firstSampleDuration: first?.duration) else {
                        return (nil, "\(source.path)'s audio track \(index + 1) is not AAC that ADTS can carry, AC-3 or MPEG audio")
                    }
                    found.append(format)
                    times.append(try first.map { (sample) throws(NALUError) in try MP4SoundFrames.time(of: sample, track: reader.track, movieTimescale: movie.movieTimescale) } ?? 0)
                }
                let delay = timing == nil ? MP4SoundFrames.videoDelay(source) : 0
                input = Input(path: source.path, packetSize: nil, streams: [], origin: delay)
                times = times.map { $0 &- delay }
            } else {
                return (nil, "\(source.path) is not MP4/MOV or MPEG-TS")
            }
            if position == 0 {
                (formats, firstTimes, firstPath) = (found, times, source.path)
            } else {
                guard found.count == formats.count else {
                    let noun = source.container.isTransportStream ? "audio stream" : "audio track"
                    return (nil, "\(source.path) has \(found.count) \(noun)\(found.count == 1 ? "" : "s"), \(firstPath) has \(formats.count)")
                }
                for (index, (format, joined)) in zip(found, formats).enumerated() where format.difference(from: joined) != nil {
                    return (nil, "\(source.path)'s audio stream \(index + 1) is coded unlike \(firstPath)'s (\(format.summary))")
                }
            }
            inputs.append(input)
        }
        guard !formats.isEmpty else { return (nil, nil) }
        if timing == nil {
            guard let frameRate, frameRate.numerator > 0, frameRate.denominator > 0 else {
                return (nil, "the output's frame rate is not known")
            }
        }
        return (ConcatTransportStreamAudio(inputs: inputs, open: open, formats: formats, firstTimes: firstTimes, timing: timing, frameRate: frameRate), nil)
    }

    /// Input `position`'s turn: `picturesBefore` pictures of the inputs before it were written.
    /// With the inputs' own times its frames count from where its presentation starts
    /// (``ConcatTiming/inputStart(_:scale:)``); at a frame rate from that many frame durations
    /// after the output's first picture.
    public func begin(_ position: Int, picturesBefore: Int) {
        guard videoStarts.indices.contains(position) else { return }
        if let timing {
            videoStarts[position] = timing.inputStart(position, scale: 90_000) ?? Int64.max / 2
            return
        }
        guard let frameRate, frameRate.numerator > 0 else { return }
        // picturesBefore · 90000 · den / num, saturating (a malformed rate gives wrong times, never a trap).
        let ticks = CheckedNumber.product(Int64(picturesBefore), 90_000).flatMap { CheckedNumber.product($0, frameRate.denominator) }
        videoStarts[position] = (ticks ?? Int64.max / 2) / frameRate.numerator
    }

    /// Where input `position`'s frames count from in the output, once its turn has come.
    func videoStart(_ position: Int) -> Int64? { videoStarts[position] }

    /// The joined stream `index`, read input by input.
    public func stream(_ index: Int) -> ConcatTransportStreamAudioStream { ConcatTransportStreamAudioStream(join: self, index: index) }
}

/// The frames of an MP4/MOV input's sound track for a join, with their times (90 kHz) on the
/// input's presentation timeline (ISO/IEC 14496-12 8.6.6: the track's leading empty edits, then
/// its media from the first non-empty edit's `media_time`; priming before it comes out negative).
struct MP4SoundFrames {
    private let reader: MP4TrackReader<AnyRandomAccessSource>
    private var samples: MP4SampleIterator<AnyRandomAccessSource>
    private let movieTimescale: UInt32
    /// The source, held while its track is read.
    private let source: MediaSource
    private var buffer: [UInt8] = []

    /// Sound track `index` of `source`, or `nil` when it has none.
    init?(_ source: MediaSource, index: Int) throws(NALUError) {
        guard let movie = try source.movie() else { return nil }
        let sound = movie.tracks.filter(\.track.isAudio)
        guard sound.indices.contains(index) else { return nil }
        reader = sound[index]
        samples = reader.samples()
        movieTimescale = movie.movieTimescale
        self.source = source
    }

    /// The next frame and its time, or `nil` at the end of the track.
    mutating func next() throws(NALUError) -> (frame: [UInt8], time: Int64)? {
        guard let sample = try samples.next() else { return nil }
        try reader.read(sample, into: &buffer)
        return (buffer, try Self.time(of: sample, track: reader.track, movieTimescale: movieTimescale))
    }

    /// Where `sample` presents on its movie's timeline, 90 kHz.
    static func time(of sample: MP4Sample, track: MP4Track, movieTimescale: UInt32) throws(NALUError) -> Int64 {
        let start = track.presentationStart
        guard let delay = CheckedNumber.int64(start.delay),
              let lead = CheckedNumber.rescale(delay, from: Int64(max(1, movieTimescale)), to: 90_000),
              let offset = CheckedNumber.rescale(sample.pts &- start.mediaTime, from: Int64(max(1, track.timescale)), to: 90_000),
              let time = CheckedNumber.sum(lead, offset) else {
            throw NALUError(.invalidValue, field: "audio sample time", detail: "sample \(sample.index) of track \(track.trackID) is past 64 bits")
        }
        return time
    }

    /// The video's start delay (its leading empty edits), 90 kHz: what a join timed at a frame
    /// rate counts an MP4 input's audio from (its first picture).
    static func videoDelay(_ source: MediaSource) -> Int64 {
        guard let track = source.mp4?.track, let delay = CheckedNumber.int64(track.presentationStart.delay) else { return 0 }
        return CheckedNumber.rescale(delay, from: Int64(max(1, track.movieTimescale)), to: 90_000) ?? 0
    }
}

/// One joined audio stream of a ``ConcatTransportStreamAudio``: every input's frames in turn, each
/// with its time in the output (90 kHz from the output's presentation start). Each input's
/// stream is opened when its turn comes and closed after it.
public final class ConcatTransportStreamAudioStream {
    /// What ``next()`` gives.
    public enum Step {
        /// A frame and its time in the output (90 kHz from the presentation start).
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
    private var sound: MP4SoundFrames?
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
    public var format: ConcatAudioStreamFormat { join.formats[index] }

    /// Where the first frame presents in the output (90 kHz from its presentation start).
    public var firstTime: Int64 { join.firstTimes[index] }

    /// One frame's duration in 90 kHz ticks.
    public var frameTicks: Int64 { Int64(format.samplesPerFrame) * 90_000 / Int64(max(1, format.sampleRate)) }

    /// The next frame of the current input and its time on that input's own timeline, or `nil`
    /// when its frames are done.
    private func nextOfInput(_ input: ConcatTransportStreamAudio.Input) throws(NALUError) -> (frame: [UInt8], time: Int64)? {
        if input.packetSize == nil {
            if sound == nil {
                guard let opened = try MP4SoundFrames(try join.open(position), index: index) else {
                    throw NALUError(.missing, field: "audio track", detail: "\(input.path): audio track \(index + 1) is gone")
                }
                sound = opened
            }
            guard let frame = try sound?.next() else { return nil }
            return (frame.frame, frame.time &- input.origin)
        }
        if reader == nil {
            guard let opened = try TransportStreamAudioReader(path: input.path, packetSize: input.packetSize ?? 188, stream: input.streams[index]) else {
                throw NALUError(.missing, field: "audio stream", detail: "\(input.path): PID \(input.streams[index].pid) has no frame now")
            }
            reader = opened
        }
        guard let reader, let frame = try reader.next() else { return nil }
        return (frame.frame, frame.pts &- input.origin)
    }

    /// The next frame with its output time, or why there is none yet.
    /// - Throws: ``NALU/NALUError`` (typed): an input that cannot be read again, or a malformed frame.
    public func next() throws(NALUError) -> Step {
        while position < join.inputs.count {
            guard let start = join.videoStart(position) else { return .wait }
            let input = join.inputs[position]
            guard let frame = try nextOfInput(input) else {
                // This input's frames are done: the next input's.
                reader = nil
                sound = nil
                position += 1
                continue
            }
            let time = start &+ frame.time
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
        muxer.alsoBeforeVideo { [unowned muxer] (time) throws(NALUError) in try self.push(upTo: time, muxer: muxer) }
    }

    private func push<Sink: ByteSink>(upTo time: Int64?, muxer: TransportStreamMuxer<Sink>) throws(NALUError) {
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
            try frame.frame.withBytes { (bytes) throws(NALUError) in try muxer.pushAudio(bytes, time: frame.time, timescale: 90_000, stream: muxerStream) }
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
        stream.format.mp4Track(firstTime: stream.firstTime, movieTimescale: movieTimescale)
    }

    /// The next frame, or `nil` (`waiting` true when the next input's times are not known yet).
    private func fetch() throws(NALUError) -> (frame: (frame: [UInt8], time: Int64)?, waiting: Bool) {
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
    /// - Throws: ``NALU/NALUError`` (typed): a malformed input, or the writer's error.
    public func advance<Sink: ByteSink>(to decodeTime: Int64?, timescale: UInt32, writer: MP4Writer<Sink>) throws(NALUError) {
        let rate = Int64(max(1, stream.format.sampleRate))
        let whole = Int64(stream.format.samplesPerFrame)
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
