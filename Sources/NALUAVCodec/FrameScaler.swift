internal import CAVCodec
public import NALUEncoder

/// Resizes frames with libswscale (`libswscale-dev`), opened at first use as the decoders'
/// libraries are (`libswscale.so.<LIBSWSCALE_VERSION_MAJOR>`; `NALU_LIBSWSCALE` names another
/// file): bicubic, the same pixel format in and out (planar 4:2:0, 4:2:2, 4:4:4, 8 or 10 bits),
/// into a buffer the scaler owns and reuses. Rows are at most 32,768 bytes (16384 samples of 16
/// bits), so every stride fits libswscale's `int`.
public final class FrameScaler {
    private struct Library: @unchecked Sendable {
        let getContext: nalu_sws_getContext_fn
        let scale: nalu_sws_scale_fn
        let freeContext: nalu_sws_freeContext_fn
    }

    private static let shared = Result { () throws(EncoderError) -> Library in
        let names = SharedLibrary.fileNames(environment: "NALU_LIBSWSCALE",
                                            defaults: AVCodecLibrary.defaultFileNames(library: "swscale", major: nalu_libswscale_major()))
        do {
            let library = try SharedLibrary(fileNames: names, installHint: AVCodecLibrary.installHint("swscale", major: nalu_libswscale_major()))
            return Library(getContext: try library.function("sws_getContext"), scale: try library.function("sws_scale"),
                           freeContext: try library.function("sws_freeContext"))
        } catch {
            throw EncoderError(.libraryUnavailable, field: "libswscale", detail: "\(error)")
        }
    }

    private let library: Library
    private let context: OpaquePointer
    private let pixelFormat: PixelFormat
    private let sourceWidth: Int
    private let sourceHeight: Int
    /// The source and destination planes as libswscale takes them (aligned, padded).
    private let source: ScalerPlanes
    private let destination: ScalerPlanes
    private let output: FrameBuffer
    public let width: Int
    public let height: Int

    /// A scaler from `sourceWidth`×`sourceHeight` to `width`×`height`, both in `pixelFormat`
    /// (a planar format; semi-planar NV12/P010 are refused).
    public init(pixelFormat: PixelFormat, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) throws(EncoderError) {
        let format: AVPixelFormat
        switch pixelFormat {
        case .i420: format = AV_PIX_FMT_YUV420P
        case .yuv422p: format = AV_PIX_FMT_YUV422P
        case .yuv444p: format = AV_PIX_FMT_YUV444P
        case .yuv420p10le: format = AV_PIX_FMT_YUV420P10LE
        case .yuv422p10le: format = AV_PIX_FMT_YUV422P10LE
        case .yuv444p10le: format = AV_PIX_FMT_YUV444P10LE
        default: throw EncoderError(.unsupported, field: "pixelFormat", detail: "\(pixelFormat.ffmpegName) cannot be scaled (planar formats only)")
        }
        guard (1...16384).contains(width), (1...16384).contains(height), (1...16384).contains(sourceWidth), (1...16384).contains(sourceHeight) else {
            throw EncoderError(.invalidConfiguration, field: "scale", detail: "\(width)x\(height) from \(sourceWidth)x\(sourceHeight)")
        }
        library = try Self.shared.get()
        output = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
        source = ScalerPlanes(pixelFormat: pixelFormat, width: sourceWidth, height: sourceHeight)
        destination = ScalerPlanes(pixelFormat: pixelFormat, width: width, height: height)
        guard let context = library.getContext(Int32(sourceWidth), Int32(sourceHeight), format, Int32(width), Int32(height), format,
                                               nalu_sws_bicubic(), nil, nil, nil) else {
            throw EncoderError(.invalidConfiguration, field: "scale", detail: "libswscale refused \(sourceWidth)x\(sourceHeight) → \(width)x\(height)")
        }
        self.context = context
        self.pixelFormat = pixelFormat
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
    }

    deinit { library.freeContext(context) }

