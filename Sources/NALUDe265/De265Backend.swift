internal import CDe265
public import NALU
public import NALUDecoder
import NALUEncoder

/// Decodes H.265 (Main, Main 10, and the 4:2:2 / 4:4:4 RExt formats) with libde265, LGPL-3.0:
/// the backend for apps that avoid GPL code. Opened at first use (`libde265-dev`).
///
/// Output is bit-exact: each frame equals ffmpeg's `framemd5` of the same stream.
public struct De265DecoderFactory: DecoderBackendFactory {
    public init() {}

    public var name: String { "de265" }

    public func validate(codec: Codec) throws(DecoderError) {
        guard codec == .hevc else {
            throw DecoderError(.unsupported, field: "codec", detail: "libde265 decodes H.265 only, not \(codec)")
        }
        _ = try De265Library.load()
    }

    public func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend {
        try validate(codec: configuration.codec)
        return try De265Backend(configuration: configuration, library: De265Library.load())
    }

    /// The library as `nalu doctor --encoders` reports it.
    public static func libraryStatus() -> (fileName: String, version: String?, error: DecoderError?) {
        do {
            let library = try De265Library.load()
            return (library.fileName, library.getVersion().map { String(cString: $0) }, nil)
        } catch {
            return (De265Library.fileNames.first ?? "libde265", nil, error)
        }
    }
}

final class De265Backend: DecoderBackend {
    private let library: De265Library
    private let context: UnsafeMutableRawPointer
    private var parameterSets: [[UInt8]]
    private var messages: [String] = []
    private var annexB: [UInt8] = []

    init(configuration: DecoderConfiguration, library: De265Library) throws(DecoderError) {
        self.library = library
        parameterSets = configuration.parameterSets
        guard let context = library.newDecoder() else {
            throw DecoderError(.backendCreationFailed, field: "de265_new_decoder")
        }
        self.context = context
        // libde265 1.0.11's worker threads are not deterministic on every stream (open-GOP and
        // WPP fixtures decode differently from run to run): the default (0) decodes on the
        // calling thread, bit-exact; more threads only when asked for.
        let threads = configuration.threadCount
        if threads > 1 {
            let status = library.startWorkerThreads(context, Int32(threads))
            if status != DE265_OK {
                _ = library.freeDecoder(context)
                throw DecoderError(.backendCreationFailed, field: "de265_start_worker_threads", detail: library.text(status),
                                   libraryStatus: Int32(bitPattern: status.rawValue))
            }
        }
    }

    deinit { _ = library.freeDecoder(context) }

    func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError) {
        // The configuration's sets go first unless the access unit brings its own.
        let carriesSets = nalUnits.contains { unit in unit.count > 1 && Codec.hevc.isParameterSet(firstByte: unit[0]) }
        annexB.removeAll(keepingCapacity: true)
        for unit in (carriesSets ? [] : parameterSets) + nalUnits {
            annexB.append(contentsOf: [0, 0, 0, 1])
            annexB.append(contentsOf: unit)
        }
        parameterSets = []
        guard annexB.count <= Int(Int32.max) else {
            throw DecoderError(.decodeFailed, field: "de265_push_data", detail: "access unit of \(annexB.count) bytes")
        }
        // Pushed as a byte stream, as dec265 does: libde265 completes a NAL unit when the next
        // start code arrives, so the picture just pushed is decoded behind the next one's first
        // NAL unit (fed whole NAL units with de265_push_NAL and decoded at once, it outputs in
        // decoding order and loses references).
        let status = annexB.withUnsafeBytes { bytes in library.pushData(context, bytes.baseAddress, Int32(bytes.count), tag, nil) }
        if status != DE265_OK {
            throw DecoderError(.invalidSession, field: "de265_push_data", detail: library.text(status),
                               libraryStatus: Int32(bitPattern: status.rawValue))
        }
        try run(into: &pictures)
    }

    func flush(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        let status = library.flushData(context)
        if status != DE265_OK {
            throw DecoderError(.invalidSession, field: "de265_flush_data", detail: library.text(status),
                               libraryStatus: Int32(bitPattern: status.rawValue))
        }
        try run(into: &pictures)
    }

    func takeMessages() -> [String] {
        let taken = messages
        messages = []
        return taken
    }

    /// Decodes what was pushed and takes every picture that is ready.
    private func run(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        var failure: DecoderError?
        while true {
            var more: Int32 = 0
            let status = library.decode(context, &more)
            collectWarnings()
            try takePictures(into: &pictures)
            if status == DE265_ERROR_WAITING_FOR_INPUT_DATA { break }
            if status != DE265_OK {
                if more == 0 {
                    failure = DecoderError(.decodeFailed, field: "de265_decode", detail: library.text(status),
                                           libraryStatus: Int32(bitPattern: status.rawValue))
                    break
                }
                if status != DE265_ERROR_IMAGE_BUFFER_FULL { messages.append(library.text(status)) }
            }
            if more == 0 { break }
        }
        try takePictures(into: &pictures)
        if let failure { throw failure }
    }

    private func collectWarnings() {
        var count = 0
        while count < 64 {
            let warning = library.getWarning(context)
            if warning == DE265_OK { return }
            messages.append(library.text(warning))
            count += 1
        }
    }

    /// Takes every picture ready for output.
    private func takePictures(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        while let image = library.getNextPicture(context) {
            pictures.append(try copy(image))
        }
    }

    private func copy(_ image: OpaquePointer) throws(DecoderError) -> DecodedPicture {
        let chroma = library.chromaFormat(image)
        let bits = library.bitsPerPixel(image, 0)
        let pixelFormat: PixelFormat?
        switch (chroma, bits) {
        case (de265_chroma_420, 8): pixelFormat = .i420
        case (de265_chroma_422, 8): pixelFormat = .yuv422p
        case (de265_chroma_444, 8): pixelFormat = .yuv444p
        case (de265_chroma_420, 10): pixelFormat = .yuv420p10le
        case (de265_chroma_422, 10): pixelFormat = .yuv422p10le
        case (de265_chroma_444, 10): pixelFormat = .yuv444p10le
        default: pixelFormat = nil
        }
        guard let pixelFormat, library.bitsPerPixel(image, 1) == bits else {
            throw DecoderError(.unsupported, field: "chroma_format_idc", detail: "chroma format \(chroma.rawValue), \(bits)-bit (only 8- and 10-bit 4:2:0, 4:2:2 and 4:4:4 are decoded)")
        }
        let width = Int(library.imageWidth(image, 0))
        let height = Int(library.imageHeight(image, 0))
        let buffer: FrameBuffer
        do {
            buffer = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
        } catch {
            throw DecoderError(.unsupported, field: "size", detail: "\(width)x\(height) \(pixelFormat): \(error)")
        }
        for plane in 0..<3 {
            var stride: Int32 = 0
            guard let source = library.imagePlane(image, Int32(plane), &stride) else {
                throw DecoderError(.invalidSession, field: "de265_get_image_plane", detail: "plane \(plane) missing")
            }
            let rowBytes = buffer.bytesPerRow(plane: plane)
            let rows = pixelFormat.rows(plane: plane, height: height)
            let target = buffer.planeBytes(plane)
            guard let base = target.baseAddress, Int(stride) >= rowBytes else {
                throw DecoderError(.invalidSession, field: "de265_get_image_plane", detail: "plane \(plane): \(stride) bytes per row")
            }
            for row in 0..<rows {
                (base + row * rowBytes).copyMemory(from: source + row * Int(stride), byteCount: rowBytes)
            }
        }
        return DecodedPicture(buffer: buffer, tag: library.imagePTS(image))
    }
}
