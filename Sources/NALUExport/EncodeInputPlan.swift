public import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUMedia

/// What an encode reads (`nalu encode`'s input options, as a library call): the file, or the
/// test pattern, and how to read it.
public struct EncodeInputOptions {
    /// The input path (`"-"`: standard input), or `nil` for the test pattern.
    public var path: String?
    /// Raw input's frame size (`--size`), or of the test pattern (default 640×360).
    public var size: (width: Int, height: Int)?
    /// The frame size in a raw file's name (`clip_640x360.yuv`), used when ``size`` is `nil`.
    public var sizeInName: (width: Int, height: Int)?
    /// Raw input's layout (default yuv420p).
    public var pixelFormat: PixelFormat?
    /// The frame rate (`-r`): raw input's, or forced on a compressed input's frames.
    public var frameRate: Rational?
    /// Frames encoded at most (the test pattern's default: 150).
    public var frames: Int?
    /// Chunk `index` of `count` (a distributed encode; `--chunk I/N`).
    public var chunk: (index: Int, count: Int)?
    /// The first frame of raw or Y4M input (`--seek`).
    public var seek: Int64?
    /// A compressed input's presented range from this time (`--start`).
    public var start: MediaTime?
    /// … to this time (`--end`).
    public var end: MediaTime?
    /// How ``start`` was written, for messages.
    public var startText: String?
    /// How ``end`` was written, for messages.
    public var endText: String?
    /// A compressed input resized to this (`--scale`; `nil` for a side keeps the display aspect ratio).
    public var scale: (width: Int?, height: Int?)?
    /// A transport stream's program, by its video PID.
    public var pid: UInt16?
    /// The decoder library of a compressed input.
    public var decoder: any DecoderBackendFactory = ExportDefaults.decoder
    /// Warnings about the options (`--size` ignored for Y4M, a partial last frame).
    public var warning: (String) -> Void = { _ in }
    /// What the decoder steps over, as `path: text`.
    public var decoderWarning: @Sendable (String) -> Void = { _ in }
    /// Whether reading should stop (a stopping signal).
    public var isStopped: () -> Bool = { false }

    /// Options for `path` (`nil`: the test pattern), everything else at its default.
    public init(path: String?) { self.path = path }

    /// `--chunk I/N` as written.
    var chunkText: String { chunk.map { "\($0.index)/\($0.count)" } ?? "" }
}

/// An encode's input opened and planned: the frames, their rate, how many, and which (issue 33
/// item 4, issue 17). Errors name the option at fault: ``ExportError/Code/invalidSettings`` with
/// the option as subject (`--scale`, `--start`…), or none for a combination.
public final class EncodeInputPlan {
    /// The frames.
    public var input: EncodeFrameInput
    /// Frames per second: `-r`, a Y4M header's, a compressed input's, else 30.
    public private(set) var frameRate: Rational
    /// The frames expected (progress and the encoder's lookahead), when known.
    public private(set) var totalFrames: Int64?
    /// Frames read at most.
    public private(set) var limit: Int64
    /// Raw or Y4M input: the frames of `--chunk` or `--seek`.
    public private(set) var frameRange: FrameRange?
    /// A compressed input: the pts kept (`--start/--end`, a chunk).
    public private(set) var keptRange: Range<Int64>?
    /// A compressed input, decoded.
    public private(set) var decoded: DecodedVideoInput?
    /// The file read (raw and Y4M input).
    public private(set) var file: FrameFileSource?
    /// Warnings and the stopping test, from the options.
    let options: EncodeInputOptions