    /// `frame` resized, with its pts; valid until the next call. Throws
    /// ``NALUEncoder/EncoderError/Code/frameMismatch`` for a frame of another size or format than
    /// the scaler was made for (a stream whose size changes).
    ///
    /// libswscale reads and writes whole SIMD blocks: it writes up to a few bytes past the last
    /// sample of a row or plane whose width is not a multiple of its block (issue 40 item 1: a
    /// 2x144 output overran a tightly packed 432-byte buffer). So it works on planes of its own
    /// (rows aligned to 64 bytes, padding after each plane), copied from the frame and into the
    /// tightly packed output.
    public func scale(_ frame: Frame) throws(EncoderError) -> Frame {
        guard frame.pixelFormat == pixelFormat, frame.width == sourceWidth, frame.height == sourceHeight else {
            throw EncoderError(.frameMismatch, field: "scale",
                               detail: "frame is \(frame.width)x\(frame.height) \(frame.pixelFormat.ffmpegName), the scaler's input \(sourceWidth)x\(sourceHeight) \(pixelFormat.ffmpegName)")
        }
        for index in 0..<pixelFormat.planeCount {
            guard let plane = frame.plane(index) else { continue }
            source.copy(into: index, from: plane.baseAddress, bytesPerRow: plane.bytesPerRow)
        }
        var sources: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var sourceStrides: [Int32] = [0, 0, 0, 0]
        var destinations: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var destinationStrides: [Int32] = [0, 0, 0, 0]
        for index in 0..<pixelFormat.planeCount {
            sources[index] = UnsafePointer(source.start(of: index).assumingMemoryBound(to: UInt8.self))
            sourceStrides[index] = Int32(source.stride(of: index))
            destinations[index] = destination.start(of: index).assumingMemoryBound(to: UInt8.self)
            destinationStrides[index] = Int32(destination.stride(of: index))
        }
        _ = library.scale(context, sources, sourceStrides, 0, Int32(sourceHeight), destinations, destinationStrides)
        for index in 0..<pixelFormat.planeCount {
            destination.copy(plane: index, into: output.planeBytes(index), bytesPerRow: output.bytesPerRow(plane: index))
        }
        return output.frame(pts: frame.pts)
    }
}

/// Planes laid out as libswscale expects them (`av_frame_get_buffer`'s layout): every row
/// starting on a 64-byte boundary, and 64 bytes plus one row of padding after each plane, so
/// SIMD loads and stores past the last sample stay inside the allocation.
final class ScalerPlanes {
    static let alignment = 64
    private let base: UnsafeMutableRawPointer
    private let strides: [Int]
    private let rowBytes: [Int]
    private let rows: [Int]
    private let offsets: [Int]

    init(pixelFormat: PixelFormat, width: Int, height: Int) {
        var strides: [Int] = [], rowBytes: [Int] = [], rows: [Int] = [], offsets: [Int] = []
        var total = 0
        for plane in 0..<pixelFormat.planeCount {
            let bytes = pixelFormat.rowBytes(plane: plane, width: width)
            let count = pixelFormat.rows(plane: plane, height: height)
            // Sizes are at most 16384x16384 (checked by the caller): no overflow in Int.
            let stride = (bytes + Self.alignment - 1) / Self.alignment * Self.alignment
            offsets.append(total)
            strides.append(stride)
            rowBytes.append(bytes)
            rows.append(count)
            total += stride * (count + 1) + Self.alignment
        }
        self.strides = strides
        self.rowBytes = rowBytes
        self.rows = rows
        self.offsets = offsets
        base = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: Self.alignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: total)
    }

    deinit { base.deallocate() }

    func start(of plane: Int) -> UnsafeMutableRawPointer { base + offsets[plane] }
    func stride(of plane: Int) -> Int { strides[plane] }

    /// Copies `plane` in from rows `bytesPerRow` apart.
    func copy(into plane: Int, from source: UnsafeRawPointer, bytesPerRow: Int) {
        let destination = start(of: plane)
        for row in 0..<rows[plane] {
            (destination + row * strides[plane]).copyMemory(from: source + row * bytesPerRow, byteCount: rowBytes[plane])
        }
    }

    /// Copies `plane` out into `target`, rows `bytesPerRow` apart (tightly packed).
    func copy(plane: Int, into target: UnsafeMutableRawBufferPointer, bytesPerRow: Int) {
        guard let targetBase = target.baseAddress else { return }
        let source = start(of: plane)
        let count = min(rowBytes[plane], bytesPerRow)
        for row in 0..<rows[plane] where (row + 1) * bytesPerRow <= target.count {
            (targetBase + row * bytesPerRow).copyMemory(from: source + row * strides[plane], byteCount: count)
        }
    }
}
