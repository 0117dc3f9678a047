internal import CAVCodec
public import NALU
public import NALUDecoder
import NALUEncoder

/// Decodes H.264 and H.265 (every profile libavcodec supports: Baseline to High 4:4:4, Main,
/// Main 10, RExt) with libavcodec, the decoder ffmpeg uses, with frame threads. LGPL-2.1 as
/// Debian builds it (with `--enable-gpl`: GPL-2.0); opened at first use (`libavcodec-dev`).
///
/// Output is bit-exact: each frame equals ffmpeg's `framemd5` of the same stream.
public struct AVCodecDecoderFactory: DecoderBackendFactory {
    public init() {}

    public var name: String { "avcodec" }

    public func validate(codec: Codec) throws(DecoderError) {
        _ = try AVCodecLibrary.load()
    }

    public func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend {
        try AVCodecBackend(configuration: configuration, library: AVCodecLibrary.load())
    }

    /// The library as `nalu doctor --encoders` reports it: the file opened and its version, or
    /// why it cannot be loaded.
    public static func libraryStatus() -> (fileName: String, version: String?, error: DecoderError?) {
        do {
            let library = try AVCodecLibrary.load()
            return (library.fileName, library.versionText, nil)
        } catch {
            return (AVCodecLibrary.fileNames.first ?? "libavcodec", nil, error)
        }
    }
}

/// Collects a decoder's log lines; libavcodec's frame threads write to it, the session's thread
/// reads it.
final class DecoderMessages: @unchecked Sendable {
    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock {
            // A stream of errors must not grow without bound: the first ones say what happened.
            if lines.count < 64 { lines.append(line) }
        }
    }

    func take() -> [String] {
        lock.withLock {
            let taken = lines
            lines = []
            return taken
        }
    }
}

final class AVCodecBackend: DecoderBackend {
    private let library: AVCodecLibrary
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let messages = DecoderMessages()
    private let logTarget: UnsafeMutablePointer<nalu_av_log_target>
    /// The configuration's parameter sets, sent in front of the first access unit.
    private var parameterSets: [[UInt8]]
    private var annexB: [UInt8] = []

    init(configuration: DecoderConfiguration, library: AVCodecLibrary) throws(DecoderError) {
        self.library = library
        parameterSets = configuration.parameterSets
        let id = configuration.codec == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC
        guard let codec = library.findDecoder(id) else {
            throw DecoderError(.unsupported, field: "avcodec_find_decoder", detail: "this libavcodec has no \(configuration.codec) decoder")
        }
        guard let packet = library.packetAlloc() else {
            throw DecoderError(.backendCreationFailed, field: "av_packet_alloc")
        }
        guard let frame = library.frameAlloc() else {
            var packet: UnsafeMutablePointer<AVPacket>? = packet
            library.packetFree(&packet)
            throw DecoderError(.backendCreationFailed, field: "av_frame_alloc")
        }
        self.packet = packet
        self.frame = frame
        logTarget = .allocate(capacity: 1)
        logTarget.initialize(to: nalu_av_log_target(
            sink: { context, _, line in
                guard let context, let line else { return }
                var text = String(cString: line)
                while text.last == "\n" { text.removeLast() }
                Unmanaged<DecoderMessages>.fromOpaque(context).takeUnretainedValue().append(text)
            },
            context: Unmanaged.passUnretained(messages).toOpaque(),
            max_level: nalu_av_log_error()))
        guard let context = library.allocContext(codec) else {
            throw DecoderError(.backendCreationFailed, field: "avcodec_alloc_context3")
        }
        self.context = context
        context.pointee.opaque = UnsafeMutableRawPointer(logTarget)
        context.pointee.thread_count = Int32(clamping: configuration.threadCount)
        context.pointee.thread_type = configuration.threadCount == 1 ? 0 : nalu_ff_thread_frame_slice()
        let status = library.open(context, codec, nil)
        guard status >= 0 else {
            throw DecoderError(.backendCreationFailed, field: "avcodec_open2", detail: library.errorText(status), libraryStatus: status)
        }
    }

