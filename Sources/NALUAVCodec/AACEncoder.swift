internal import CAVCodec
public import NALUEncoder

/// One AAC frame out of ``AACEncoder``: the raw `raw_data_block()` (ISO/IEC 14496-3 1.6.3.6,
/// no ADTS header) and its presentation time in samples, negative for the encoder's priming.
public struct AACPacket: Sendable, Hashable {
    /// The frame's bytes (an MP4 sample, or the payload of an ADTS frame).
    public var bytes: [UInt8]
    /// Presentation time in samples (ticks of ``AACEncoder/sampleRate``): the input sample the
    /// frame's output starts with; the first frame, the priming, starts at −``AACEncoder/priming``.
    public var pts: Int64
    /// Samples the frame decodes to (1024).
    public var duration: Int64
}

/// Encodes PCM audio to AAC-LC with libavcodec's native AAC encoder (`libavcodec59` on Debian
/// 12), opened with `dlopen` at first use as the decoders' library is: for audio a program makes
/// itself (a tone, a microphone's samples), so it can be carried beside the video (an MPEG-TS's
/// ADTS stream, an MP4's `mp4a` track).
///
/// Samples go in as planar `Float` (−1…1), any count per call; each 1024 per channel make one
/// frame (ISO/IEC 14496-3 4.5.1.1: `frameLengthFlag` 0). ``flush()`` pads the last and drains
/// the encoder. Not thread-safe: one caller at a time.
public final class AACEncoder {
    private struct Library: @unchecked Sendable {
        let findEncoder: nalu_avcodec_find_encoder_fn
        let allocContext: nalu_avcodec_alloc_context3_fn
        let open: nalu_avcodec_open2_fn
        let freeContext: nalu_avcodec_free_context_fn
        let sendFrame: nalu_avcodec_send_frame_fn
        let receivePacket: nalu_avcodec_receive_packet_fn
        let packetAlloc: nalu_av_packet_alloc_fn
        let packetFree: nalu_av_packet_free_fn
        let packetUnref: nalu_av_packet_unref_fn
        let frameAlloc: nalu_av_frame_alloc_fn
        let frameFree: nalu_av_frame_free_fn
        let frameGetBuffer: nalu_av_frame_get_buffer_fn
        let frameUnref: nalu_av_frame_unref_fn
    }

    private static let shared = Result { () throws(EncoderError) -> Library in
        let codecNames = SharedLibrary.fileNames(environment: "NALU_LIBAVCODEC",
                                                 defaults: AVCodecLibrary.defaultFileNames(library: "avcodec", major: nalu_libavcodec_major()))
        let utilNames = SharedLibrary.fileNames(environment: "NALU_LIBAVUTIL",
                                                defaults: AVCodecLibrary.defaultFileNames(library: "avutil", major: nalu_libavutil_major()))
        // libavcodec's log goes through the decoders' router (AVCodecLibrary), which drops the
        // lines of contexts that have no log target: the encoder's end-of-stream statistics
        // ("Qavg") would otherwise reach standard error.
        _ = try? AVCodecLibrary.load()
        let util = try SharedLibrary(fileNames: utilNames, installHint: AVCodecLibrary.installHint("avutil", major: nalu_libavutil_major()))
        let codec = try SharedLibrary(fileNames: codecNames, installHint: AVCodecLibrary.installHint("avcodec", major: nalu_libavcodec_major()))
        return Library(findEncoder: try codec.function("avcodec_find_encoder"), allocContext: try codec.function("avcodec_alloc_context3"),
                       open: try codec.function("avcodec_open2"), freeContext: try codec.function("avcodec_free_context"),
                       sendFrame: try codec.function("avcodec_send_frame"), receivePacket: try codec.function("avcodec_receive_packet"),
                       packetAlloc: try codec.function("av_packet_alloc"), packetFree: try codec.function("av_packet_free"),
                       packetUnref: try codec.function("av_packet_unref"), frameAlloc: try util.function("av_frame_alloc"),
                       frameFree: try util.function("av_frame_free"), frameGetBuffer: try util.function("av_frame_get_buffer"),
                       frameUnref: try util.function("av_frame_unref"))
    }

    /// Samples per second.
    public let sampleRate: Int
    /// Channels (1 or 2).
    public let channels: Int
    /// Samples per channel in a frame (1024).
    public let frameLength = 1024
    /// The encoder's delay: its first frame presents this many samples before the input's first.
    public let priming: Int
    /// The AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1) an MP4 `esds` or the ADTS headers
    /// describe the stream with.
    public let audioSpecificConfig: [UInt8]

    private let library: Library
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Input not yet a whole frame, per channel.
    private var pending: [[Float]]
    /// Input samples sent so far (per channel): the next frame's pts.
    private var sent: Int64 = 0

