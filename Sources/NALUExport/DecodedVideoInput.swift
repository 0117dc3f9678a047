public import NALU
import NALUAVCodec
public import NALUDecoder
public import NALUEncoder
public import NALUMedia

/// A compressed input as frames for an encoder (``ExportSession``, `nalu encode IN`; issue 33
/// item 4): the pictures decoded on a thread of their own (``BackgroundDecoder``, at most
/// `framesInFlight` ahead), handed out in presentation order with their pts, no copy when the
/// formats match, scaled when asked (``scale(width:height:)``).
///
/// ```swift
/// let input = try DecodedVideoInput(path: "in.mp4", factory: AVCodecDecoderFactory())
/// while let frame = try input.nextFrame() { for packet in try session.encode(frame) { … } }
/// ```
public final class DecodedVideoInput {
    /// The input's path.
    public let path: String
    private let frames: BackgroundDecoder
    /// The first frame, read ahead for the size and format.
    private var first: Frame?
    /// The decoded pictures' pixel format.
    public let pixelFormat: PixelFormat
    /// The frames' width (after ``scale(width:height:)``).
    public private(set) var width: Int
    /// The frames' height (after ``scale(width:height:)``).
    public private(set) var height: Int
    private var scaler: FrameScaler?
    /// Whether `--scale` was given: every picture is brought to ``width``×``height``.
    private var scaling = false
    /// The size of the pictures ``scaler`` takes (the input's pictures may change size).
    private var scaledFrom = (width: 0, height: 0)
    /// The pts's time base: the MP4 track's timescale, 90 kHz for MPEG-TS; `nil` for raw
    /// streams, whose frames are numbered 0, 1, 2….
    public let timeBase: Rational?
    /// The input, opened for its container's facts (tracks, edit list, sample table).
    public let source: MediaSource
    /// The first picture's colour description and sample aspect ratio (the SPS VUI's).
    public private(set) var signal: (colour: ColourDescription, sampleAspectRatio: Rational?)?
    /// The pts of the first picture shown.
    public let firstPTS: Int64
    /// The stream's mastering display and content light level SEI, carried to the encoder.
    public let hdr: HDRMetadata

    /// A chunk (`--chunk I/N`): the pts of the chunk's pictures (ticks of the track's timescale).
    public private(set) var chunkRange: Range<Int64>?
    /// A chunk: whether this is the first and the last chunk.
    public private(set) var chunkEnds: (first: Bool, last: Bool) = (true, true)

    /// An MP4/MOV track whose every sample presents at its decoding time (no `ctts`): its
    /// times in increasing order, from the first sample decoded. The container's presentation
    /// order is then decoding order, which is wrong when the stream reorders (B-frames) — as
    /// ffmpeg writes a raw stream without time stamps into MP4 (`pts == dts` with
    /// `has_b_frames`). The decoder hands frames out in the bitstream's presentation order
    /// (picture order count, H.264 8.2.1, H.265 8.3.1), so frame *k* takes the *k*-th time: the
    /// times the container gives, in the order the bitstream shows the pictures. For a stream
    /// that does not reorder this is each frame's own time.
    private var decodingOrderTimes: [Int64]?
    private var handedOut = 0

