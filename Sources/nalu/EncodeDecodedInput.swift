#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALU
import NALUAVCodec
import NALUDecoder
import NALUEncoder
import NALUMedia

/// `nalu encode IN` from a compressed input (issue 33, item 4): the frames decoded on a thread of
/// their own (``CompareInput``), handed to the encoder in presentation order with their pts, no
/// copy when the formats match.
final class DecodedEncodeInput {
    private let frames: CompareInput
    /// The first frame, read ahead for the size and format.
    private var first: Frame?
    let pixelFormat: PixelFormat
    /// The frames' size (after ``scale(to:)``).
    private(set) var size: FrameSize
    private var scaler: FrameScaler?
    /// Whether `--scale` was given: every picture is brought to ``size``.
    private var scaling = false
    /// The size of the pictures ``scaler`` takes (the input's pictures may change size).
    private var scaledFrom = FrameSize(width: 0, height: 0)
    /// The pts's time base: the MP4 track's timescale, 90 kHz for MPEG-TS; `nil` for raw
    /// streams, whose frames are numbered 0, 1, 2….
    let timeBase: Rational?
    /// The input, opened for its container's facts (tracks, edit list, sample table).
    let source: MediaSource
    /// The first picture's colour description and sample aspect ratio (the SPS VUI's).
    private(set) var signal: (colour: ColourDescription, sampleAspectRatio: Rational?)?
    /// The pts of the first picture shown.
    let firstPTS: Int64
    /// The stream's mastering display and content light level SEI, carried to the encoder.
    let hdr: HDRMetadata

    /// `--chunk I/N`: the pts of the chunk's pictures (ticks of the track's timescale).
    private(set) var chunkRange: Range<Int64>?
    /// `--chunk I/N`: whether this is the first and the last chunk.
    private(set) var chunkEnds: (first: Bool, last: Bool) = (true, true)

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