    deinit {
        if context != nil { library.freeContext(&context) }
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        library.packetFree(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        library.frameFree(&frame)
        logTarget.deinitialize(count: 1)
        logTarget.deallocate()
    }

    func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError) {
        guard let context else { throw DecoderError(.invalidSession, field: "avcodec_send_packet", detail: "decoder closed") }
        annexB.removeAll(keepingCapacity: true)
        for unit in parameterSets + nalUnits {
            annexB.append(contentsOf: [0, 0, 0, 1])
            annexB.append(contentsOf: unit)
        }
        parameterSets = []
        guard annexB.count <= Int(Int32.max) else {
            throw DecoderError(.decodeFailed, field: "avcodec_send_packet", detail: "access unit of \(annexB.count) bytes")
        }
        /// Sends the access unit (the packet points into `annexB` only for the call).
        func send() -> Int32 {
            let status = annexB.withUnsafeMutableBufferPointer { bytes in
                packet.pointee.data = bytes.baseAddress
                packet.pointee.size = Int32(bytes.count)
                packet.pointee.pts = tag
                packet.pointee.dts = tag
                return library.sendPacket(context, packet)
            }
            packet.pointee.data = nil
            packet.pointee.size = 0
            return status
        }
        var status = send()
        if status == nalu_averror_eagain() {
            // The decoder's output is full: take it, then the packet goes in.
            try receive(into: &pictures)
            status = send()
        }
        try receive(into: &pictures)
        if status < 0 {
            throw DecoderError(.decodeFailed, field: "avcodec_send_packet", detail: library.errorText(status), libraryStatus: status)
        }
    }

    func flush(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        guard let context else { return }
        let status = library.sendPacket(context, nil)
        try receive(into: &pictures)
        if status < 0, status != nalu_averror_eof() {
            throw DecoderError(.invalidSession, field: "avcodec_send_packet", detail: "drain: \(library.errorText(status))", libraryStatus: status)
        }
    }

    func takeMessages() -> [String] { messages.take() }

    /// Takes every frame the decoder has ready.
    private func receive(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        guard let context else { return }
        while true {
            let status = library.receiveFrame(context, frame)
            if status == nalu_averror_eagain() || status == nalu_averror_eof() { return }
            guard status >= 0 else {
                throw DecoderError(.decodeFailed, field: "avcodec_receive_frame", detail: library.errorText(status), libraryStatus: status)
            }
            defer { library.frameUnref(frame) }
            if nalu_frame_is_corrupt(frame) != 0 {
                messages.append("frame marked corrupt (decode_error_flags \(frame.pointee.decode_error_flags))")
            }
            pictures.append(try copy(frame))
        }
    }

    /// The frame's planes, tightly packed.
    private func copy(_ frame: UnsafeMutablePointer<AVFrame>) throws(DecoderError) -> DecodedPicture {
        let format = AVPixelFormat(rawValue: numericCast(frame.pointee.format))
        guard let pixelFormat = Self.pixelFormats[format.rawValue] else {
            throw DecoderError(.unsupported, field: "pix_fmt", detail: "libavcodec pixel format \(format.rawValue) (only 8- and 10-bit YUV 4:2:0, 4:2:2 and 4:4:4 are decoded)")
        }
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let buffer: FrameBuffer
        do {
            buffer = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
        } catch {
            throw DecoderError(.unsupported, field: "size", detail: "\(width)x\(height) \(pixelFormat): \(error)")
        }
        for plane in 0..<pixelFormat.planeCount {
            guard let source = nalu_frame_plane(frame, Int32(plane)) else {
                throw DecoderError(.invalidSession, field: "AVFrame.data", detail: "plane \(plane) missing")
            }
            let stride = Int(nalu_frame_linesize(frame, Int32(plane)))
            let rowBytes = buffer.bytesPerRow(plane: plane)
            let rows = pixelFormat.rows(plane: plane, height: height)
            let target = buffer.planeBytes(plane)
            guard let base = target.baseAddress, stride >= rowBytes else {
                throw DecoderError(.invalidSession, field: "AVFrame.linesize", detail: "plane \(plane): \(stride) bytes per row")
            }
            for row in 0..<rows {
                (base + row * rowBytes).copyMemory(from: source + row * stride, byteCount: rowBytes)
            }
        }
        return DecodedPicture(buffer: buffer, tag: frame.pointee.pts)
    }

    /// libavcodec's formats for the ``NALUEncoder/PixelFormat`` cases (the `yuvj` forms are the
    /// same samples, full range).
    private static let pixelFormats: [AVPixelFormat.RawValue: PixelFormat] = [
        AV_PIX_FMT_YUV420P.rawValue: .i420, AV_PIX_FMT_YUVJ420P.rawValue: .i420,
        AV_PIX_FMT_YUV422P.rawValue: .yuv422p, AV_PIX_FMT_YUVJ422P.rawValue: .yuv422p,
        AV_PIX_FMT_YUV444P.rawValue: .yuv444p, AV_PIX_FMT_YUVJ444P.rawValue: .yuv444p,
        AV_PIX_FMT_YUV420P10LE.rawValue: .yuv420p10le, AV_PIX_FMT_YUV422P10LE.rawValue: .yuv422p10le,
        AV_PIX_FMT_YUV444P10LE.rawValue: .yuv444p10le,
    ]
}