    /// Opens `path`, starts decoding it with `factory`'s library and decodes the first picture
    /// (its size and format).
    ///
    /// - Parameters:
    ///   - chunk: chunk `index` of `count` of an MP4/MOV input (a distributed encode,
    ///     ``plan(_:source:path:)``), or `nil` for every picture.
    ///   - pid: a transport stream's program, chosen by its video PID (`nil`: the first).
    ///   - framesInFlight: pictures decoded ahead at most (``BackgroundDecoder``).
    ///   - decoderThreads: the decoder library's threads (0: one per core). One by default: in a
    ///     transcode the encoder is the slower stage and has the cores, and each frame thread of
    ///     libavcodec holds pictures of its own (Docs/performance.md, export memory).
    ///   - warning: what is stepped over, as `path: text` (``BackgroundDecoder``).
    /// - Throws: ``ExportError``: its own (a chunk that cannot be planned), or the stage's cause carried
    ///   whole (``ExportError/init(stage:)``): opening or reading the input (`NALUError`), the decoder's
    ///   (`DecoderError`), no picture decoded (`EncoderError` `.truncatedInput`, or the loss).
    public init(path: String, factory: any DecoderBackendFactory, chunk: (index: Int, count: Int)? = nil,
                pid: UInt16? = nil, framesInFlight: Int = 2, decoderThreads: Int = 1, warning: @escaping @Sendable (String) -> Void = { _ in }) throws(ExportError) {
        do {
            self.path = path
            var options = MediaSourceOptions()
            options.pid = pid
            options.onTransportStreamWarning = { text in warning("\(path): \(text)") }
            // Opened twice: once here for the container's facts, once by the decoding thread.
            source = try MediaSource(path: path, options: options)
            var firstSample = 0
            if let chunk {
                let plan = try Self.plan(chunk, source: source, path: path)
                chunkRange = plan.range
                firstSample = plan.firstSample
                chunkEnds = (chunk.index == 0, chunk.index == chunk.count - 1)
            }
            if let track = source.mp4?.track {
                timeBase = Rational(1, Int64(track.timescale))
            } else if source.container.isTransportStream {
                timeBase = Rational(1, 90_000)
            } else {
                timeBase = nil
            }
            decodingOrderTimes = try Self.timesWithoutCompositionOffsets(source, from: firstSample)
            hdr = HDRMetadata(path: path)
            frames = try BackgroundDecoder(path: path, factory: factory, options: options, firstSample: firstSample,
                                           framesInFlight: framesInFlight, threadCount: decoderThreads, warning: warning)
            // Samples above the bit depth (concealed damage) would abort libx264: clamped.
            frames.clampsSamples = true
            guard let frame = try frames.next()?.frame() else {
                if let loss = frames.loss { throw loss }
                throw EncoderError(.truncatedInput, context: "input", detail: "\(path): no frame could be decoded", byteOffset: 0)
            }
            guard !frame.pixelFormat.isSemiPlanar else {
                throw EncoderError(.unsupported, field: "pixelFormat", detail: "decoded \(frame.pixelFormat)")
            }
            first = frame
            signal = frames.signal
            firstPTS = decodingOrderTimes?.first ?? frame.pts
            pixelFormat = frame.pixelFormat
            width = frame.width
            height = frame.height
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// Frames per second: the container's, else the SPS VUI's (known once a frame is decoded),
    /// else 25.
    public func frameRate() -> Rational {
        if let rate = try? source.containerFrameRate(), rate.numerator > 0, rate.denominator > 0 { return rate }
        return frames.decoderFrameRate ?? Rational(25, 1)
    }

    /// The next picture in presentation order (valid until the next call), with its pts;
    /// `nil` at the end (then ``loss`` says what could not be decoded).
    /// - Throws: ``ExportError`` carrying the decoder's or the scaler's error whole
    ///   (``ExportError/init(stage:)``).
    public func nextFrame() throws(ExportError) -> Frame? {
        do {
            let frame: Frame?
            if let first {
                self.first = nil
                frame = first
            } else {
                frame = try frames.next()?.frame()
            }
            guard var frame else { return nil }
            if let times = decodingOrderTimes, handedOut < times.count { frame.pts = times[handedOut] }
            handedOut += 1
            // --scale brings every picture to the size asked for, also when the input's size changes.
            guard scaling, frame.width != width || frame.height != height else { return frame }
            if let scaler, frame.width == scaledFrom.width, frame.height == scaledFrom.height { return try scaler.scale(frame) }
            let scaler = try FrameScaler(pixelFormat: frame.pixelFormat, sourceWidth: frame.width, sourceHeight: frame.height,
                                         width: width, height: height)
            self.scaler = scaler
            scaledFrom = (frame.width, frame.height)
            return try scaler.scale(frame)
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The times of `source`'s samples from `first` on (decoding order) when no sample has a
    /// composition offset (``decodingOrderTimes``); `nil` otherwise or for other inputs.
    /// - Throws: ``NALU/NALUError`` from reading the sample table.
    public static func timesWithoutCompositionOffsets(_ source: MediaSource, from first: Int) throws(NALUError) -> [Int64]? {
        do {
            guard let mp4 = source.mp4 else { return nil }
            var times: [Int64] = []
            var iterator = mp4.samples()
            while let sample = try iterator.next() {
                guard sample.pts == sample.dts else { return nil }
                if sample.index >= first { times.append(sample.pts) }
            }
            return times.count > 1 ? times : nil
        } catch {
            throw NALUError.converting(error, field: "sample table")
        }
    }

    /// Scales every picture to `width`×`height` through libswscale (bicubic); a side of `nil`
    /// keeps the display aspect ratio (the SAR is carried unchanged, so the coded aspect is
    /// kept), rounded to the chroma grid. Throws ``ExportError/Code/invalidSettings`` (subject
    /// `scale`) for a size off the chroma grid.
    public func scale(width requestedWidth: Int?, height requestedHeight: Int?) throws(ExportError) {
        do {
            let (stepX, stepY) = pixelFormat.chromaStep
            func grid(_ value: Double, _ step: Int) -> Int { max(step, (CheckedNumber.int(value / Double(step)) ?? 1) * step) }
            // The SAR goes to the encoder unchanged, so the display aspect stays when the coded one does.
            let aspect = Double(self.width) / Double(self.height)
            let width = requestedWidth ?? grid(Double(requestedHeight ?? self.height) * aspect, stepX)
            let height = requestedHeight ?? grid(Double(width) / aspect, stepY)
            guard width % stepX == 0, height % stepY == 0 else {
                throw ExportError(.invalidSettings, subject: "scale", "\(width)x\(height) is not on the \(pixelFormat.ffmpegName) chroma grid (multiples of \(stepX)x\(stepY))")
            }
            scaling = true
            if width == self.width && height == self.height { return }
            scaler = try FrameScaler(pixelFormat: pixelFormat, sourceWidth: self.width, sourceHeight: self.height, width: width, height: height)
            scaledFrom = (self.width, self.height)
            self.width = width
            self.height = height
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// Stops the decoding thread (the pictures wanted were read).
    public func cancel() { frames.cancel() }

    /// ``cancel()`` as a closure any thread may call (``BackgroundDecoder/canceller``).
    public var canceller: @Sendable () -> Void { frames.canceller }

    /// Once the input ended: what could not be decoded (damaged NAL units left out, failed
    /// decoders), the error to end with after the output is written; `nil` when nothing was
    /// lost or the input was not read to its end.
    public var loss: ExportError? { frames.loss }

    /// Chunk `I` of `N` of an MP4/MOV input (issue 33, item 5): pictures ⌊I·F/N⌋ to
    /// ⌊(I+1)·F/N⌋ − 1 of the F in presentation order, decoded from the last sync sample shown at
    /// or before the first of them (the pictures before it are decoded and dropped).
    /// - Throws: ``ExportError`` `.invalidSettings` for an input that cannot be split, or a chunk with no
    ///   picture; reading the sample table's `NALUError`, carried whole.
    public static func plan(_ chunk: (index: Int, count: Int), source: MediaSource, path: String) throws(ExportError) -> (range: Range<Int64>, firstSample: Int) {
        do {
            guard let mp4 = source.mp4 else {
                throw ExportError(.invalidSettings, subject: path, "--chunk needs a raw, Y4M or MP4/MOV input (it splits at the sample table's keyframes)")
            }
            var samples: [(pts: Int64, index: Int, sync: Bool)] = []
            var iterator = mp4.samples()
            while let sample = try iterator.next() { samples.append((sample.pts, sample.index, sample.isSync)) }
            let presented = samples.sorted { $0.pts < $1.pts }
            let range = try FrameRange.chunk(chunk.index, of: chunk.count, frames: Int64(presented.count))
            let first = Int(range.first), end = Int(range.first + range.count)
            let low = chunk.index == 0 ? Int64.min : presented[first].pts
            let high = end < presented.count ? presented[end].pts : Int64.max
            let start = presented[first].pts
            // The sync sample shown last at or before the chunk's first picture.
            let key = samples.filter { $0.sync && $0.pts <= start }.max { $0.pts < $1.pts }
            return (low..<high, chunk.index == 0 ? 0 : key?.index ?? 0)
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The source's colour description and SAR as x264/x265 parameters (`colorprim`, `transfer`,
    /// `colormatrix`, `sar`: the same names in both; x264's `fullrange` on/off, x265's `range` full/limited), leaving out what the stream does not
    /// say and any name in `given` (the user's `--x264-params`/`--x265-params`); then the
    /// mastering display and content light level SEI (``HDRMetadata``).
    public func signalParameters(except given: Set<String>, x265: Bool) -> [EncoderParameter] {
        let hdrParameters = hdr.parameters(x265: x265, except: given)
        guard let signal else { return hdrParameters }
        var parameters: [EncoderParameter] = []
        func add(_ name: String, _ value: String?) {
            guard let value, !given.contains(name), !["unknown", "reserved", "ebu3213"].contains(value) else { return }
            parameters.append(EncoderParameter(name: name, value: value))
        }
        add("colorprim", signal.colour.primaries.flatMap(ColourNames.primaries))
        add("transfer", signal.colour.transfer.flatMap(ColourNames.transfer))
        add("colormatrix", signal.colour.matrix.flatMap(ColourNames.space))
        // x264: fullrange on/off; x265: range full/limited.
        if x265 {
            add("range", signal.colour.fullRange.map { $0 ? "full" : "limited" })
        } else {
            add("fullrange", signal.colour.fullRange.map { $0 ? "on" : "off" })
        }
        if let sar = signal.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0, sar.numerator != sar.denominator {
            add("sar", "\(sar.numerator):\(sar.denominator)")
        }
        return parameters + hdrParameters
    }

    /// The presentation origin in pts ticks: an MP4 track's first edit `media_time`, else the
    /// first picture's pts (`--start 0`).
    public var presentationOrigin: Int64 {
        if let edit = source.mp4?.track.editList.first(where: { $0.mediaTime >= 0 }) { return edit.mediaTime }
        return firstPTS
    }

    /// The pts at the input's presentation timeline's zero (``PresentationTimeline``: edit lists
    /// applied, the earliest track's start), where `--start` and `--end` count from: before
    /// ``presentationOrigin`` when another track starts before the video.
    public func timelineOrigin() throws(NALUError) -> Int64 {
        return try NALUError.typed(field: "edit list") {
            let mediaTime = try source.videoMediaOrigin()
            let firstPicture = max(0, firstPTS &- mediaTime)
            let videoStart = try PresentationTimeline(source: source).videoStart(firstPicture: firstPicture)
            return mediaTime &+ firstPicture &- videoStart
        }
    }

    /// The source pts presented from `start` to `end` (seconds on the presentation timeline,
    /// ``timelineOrigin()``: edit lists applied; `end` `nil`: the input's end), as ``ExportSession``
    /// and `nalu encode --start --end` keep them. A raw stream's pts count pictures.
    ///
    /// - Throws: ``ExportError/Code/invalidSettings`` with subject `start` or `end` when a time
    ///   does not fit 64 bits of ticks (past any input's end, issue 40 item 9), or `start` when
    ///   the range holds no time of the input.
    public func presentedRange(start: MediaTime, end: MediaTime?) throws(ExportError) -> Range<Int64> {
        do {
            let scale = timeBase?.denominator ?? 1
            let origin = timeBase == nil ? 0 : try timelineOrigin()
            func ticks(_ time: MediaTime, _ name: String) throws -> Int64 {
                guard let offset = CheckedNumber.rescale(time.seconds.numerator, from: time.seconds.denominator, to: scale),
                      let ticks = CheckedNumber.sum(origin, offset) else {
                    throw ExportError(.invalidSettings, subject: name, "\(path) ends before \(time)")
                }
                return ticks
            }
            let low = try ticks(start, "start")
            let sourceEnd = try presentationEnd()
            var high = try end.map { try ticks($0, "end") } ?? sourceEnd ?? Int64.max
            if let sourceEnd { high = min(high, sourceEnd) }
            guard low < high else {
                throw ExportError(.invalidSettings, subject: "start", "\(path) shows nothing from \(start) to \(end?.description ?? "its end")")
            }
            return low..<high
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The pictures of an MP4/MOV track whose pts lie in `range` (all without one), for the
    /// progress line's ETA; `nil` for other inputs.
    public func pictureCount(in range: Range<Int64>?) throws(NALUError) -> Int64? {
        return try NALUError.typed(field: "sample table") {
            guard let mp4 = source.mp4 else { return nil }
            var count: Int64 = 0
            var iterator = mp4.samples()
            while let sample = try iterator.next() { if range?.contains(sample.pts) ?? true { count += 1 } }
            return count
        }
    }

    /// The end of the last picture's presentation (pts + duration) of an MP4/MOV track, or `nil`.
    public func presentationEnd() throws(NALUError) -> Int64? {
        return try NALUError.typed(field: "sample table") {
            guard let mp4 = source.mp4 else { return nil }
            var end: Int64?
            var iterator = mp4.samples()
            while let sample = try iterator.next() {
                guard let sampleEnd = CheckedNumber.sum(sample.pts, Int64(sample.duration)) else {
                    throw NALUError(.invalidValue, field: "sample \(sample.index) time", detail: "\(sample.pts) + \(sample.duration) ticks does not fit 64 bits")
                }
                end = max(end ?? sampleEnd, sampleEnd)
            }
            return end
        }
    }
}

extension PixelFormat {
    /// Luma samples per chroma sample, horizontally and vertically (4:2:0: 2×2).
    var chromaStep: (Int, Int) {
        switch self {
        case .i420, .nv12, .yuv420p10le, .p010le: (2, 2)
        case .yuv422p, .yuv422p10le: (2, 1)
        default: (1, 1)
        }
    }
}
