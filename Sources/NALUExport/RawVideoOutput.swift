public import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUIO

extension InputDecoder {
    /// Decodes the input into `output` (`nalu decode`, issue 33): raw planes as ffmpeg's
    /// `rawvideo` lays them out (`.yuv`, `-` for standard output), or YUV4MPEG2 when the name
    /// ends in `.y4m`, frames in presentation order. Returns the frames written.
    ///
    /// - Parameters:
    ///   - pixelFormat: the decoded format (`nil`), or its semi-planar form (nv12, p010le).
    ///   - frames: frames written at most (`nil`: all).
    ///   - warning: the decoder's problems (the first 20 of each kind), as `path: text`.
    /// - Throws: ``ExportError``: `invalidSettings` (`--pix-fmt`) for a format that is not the
    ///   decoded one or its semi-planar form, `invalidInput` when the pictures change size or
    ///   format (a raw or Y4M file holds one), `picturesLost` when access units could not be
    ///   decoded (after the output holding every other picture is committed; before, with no
    ///   output, when none could).
    public func write(to output: String, pixelFormat requested: PixelFormat?, frames: Int?, warning: (String) -> Void) throws(ExportError) -> Int {
        do {
            let sink = try FileSink(path: output)
            let y4m = output.lowercased().hasSuffix(".y4m")
            var written = 0
            var problems = 0
            var first: (width: Int, height: Int, format: PixelFormat)?
            do {
                if frames != 0 {
                    try run(problem: { error in
                        problems += 1
                        if problems <= 20 { warning("\(path): \(error)") }
                    }) { frame in
                        try Self.checkSameShape(frame, index: written, first: &first, input: path, y4m: y4m)
                        let format = try Self.outputFormat(for: frame, requested: requested)
                        if written == 0, y4m {
                            guard format.y4mColourSpace != nil else {
                                throw ExportError(.invalidSettings, subject: "--pix-fmt", "\(format.ffmpegName) cannot be carried in Y4M", hint: "write raw planes (.yuv) instead")
                            }
                            try sink.write(Array(Y4MHeaderText.header(for: frame, format: format, frameRate: frameRate()).utf8))
                        }
                        if y4m { try sink.write(Array("FRAME\n".utf8)) }
                        try RawFrameWriter.write(frame, as: format, to: sink)
                        written += 1
                        return frames.map { written < $0 } ?? true
                    }
                }
                for problem in session.problems.prefix(20) { warning("\(path): \(problem)") }
                if written == 0, frames != 0, let loss = lossSummary {
                    // Nothing decodable: no file (an empty Y4M is no Y4M).
                    throw ExportError(.picturesLost, subject: path, loss)
                }
                try sink.commit()
            } catch {
                sink.discard()
                throw error
            }
            // Everything decodable is written; what was not is an error (nothing lost silently).
            if let loss = lossSummary { throw ExportError(.picturesLost, subject: path, loss) }
            return written
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// Refuses a frame whose size or sampling differs from the first frame's: a Y4M header
    /// states one size and chroma format for every frame, and a raw file's reader assumes one
    /// (issue 40 item 11: a 640x360 header over 1280x720 frames, exit 0).
    private static func checkSameShape(_ frame: DecodedFrame, index: Int, first: inout (width: Int, height: Int, format: PixelFormat)?,
                                       input: String, y4m: Bool) throws {
        guard let known = first else {
            first = (frame.width, frame.height, frame.pixelFormat)
            return
        }
        guard frame.width != known.width || frame.height != known.height || frame.pixelFormat != known.format else { return }
        let kind = y4m ? "the Y4M header's" : "the first frame's"
        throw ExportError(.invalidInput, subject: input,
                          "frame \(index) (access unit \(frame.accessUnitIndex)) is \(frame.width)x\(frame.height) \(frame.pixelFormat.ffmpegName), \(kind) \(known.width)x\(known.height) \(known.format.ffmpegName): a \(y4m ? "Y4M" : "raw") output holds frames of one size and format",
                          hint: "split the input where it changes (nalu trim), or re-encode it to one size with nalu encode --scale \(known.width)x\(known.height)")
    }

    /// The format frames are written in: `requested` when it is the decoded one or its
    /// semi-planar form (no scaling or dithering is done).
    private static func outputFormat(for frame: DecodedFrame, requested: PixelFormat?) throws -> PixelFormat {
        guard let requested, requested != frame.pixelFormat else { return frame.pixelFormat }
        if requested.isSemiPlanar, requested.planarEquivalent == frame.pixelFormat { return requested }
        throw ExportError(.invalidSettings, subject: "--pix-fmt", "cannot convert the decoded \(frame.pixelFormat.ffmpegName) to \(requested.ffmpegName)",
                          hint: "decoded frames are written as \(frame.pixelFormat.ffmpegName)\(frame.pixelFormat.chromaSubsampling == .yuv420 ? " or its semi-planar form" : "")")
    }
}

/// Writes a decoded frame's planes as ffmpeg's `rawvideo` lays them out.
public enum RawFrameWriter {
    /// Writes `frame` as `format`: its own format, or the semi-planar form of it (Y, then U and
    /// V interleaved; 10-bit samples in the high bits).
    /// - Throws: ``NALU/NALUError`` from writing.
    public static func write(_ frame: DecodedFrame, as format: PixelFormat, to sink: FileSink) throws(NALUError) {
        do {
            if format == frame.pixelFormat {
                try frame.withBytes { try sink.write($0) }
                return
            }
            if format.bitDepth == 8 {
                try frame.withPlane(0) { try sink.write($0) }
            } else {
                var luma = frame.planeBytes(0)
                for sample in 0..<(luma.count / 2) {
                    let value = (UInt16(luma[2 * sample]) | UInt16(luma[2 * sample + 1]) << 8) << 6
                    luma[2 * sample] = UInt8(truncatingIfNeeded: value)
                    luma[2 * sample + 1] = UInt8(truncatingIfNeeded: value >> 8)
                }
                try sink.write(luma)
            }
            let u = frame.planeBytes(1)
            let v = frame.planeBytes(2)
            var interleaved = [UInt8](repeating: 0, count: u.count * 2)
            if format.bitDepth == 8 {
                for index in 0..<u.count {
                    interleaved[2 * index] = u[index]
                    interleaved[2 * index + 1] = v[index]
                }
            } else {
                for sample in 0..<(u.count / 2) {
                    let uValue = (UInt16(u[2 * sample]) | UInt16(u[2 * sample + 1]) << 8) << 6
                    let vValue = (UInt16(v[2 * sample]) | UInt16(v[2 * sample + 1]) << 8) << 6
                    interleaved[4 * sample] = UInt8(truncatingIfNeeded: uValue)
                    interleaved[4 * sample + 1] = UInt8(truncatingIfNeeded: uValue >> 8)
                    interleaved[4 * sample + 2] = UInt8(truncatingIfNeeded: vValue)
                    interleaved[4 * sample + 3] = UInt8(truncatingIfNeeded: vValue >> 8)
                }
            }
            try sink.write(interleaved)
        } catch {
            throw NALUError.converting(error, field: sink.path)
        }
    }
}

/// The YUV4MPEG2 stream header as ffmpeg's `yuv4mpegpipe` muxer writes it: `YUV4MPEG2 W H F I A
/// C XYSCSS [XCOLORRANGE]`.
public enum Y4MHeaderText {
    /// The header line (with its newline) for frames like `frame` written as `format` at `frameRate`.
    public static func header(for frame: DecodedFrame, format: PixelFormat, frameRate: Rational) -> String {
        let rate = frameRate.reduced
        let sar = frame.sampleAspectRatio.map { "\($0.numerator):\($0.denominator)" } ?? "0:0"
        var tag = format.y4mColourSpace ?? "420jpeg"
        if format == .i420 {
            // The chroma siting (H.264/H.265 E.2.1 chroma_sample_loc_type; 0, left, when absent).
            switch frame.chromaSampleLocation ?? 0 {
            case 1: tag = "420jpeg"
            case 2: tag = "420paldv"
            default: tag = "420mpeg2"
            }
        }
        var line = "YUV4MPEG2 W\(frame.width) H\(frame.height) F\(rate.numerator):\(rate.denominator) Ip A\(sar) C\(tag) XYSCSS=\(tag.uppercased())"
        switch frame.colour.fullRange {
        case true?: line += " XCOLORRANGE=FULL"
        case false?: line += " XCOLORRANGE=LIMITED"
        case nil: break
        }
        return line + "\n"
    }
}