    init(path: String, decoder: DecoderName, chunk: ChunkSpec? = nil, pid: UInt16? = nil) throws {
        var options = MediaSourceOptions()
        options.pid = pid  // a transport stream's program, chosen by its video PID (`--pid`)
        // Opened twice: once here for the container's facts, once by the decoding thread.
        source = try openMediaSource(path, options)
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
        frames = try CompareInput(path: path, decoder: decoder, options: options, firstSample: firstSample)
        // Samples above the bit depth (concealed damage) would abort libx264: clamped.
        frames.clampsSamples = true
        guard let frame = try frames.next() else {
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
        size = FrameSize(width: frame.width, height: frame.height)
    }

    /// Frames per second: the container's, else the SPS VUI's (known once a frame is decoded),
    /// else 25.
    func frameRate() -> Rational {
        if let rate = try? source.containerFrameRate(), rate.numerator > 0, rate.denominator > 0 { return rate }
        return frames.decoderFrameRate ?? Rational(25, 1)
    }

    func nextFrame() throws -> Frame? {
        let frame: Frame?
        if let first {
            self.first = nil
            frame = first
        } else {
            frame = try frames.next()
        }
        guard var frame else { return nil }
        if let times = decodingOrderTimes, handedOut < times.count { frame.pts = times[handedOut] }
        handedOut += 1
        // --scale brings every picture to the size asked for, also when the input's size changes.
        guard scaling, frame.width != size.width || frame.height != size.height else { return frame }
        if let scaler, frame.width == scaledFrom.width, frame.height == scaledFrom.height { return try scaler.scale(frame) }
        let scaler = try FrameScaler(pixelFormat: frame.pixelFormat, sourceWidth: frame.width, sourceHeight: frame.height,
                                     width: size.width, height: size.height)
        self.scaler = scaler
        scaledFrom = FrameSize(width: frame.width, height: frame.height)
        return try scaler.scale(frame)
    }

    /// The times of `source`'s samples from `first` on (decoding order) when no sample has a
    /// composition offset (``decodingOrderTimes``); `nil` otherwise or for other inputs.
    static func timesWithoutCompositionOffsets(_ source: MediaSource, from first: Int) throws -> [Int64]? {
        guard let mp4 = source.mp4 else { return nil }
        var times: [Int64] = []
        var iterator = mp4.samples()
        while let sample = try iterator.next() {
            guard sample.pts == sample.dts else { return nil }
            if sample.index >= first { times.append(sample.pts) }
        }
        return times.count > 1 ? times : nil
    }

    /// `--scale WxH` through libswscale; a side of `nil` (`-1`) keeps the display aspect ratio
    /// (the SAR is carried unchanged, so the coded aspect is kept), rounded to the chroma grid.
    func scale(to request: ScaleSize) throws {
        let (stepX, stepY) = pixelFormat.chromaStep
        func grid(_ value: Double, _ step: Int) -> Int { max(step, (CheckedNumber.int(value / Double(step)) ?? 1) * step) }
        // The SAR goes to the encoder unchanged, so the display aspect stays when the coded one does.
        let aspect = Double(size.width) / Double(size.height)
        let width = request.width ?? grid(Double(request.height ?? size.height) * aspect, stepX)
        let height = request.height ?? grid(Double(width) / aspect, stepY)
        guard width % stepX == 0, height % stepY == 0 else {
            throw CLIError.usage("--scale", "\(width)x\(height) is not on the \(pixelFormat.ffmpegName) chroma grid (multiples of \(stepX)x\(stepY))")
        }
        scaling = true
        if width == size.width && height == size.height { return }
        scaler = try FrameScaler(pixelFormat: pixelFormat, sourceWidth: size.width, sourceHeight: size.height, width: width, height: height)
        scaledFrom = size
        size = FrameSize(width: width, height: height)
    }

    func cancel() { frames.cancel() }

    /// Once the input ended: what could not be decoded (damaged NAL units left out, failed
    /// decoders), the error to exit with after the output is written; `nil` when nothing was
    /// lost or the input was not read to its end.
    var loss: CLIError? { frames.loss }

    /// Chunk `I` of `N` of an MP4/MOV input (issue 33, item 5): pictures ⌊I·F/N⌋ to
    /// ⌊(I+1)·F/N⌋ − 1 of the F in presentation order, decoded from the last sync sample shown at
    /// or before the first of them (the pictures before it are decoded and dropped).
    static func plan(_ chunk: ChunkSpec, source: MediaSource, path: String) throws -> (range: Range<Int64>, firstSample: Int) {
        guard let mp4 = source.mp4 else {
            throw CLIError.usage(path, "--chunk needs a raw, Y4M or MP4/MOV input (it splits at the sample table's keyframes)")
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
    }

    /// The source's colour description and SAR as x264/x265 parameters (`colorprim`, `transfer`,
    /// `colormatrix`, `sar`: the same names in both; x264's `fullrange` on/off, x265's `range` full/limited), leaving out what the stream does not
    /// say and any name in `given` (the user's `--x264-params`/`--x265-params`); then the
    /// mastering display and content light level SEI (``HDRMetadata``).
    func signalParameters(except given: Set<String>, x265: Bool) -> [EncoderParameter] {
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
    var presentationOrigin: Int64 {
        if let edit = source.mp4?.track.editList.first(where: { $0.mediaTime >= 0 }) { return edit.mediaTime }
        return firstPTS
    }

    /// The pts at the input's presentation timeline's zero (``PresentationTimeline``: edit lists
    /// applied, the earliest track's start), where `--start` and `--end` count from: before
    /// ``presentationOrigin`` when another track starts before the video.
    func timelineOrigin() throws -> Int64 {
        let mediaTime = try source.videoMediaOrigin()
        let firstPicture = max(0, firstPTS &- mediaTime)
        let videoStart = try PresentationTimeline(source: source).videoStart(firstPicture: firstPicture)
        return mediaTime &+ firstPicture &- videoStart
    }

    /// The pictures of an MP4/MOV track whose pts lie in `range` (all without one), for the
    /// progress line's ETA; `nil` for other inputs.
    func pictureCount(in range: Range<Int64>?) throws -> Int64? {
        guard let mp4 = source.mp4 else { return nil }
        var count: Int64 = 0
        var iterator = mp4.samples()
        while let sample = try iterator.next() { if range?.contains(sample.pts) ?? true { count += 1 } }
        return count
    }

    /// The end of the last picture's presentation (pts + duration) of an MP4/MOV track, or `nil`.
    func presentationEnd() throws -> Int64? {
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

    /// Whether `path` is an input nalu reads (told by content: MP4/MOV, MPEG-TS, Annex-B,
    /// length-prefixed H.264/H.265).
    /// Raw video is refused as before (a usage error asking for its size): an elementary stream
    /// must be named as one (.h264, .265…) or start with a start code; MP4/MOV and MPEG-TS are
    /// told by their structure.
    static func isCompressed(_ path: String) -> Bool {
        var options = MediaSourceOptions()
        options.readsAhead = false
        guard let source = try? MediaSource(path: path, options: options) else { return false }
        if source.container.isMP4 || source.container.isTransportStream { return true }
        if Naming.codec(forExtensionOf: path) != nil { return true }
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0xFF, count: 4)
        let count = fread(&head, 1, 4, file)
        return count == 4 && head[0] == 0 && head[1] == 0 && (head[2] == 1 || (head[2] == 0 && head[3] == 1))
    }
}

/// `--scale WxH`: a size, `-1` for a side that keeps the display aspect ratio.
struct ScaleSize: ExpressibleByArgument, Hashable {
    var width: Int?
    var height: Int?

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width == -1 || (1...16384).contains(width), height == -1 || (1...16384).contains(height), width != -1 || height != -1 else { return nil }
        self.width = width == -1 ? nil : width
        self.height = height == -1 ? nil : height
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