    /// Opens the input once (Y4M when it starts with `YUV4MPEG2 ` or is named .y4m; a
    /// compressed input told by its content, decoded; else raw frames of the size given) and
    /// plans what is read.
    /// - Throws: ``ExportError``: `.invalidSettings` naming the option, `.invalidInput`, or an opening or
    ///   decoding stage's cause carried whole (``ExportError/init(stage:)``).
    public init(_ options: EncodeInputOptions) throws(ExportError) {
        do {
            self.options = options
            frameRate = options.frameRate ?? Rational(30, 1)
            totalFrames = options.frames.map(Int64.init)
            // Only `frames` (or the pattern's default) stops reading early: a file's size is just an
            // estimate for the progress line.
            limit = options.frames.map(Int64.init) ?? Int64.max
            guard let path = options.path else {
                if options.chunk != nil || options.seek != nil {
                    throw ExportError(.invalidSettings, "--chunk and --seek need an input file (raw or Y4M), not the test pattern.")
                }
                let size = options.size ?? (640, 360)
                input = .pattern(try TestPattern(pixelFormat: options.pixelFormat ?? .i420, width: size.width, height: size.height), next: 0)
                if totalFrames == nil { totalFrames = 150 }
                limit = totalFrames ?? 150
                return
            }
            let file = try FrameFileSource(path: path, isStopped: options.isStopped)
            input = try Self.open(file, options)
            let compressedOnly = "a compressed input (MP4/MOV, TS, H.264/H.265)"
            switch input {
            case .raw(let reader, _):
                if options.scale != nil { throw ExportError(.invalidSettings, subject: "--scale", "--scale needs \(compressedOnly)") }
                if options.start != nil || options.end != nil {
                    throw ExportError(.invalidSettings, subject: "--start", "--start and --end need \(compressedOnly); use --seek and --frames for raw or Y4M")
                }
                if totalFrames == nil, let bytes = file.regularFileSize { totalFrames = bytes / Int64(reader.frameSize) }
            case .y4m(let reader):
                if options.scale != nil { throw ExportError(.invalidSettings, subject: "--scale", "--scale needs \(compressedOnly)") }
                frameRate = reader.header.frameRate
                // An estimate: every frame behind a plain "FRAME\n" line.
                if totalFrames == nil, let bytes = file.regularFileSize { totalFrames = bytes / Int64(reader.buffer.byteCount + 6) }
            case .pattern: break
            case .decoded(let decoded):
                try plan(decoded)
                // The progress line's ETA: the MP4 track's pictures in the range.
                if totalFrames == nil { totalFrames = try decoded.pictureCount(in: keptRange) }
                return
            }
            self.file = file
            if let selected = try selectRange(file) {
                frameRange = selected
                totalFrames = selected.count
                limit = selected.count
            }
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The source's own timing for a compressed input: each frame keeps its pts; the scale, the
    /// range or the chunk kept.
    private func plan(_ decoded: DecodedVideoInput) throws {
        frameRate = options.frameRate ?? decoded.frameRate()
        self.decoded = decoded
        if let scale = options.scale {
            do {
                try decoded.scale(width: scale.width, height: scale.height)
            } catch {
                // Its own refusal (a size off the chroma grid), not a stage's error it carries.
                guard error.code == .invalidSettings, error.stageError == nil else { throw error }
                throw ExportError(.invalidSettings, subject: "--scale", error.message)
            }
        }
        if options.start != nil || options.end != nil {
            do {
                keptRange = try decoded.presentedRange(start: options.start ?? .zero, end: options.end)
            } catch {
                guard error.code == .invalidSettings, error.stageError == nil else { throw error }
                let option = error.subject == "end" ? "--end" : "--start"
                throw ExportError(.invalidSettings, subject: option, "the input ends before \(option == "--end" ? options.endText ?? "" : options.startText ?? "0")")
            }
        }
        if let chunk = decoded.chunkRange {
            if options.start != nil || options.end != nil { throw ExportError(.invalidSettings, subject: "--chunk", "use --chunk without --start and --end") }
            // The chunk's pictures, within the ones the input shows.
            let low = max(chunk.lowerBound, decoded.presentationOrigin)
            let high = min(chunk.upperBound, try decoded.presentationEnd() ?? Int64.max)
            guard low < high else { throw ExportError(.invalidSettings, subject: "--chunk", "chunk \(options.chunkText) holds no picture") }
            keptRange = low..<high
        }
    }

    private static func open(_ source: FrameFileSource, _ options: EncodeInputOptions) throws -> EncodeFrameInput {
        let path = source.path
        let magic = Array("YUV4MPEG2 ".utf8)
        if try source.peek(magic.count) == magic || path.lowercased().hasSuffix(".y4m") {
            let reader = try Y4MReader(source)
            // A file holding less than one frame after the header is refused before any frame
            // memory is taken (issue 32 item 8): the header alone decides the frame size.
            if let fileSize = source.regularFileSize, fileSize > reader.firstFrameOffset,
               fileSize - reader.firstFrameOffset < Int64(reader.buffer.byteCount) + 6 {
                throw EncoderError(.invalidInput, field: "Y4M header", byteOffset: 0,
                                   detail: "W\(reader.header.width) H\(reader.header.height) C\(reader.header.colourSpace) frames are \(reader.buffer.byteCount) bytes; the file holds \(fileSize - reader.firstFrameOffset) after the header, less than one frame")
            }
            if options.size != nil || options.pixelFormat != nil {
                options.warning("\(source.subject): the Y4M header says \(reader.header.width)x\(reader.header.height) \(reader.header.pixelFormat); --size and --pix-fmt are ignored")
            }
            return .y4m(reader)
        }
        // Without a size, a compressed input (MP4/MOV, TS, Annex-B, length-prefixed), told by its
        // content, is decoded: a WxH in its name (holiday_320x180.mp4) describes raw video only
        // (issue 40 item 8). A FIFO with a size in its name is raw video: probing would consume it.
        if options.size == nil, path != "-", source.regularFileSize != nil || options.sizeInName == nil,
           EncodeFrameInput.isCompressed(path) {
            if options.seek != nil { throw ExportError(.invalidSettings, subject: "--seek", "a compressed input takes --start and --end (times) instead") }
            return .decoded(try DecodedVideoInput(path: path, factory: options.decoder, chunk: options.chunk, pid: options.pid,
                                                  warning: options.decoderWarning))
        }
        if options.pid != nil { throw ExportError(.invalidSettings, subject: "--pid", "chooses a program of an MPEG-TS input; \(path) is raw video") }
        guard let size = options.size ?? (path == "-" ? nil : options.sizeInName) else {
            throw ExportError(.invalidSettings, subject: source.subject, "cannot tell the frame size of raw video; give --size WxH (or name the file like clip_640x360.yuv)")
        }
        let reader = try RawVideoReader(source, pixelFormat: options.pixelFormat ?? .i420, width: size.width, height: size.height)
        if let fileSize = source.regularFileSize, fileSize > 0, fileSize < Int64(reader.frameSize) {
            throw ExportError(.invalidInput, subject: source.subject, "holds \(fileSize) bytes, less than one \(size.width)x\(size.height) \(reader.buffer.pixelFormat) frame (\(reader.frameSize) bytes)",
                              hint: "check --size and --pix-fmt")
        }
        return .raw(reader, source)
    }

    /// Moves raw or Y4M input to the first frame of `--chunk` or `--seek` and returns the range;
    /// `nil` without them. Counts the input's frames from its size (raw) or its FRAME lines
    /// (Y4M); a range outside the input is an error naming the option.
    private func selectRange(_ file: FrameFileSource) throws -> FrameRange? {
        guard options.chunk != nil || options.seek != nil else { return nil }
        let option = options.chunk != nil ? "--chunk \(options.chunkText)" : "--seek \(options.seek ?? 0)"
        let subject = file.subject
        guard file.regularFileSize != nil else {
            throw ExportError(.invalidSettings, subject: subject, "\(option) needs an input that can seek (a raw or Y4M file); pipes cannot")
        }
        let total = try input.frameCount()
        let range: FrameRange
        if let chunk = options.chunk {
            guard total >= Int64(chunk.count) else {
                throw ExportError(.invalidSettings, subject: subject, "\(option): the input holds \(total) frames, fewer than \(chunk.count) chunks")
            }
            range = try FrameRange.chunk(chunk.index, of: chunk.count, frames: total)
        } else {
            let first = options.seek ?? 0
            guard first < total else {
                throw ExportError(.invalidSettings, subject: subject, "\(option): the input holds \(total) frames" + (total > 0 ? " (0 to \(total - 1))" : ""))
            }
            range = FrameRange(first: first, count: min(options.frames.map(Int64.init) ?? total, total - first))
        }
        try input.seek(toFrame: range.first)
        return range
    }

    /// The next frame, or `nil` at the end of the input, when reading was stopped, or after a
    /// partial last frame of raw input (a warning with the bytes ignored), given `count` frames
    /// read so far.
    public func nextFrame(count: Int64) throws(EncoderError) -> Frame? {
        do {
            return try input.nextFrame()
        } catch {
            guard error.code == .truncatedInput else { throw error }
            if options.isStopped() { return nil }
            guard let ignored = input.trailingBytes(frames: count) else { throw error }
            options.warning("\(options.path.map { $0 == "-" ? "standard input" : $0 } ?? "standard input"): the last frame is partial: \(ignored) bytes ignored after \(count) whole frames")
            return nil
        }
    }
}

extension EncodeInputPlan {
    /// An encoder configuration for these frames: their size, pixel format, rate, a compressed
    /// input's time base, the frames expected, and `extraParameters`; with `carriesSignal`, a
    /// compressed input's colour description, SAR and HDR metadata follow as x264/x265
    /// parameters (those not already given).
    public func configuration(codec: Codec, extraParameters: [EncoderParameter], carriesSignal: Bool) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: input.width, height: input.height)
        configuration.pixelFormat = input.pixelFormat
        configuration.frameRate = frameRate
        if let timeBase = decoded?.timeBase { configuration.timeBase = timeBase }
        configuration.expectedFrameCount = totalFrames.map { min($0, limit) }
        configuration.extraParameters = extraParameters
        if let decoded, carriesSignal {
            configuration.extraParameters += decoded.signalParameters(except: Set(extraParameters.map(\.name)), x265: codec == .hevc)
        }
        return configuration
    }
}

