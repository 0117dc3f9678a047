internal import CAVCodec
public import NALUEncoder

/// Resizes frames with libswscale (`libswscale-dev`), opened at first use as the decoders'
/// libraries are (`libswscale.so.<LIBSWSCALE_VERSION_MAJOR>`; `NALU_LIBSWSCALE` names another
/// file): bicubic, the same pixel format in and out (planar 4:2:0, 4:2:2, 4:4:4, 8 or 10 bits),
/// into a buffer the scaler owns and reuses.
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
        guard (1...16384).contains(width), (1...16384).contains(height), sourceWidth > 0, sourceHeight > 0 else {
            throw EncoderError(.invalidConfiguration, field: "scale", detail: "\(width)x\(height) from \(sourceWidth)x\(sourceHeight)")
        }
        library = try Self.shared.get()
        guard let context = library.getContext(Int32(sourceWidth), Int32(sourceHeight), format, Int32(width), Int32(height), format,
                                               nalu_sws_bicubic(), nil, nil, nil) else {
            throw EncoderError(.invalidConfiguration, field: "scale", detail: "libswscale refused \(sourceWidth)x\(sourceHeight) → \(width)x\(height)")
        }
        self.context = context
        output = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
        self.width = width
        self.height = height
    }

    deinit { library.freeContext(context) }

    /// `frame` resized, with its pts; valid until the next call.
    public func scale(_ frame: Frame) -> Frame {
        var sources: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var sourceStrides: [Int32] = [0, 0, 0, 0]
        for index in 0..<3 {
            guard let plane = frame.plane(index) else { continue }
            sources[index] = plane.baseAddress.assumingMemoryBound(to: UInt8.self)
            sourceStrides[index] = Int32(clamping: plane.bytesPerRow)
        }
        var destinations: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var destinationStrides: [Int32] = [0, 0, 0, 0]
        for index in 0..<3 {
            destinations[index] = output.planeBytes(index).baseAddress?.assumingMemoryBound(to: UInt8.self)
            destinationStrides[index] = Int32(clamping: output.bytesPerRow(plane: index))
        }
        _ = library.scale(context, sources, sourceStrides, 0, Int32(clamping: frame.height), destinations, destinationStrides)
        return output.frame(pts: frame.pts)
    }
}