    /// An encoder of `channels` (1 or 2) at `sampleRate` (8000…96000 Hz) and `bitRate` bits/s.
    /// - Throws: ``NALUEncoder/EncoderError`` `.libraryUnavailable` naming the library,
    ///   `.invalidConfiguration` for a setting out of range or one libavcodec refuses.
    public init(sampleRate: Int = 48_000, channels: Int = 1, bitRate: Int = 128_000) throws(EncoderError) {
        guard (8_000...96_000).contains(sampleRate), (1...2).contains(channels), (8_000...512_000).contains(bitRate) else {
            throw EncoderError(.invalidConfiguration, field: "aac",
                               detail: "\(sampleRate) Hz, \(channels) channel(s), \(bitRate) bit/s (8000…96000 Hz, 1 or 2, 8…512 kbit/s)")
        }
        library = try Self.shared.get()
        self.sampleRate = sampleRate
        self.channels = channels
        pending = Array(repeating: [], count: channels)
        guard let codec = library.findEncoder(AVCodecID(UInt32(nalu_codec_id_aac()))), let context = library.allocContext(codec) else {
            throw EncoderError(.libraryUnavailable, field: "avcodec_find_encoder", detail: "libavcodec has no AAC encoder")
        }
        self.context = context
        nalu_aac_configure(context, Int32(sampleRate), Int32(channels), Int64(bitRate))
        let status = library.open(context, codec, nil)
        guard status >= 0, let frame = library.frameAlloc(), let packet = library.packetAlloc() else {
            throw EncoderError(.invalidConfiguration, field: "avcodec_open2", detail: "libavcodec refused the AAC settings", libraryStatus: status)
        }
        self.frame = frame
        self.packet = packet
        priming = Int(context.pointee.initial_padding)
        // AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1): the encoder's extradata when it gives it,
        // else built: audioObjectType 2 (AAC LC), samplingFrequencyIndex, channelConfiguration.
        if let extradata = context.pointee.extradata, context.pointee.extradata_size >= 2 {
            audioSpecificConfig = Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
        } else {
            let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000]
            let index = rates.firstIndex(of: sampleRate) ?? 15
            audioSpecificConfig = [UInt8(2 << 3 | index >> 1), UInt8((index & 1) << 7 | channels << 3)]
        }
    }

    deinit {
        var context = self.context, frame = self.frame, packet = self.packet
        library.freeContext(&context)
        library.frameFree(&frame)
        library.packetFree(&packet)
    }

    /// Encodes `samples` (one array per channel, the same length each; −1…1) and returns the
    /// frames that are complete.
    /// - Throws: ``NALUEncoder/EncoderError`` `.frameMismatch` for another number of channels or
    ///   arrays of different lengths, `.encodeFailed` when libavcodec fails.
    public func encode(_ samples: [[Float]]) throws(EncoderError) -> [AACPacket] {
        guard samples.count == channels, samples.allSatisfy({ $0.count == samples[0].count }) else {
            throw EncoderError(.frameMismatch, field: "samples", detail: "\(samples.count) channel(s) of \(samples.map(\.count)) samples for \(channels)")
        }
        for channel in 0..<channels { pending[channel] += samples[channel] }
        var packets: [AACPacket] = []
        while pending[0].count >= frameLength {
            try send(count: frameLength, into: &packets)
        }
        return packets
    }

    /// Encodes what is left (padded with silence to a whole frame) and drains the encoder.
    public func flush() throws(EncoderError) -> [AACPacket] {
        var packets: [AACPacket] = []
        if !pending[0].isEmpty { try send(count: pending[0].count, into: &packets) }
        guard let context else { return packets }
        let status = library.sendFrame(context, nil)
        guard status >= 0 || status == nalu_averror_eof() else {
            throw EncoderError(.encodeFailed, field: "avcodec_send_frame", libraryStatus: status)
        }
        try receive(into: &packets)
        return packets
    }

    /// Sends the first `count` pending samples of each channel as one frame (padded to 1024).
    private func send(count: Int, into packets: inout [AACPacket]) throws(EncoderError) {
        guard let context, let frame else { return }
        nalu_aac_frame_setup(frame, context, Int32(frameLength))
        var status = library.frameGetBuffer(frame, 0)
        guard status >= 0 else { throw EncoderError(.encodeFailed, field: "av_frame_get_buffer", libraryStatus: status) }
        for channel in 0..<channels {
            guard let plane = nalu_frame_float_plane(frame, Int32(channel)) else { continue }
            for index in 0..<frameLength { plane[index] = index < count ? pending[channel][index] : 0 }
            pending[channel].removeFirst(count)
        }
        frame.pointee.pts = sent
        sent += Int64(count)
        status = library.sendFrame(context, frame)
        // The encoder holds its own reference to the buffers; ours is released for the next frame.
        library.frameUnref(frame)
        guard status >= 0 else { throw EncoderError(.encodeFailed, field: "avcodec_send_frame", libraryStatus: status) }
        try receive(into: &packets)
    }

    private func receive(into packets: inout [AACPacket]) throws(EncoderError) {
        guard let context, let packet else { return }
        while true {
            let status = library.receivePacket(context, packet)
            if status == nalu_averror_eagain() || status == nalu_averror_eof() { return }
            guard status >= 0 else { throw EncoderError(.encodeFailed, field: "avcodec_receive_packet", libraryStatus: status) }
            let bytes = packet.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(packet.pointee.size))) } ?? []
            packets.append(AACPacket(bytes: bytes, pts: packet.pointee.pts, duration: packet.pointee.duration > 0 ? packet.pointee.duration : Int64(frameLength)))
            library.packetUnref(packet)
        }
    }
}