extension EncodeInputPlan {
    /// Why nothing was encoded: a range no picture of a compressed input presents in
    /// (``ExportError/Code/invalidSettings`` naming `--start`, or `--end` without it; a transport
    /// stream's end is known only once read), else an input with no frame
    /// (``NALUEncoder/EncoderError/Code/truncatedInput``).
    public func nothingEncoded(stopped: Bool) -> any Error {
        if keptRange != nil, decoded?.chunkRange == nil, !stopped {
            return ExportError(.invalidSettings, subject: options.startText != nil ? "--start" : "--end",
                               "no picture of the input presents from \(options.startText ?? "0") to \(options.endText ?? "its end")")
        }
        return EncoderError(.truncatedInput, context: "input", detail: "no frames to encode", byteOffset: 0)
    }
}

extension EncodeInputOptions {
    /// Refuses settings that make no sense together, before anything is opened
    /// (``ExportError/Code/invalidSettings``, no subject): an end not after the start, a chunk
    /// index outside its count, a negative seek, a chunk with a seek or a frame count, a chunk
    /// or seek of the test pattern (`testPattern`) or with open GOPs (`openGOP`: a range starts
    /// with an IDR and closes its GOPs).
    public func validate(testPattern: Bool, openGOP: Bool) throws(ExportError) {
        if let end, end <= (start ?? .zero) { throw ExportError(.invalidSettings, "--end must be after --start.") }
        guard chunk != nil || seek != nil else { return }
        let option = chunk != nil ? "--chunk \(chunkText)" : "--seek"
        if let chunk, chunk.index >= chunk.count {
            throw ExportError(.invalidSettings, "--chunk \(chunkText): the chunk index must be below the chunk count, 0 to \(chunk.count - 1).")
        }
        if let seek, seek < 0 { throw ExportError(.invalidSettings, "--seek must be 0 or more.") }
        if chunk != nil, seek != nil || frames != nil {
            throw ExportError(.invalidSettings, "--chunk chooses its frames itself: use it without --seek and --frames.")
        }
        if testPattern { throw ExportError(.invalidSettings, "\(option) needs an input file (raw or Y4M), not the test pattern.") }
        if openGOP { throw ExportError(.invalidSettings, "\(option) starts with an IDR and closes its GOPs: use it without --open-gop.") }
    }
}

extension EncodeInputOptions {
    /// A ``scale`` as `WxH` (`--scale`): each side 1…16384, or `-1` for the side that keeps the
    /// display aspect ratio (`1280x-1`; not both); `nil` for anything else.
    public static func scale(parsing text: String) -> (width: Int?, height: Int?)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width == -1 || (1...16384).contains(width), height == -1 || (1...16384).contains(height), width != -1 || height != -1 else { return nil }
        return (width == -1 ? nil : width, height == -1 ? nil : height)
    }
}

extension EncodeInputOptions {
    /// A ``size`` as `WxH` (`--size 640x360`, case-insensitive), both sides positive; `nil` for
    /// anything else.
    public static func size(parsing text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        return (width, height)
    }
}

extension EncodeInputOptions {
    /// ``start`` and ``end`` from text as `nalu encode --start/--end` (and `nalu trim`) take it:
    /// seconds or `[HH:]MM:SS[.fff]` (``NALUMedia/MediaTime/init(parsing:field:)``); the start
    /// defaults to 0, the end to none.
    /// - Throws: ``NALU/NALUError`` `.invalidValue` naming `--start` or `--end`.
    public static func timeRange(start: String?, end: String?) throws(NALUError) -> (start: MediaTime, end: MediaTime?) {
        let first = try start.map { text throws(NALUError) in try MediaTime(parsing: text, field: "--start") }
        let last = try end.map { text throws(NALUError) in try MediaTime(parsing: text, field: "--end") }
        return (first ?? .zero, last)
    }
}
