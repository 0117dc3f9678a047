public import NALU
import NALUIO
public import NALUTS

/// The frames of one audio stream of a transport stream, read by a pass of its own over the
/// file (the video pass reads the video PID only): AAC in ADTS (ISO/IEC 13818-1 stream_type
/// 0x0F, ISO/IEC 13818-7), AC-3 (stream_type 0x81, or 0x06 with a DVB AC-3_descriptor; ATSC A/52
/// sync frames, ``AC3SyncFrame``) or MPEG-1/2 audio (stream_type 0x03/0x04, ISO/IEC 11172-3
/// frames, ``MPEGAudioFrameHeader``). Each frame is split by its sync header and handed out with
/// its presentation time in 90 kHz ticks, unwrapped across the 33-bit wrap: the PES packet's PTS
/// for its first frame, then ``samplesPerFrame`` per frame. An AAC frame comes without its ADTS
/// header (as an MP4 sample), an AC-3 or MPEG audio frame whole (as an MP4 sample too). The
/// PES collection, frame splitting and unwrap are ``AudioPESAssembler``'s, fed the audio PID's
/// packets one at a time.
///
/// Constant memory: one read buffer, one PES packet of audio (at most 64 KiB), the frame being
/// handed out. Damage (a PES without a PTS, a frame header that does not parse) skips to the next
/// PES packet, counted in ``skippedBytes``.
public final class TransportStreamAudioReader {
    /// How the stream is coded.
    public enum Coding: Sendable, Hashable {
        /// AAC in ADTS (stream_type 0x0F).
        case aac
        /// AC-3 (0x81; 0x06 with an AC-3_descriptor).
        case ac3
        /// MPEG-1/2 audio, Layers I–III (0x03, 0x04).
        case mpegAudio

        /// The coding of `stream`, or `nil` for one nalu does not read (AAC in LATM, E-AC-3, …).
        public init?(_ stream: ProgramElement) {
            if stream.streamType == 0x0F {
                self = .aac
            } else if stream.isAC3 {
                self = .ac3
            } else if stream.streamType == 0x03 || stream.streamType == 0x04 {
                self = .mpegAudio
            } else {
                return nil
            }
        }
    }

    /// The audio stream's PID.
    public let pid: UInt16
    /// The program map's entry of the stream (its `stream_type`, language).
    public let stream: ProgramElement
    /// How the stream is coded.
    public let coding: Coding
    /// The AudioSpecificConfig the ADTS header implies (ISO/IEC 14496-3 1.6.2.1): what an MP4
    /// `esds` carries (AAC; empty for the other codings).
    public private(set) var audioSpecificConfig: [UInt8]
    /// AC-3: the first sync frame's header (what `dac3` says).
    public var ac3: AC3SyncFrame? { assembler.ac3 }
    /// MPEG audio: the first frame's header.
    public var mpegAudio: MPEGAudioFrameHeader? { assembler.mpegAudio }
    /// Audio samples per channel in one frame: 1024 (AAC), 1536 (AC-3), 1152 (Layer II).
    public var samplesPerFrame: Int { assembler.samplesPerFrame }
    /// Samples per second and channels (from the first ADTS header).
    public private(set) var sampleRate: Int
    public private(set) var channelCount: Int
    /// The first frame's PTS (90 kHz).
    public private(set) var firstPTS: Int64
    /// Bytes of audio payload skipped as damaged.
    public var skippedBytes: Int { assembler.skippedBytes }

    private let file: FileSource
    private let packetSize: Int
    private var buffer: [UInt8]
    private var bufferStart = 0
    private var bufferEnd = 0
    private var ended = false
    /// PES collection, frame splitting and PTS unwrap of the audio PID.
    private var assembler: AudioPESAssembler
    private var peeked: (frame: [UInt8], pts: Int64)?

    /// Opens `path` again and reads up to the first frame of `stream`.
    /// - Returns: `nil` when no frame comes within the first `limit` bytes, or the stream's
    ///   coding is none nalu reads (``Coding``).
    /// - Throws: ``NALUError`` `.io` from the file.
    public init?(path: String, packetSize: Int, stream: ProgramElement, limit: Int64 = 16 << 20) throws(NALUError) {
        guard let coding = Coding(stream) else { return nil }
        self.coding = coding
        self.stream = stream
        self.pid = stream.pid
        assembler = AudioPESAssembler(pid: stream.pid, coding: coding)
        self.packetSize = packetSize == TransportStream.timestampedPacketSize ? packetSize : TransportStream.packetSize
        file = try FileSource(path: path)
        buffer = [UInt8](repeating: 0, count: self.packetSize * 1024)
        audioSpecificConfig = []
        sampleRate = 0
        channelCount = 0
        firstPTS = 0
        var read: Int64 = 0
        guard let frame = try nextFrame(countingInto: &read), read <= limit else { return nil }
        peeked = frame
        guard let config = assembler.firstConfig else { return nil }
        audioSpecificConfig = config.asc
        sampleRate = config.rate
        channelCount = config.channels
        firstPTS = peeked?.pts ?? 0
    }

    /// Opens `path` again and reads up to its first AAC frame on `pid`.
    /// - Throws: ``NALU/NALUError`` (typed): `.io` naming the path; a malformed transport stream.
    public convenience init?(path: String, packetSize: Int, pid: UInt16, limit: Int64 = 16 << 20) throws(NALUError) {
        try self.init(path: path, packetSize: packetSize, stream: ProgramElement(streamType: 0x0F, pid: pid), limit: limit)
    }

    /// The next frame and its PTS, or `nil` at the end of the file.
    public func next() throws(NALUError) -> (frame: [UInt8], pts: Int64)? {
        return try NALUError.typed(field: "audio PES") {
            if let peeked {
                self.peeked = nil
                return peeked
            }
            var read: Int64 = 0
            return try nextFrame(countingInto: &read)
        }
    }

    private func nextFrame(countingInto read: inout Int64) throws(NALUError) -> (frame: [UInt8], pts: Int64)? {
        while true {
            if let frame = assembler.nextFrame() { return frame }
            guard try readPES(countingInto: &read) else { return nil }
        }
    }

    /// Feeds the audio PID's packets to the assembler up to the end of the next whole PES
    /// packet; `false` at the end of the file.
    private func readPES(countingInto read: inout Int64) throws(NALUError) -> Bool {
        while true {
            guard let packet = try nextPacket() else {
                // The last PES packet ends with the file.
                return assembler.finish()
            }
            read += Int64(packetSize)
            if packet.withUnsafeBytes({ assembler.push($0) }) { return true }
        }
    }

    /// The next 188-byte packet (a 192-byte packet's last 188), found by its sync byte.
    private func nextPacket() throws(NALUError) -> [UInt8]? {
        while true {
            if bufferEnd - bufferStart < packetSize {
                if ended { return nil }
                if bufferStart > 0 {
                    buffer.replaceSubrange(0..<(bufferEnd - bufferStart), with: buffer[bufferStart..<bufferEnd])
                    bufferEnd -= bufferStart
                    bufferStart = 0
                }
                let count = try buffer.withMutableBytes { (raw) throws(NALUError) in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[bufferEnd...]))
                }
                if count <= 0 { ended = true } else { bufferEnd += count }
                continue
            }
            let sync = bufferStart + packetSize - TransportStream.packetSize
            guard buffer[sync] == TransportStream.syncByte else {
                bufferStart += 1
                continue
            }
            defer { bufferStart += packetSize }
            return Array(buffer[sync..<(sync + TransportStream.packetSize)])
        }
    }
}

extension MediaSource {
    /// The first ADTS AAC stream (stream_type 0x0F) of a transport stream input read from a
    /// file, opened for a second pass (``TransportStreamAudioReader``); `nil` for other inputs,
    /// standard input, or no such stream with a frame in its first 16 MiB.
    public func transportStreamAudio() throws(NALUError) -> TransportStreamAudioReader? {
        return try NALUError.typed(field: "audio stream") {
            guard case .transportStream(let packetSize) = container, path != "-",
                  let stream = transportStream?.otherStreams.first(where: { $0.streamType == 0x0F }) else { return nil }
            return try TransportStreamAudioReader(path: path, packetSize: packetSize, pid: stream.pid)
        }
    }

    /// Every audio stream of a transport stream input's program that nalu reads (AAC, AC-3,
    /// MPEG audio: ``TransportStreamAudioReader/Coding``) and that has a frame in its first 16
    /// MiB, in program map order, each opened for a pass of its own; empty for other inputs and
    /// standard input.
    public func transportStreamAudioStreams() throws(NALUError) -> [TransportStreamAudioReader] {
        return try NALUError.typed(field: "audio stream") {
            guard case .transportStream(let packetSize) = container, path != "-", let streams = transportStream?.otherStreams else { return [] }
            var readers: [TransportStreamAudioReader] = []
            for stream in streams where TransportStreamAudioReader.Coding(stream) != nil
                && readers.count < TransportStreamWriterConfiguration.maxAudioStreams {
                if let reader = try TransportStreamAudioReader(path: path, packetSize: packetSize, stream: stream) { readers.append(reader) }
            }
            return readers
        }
    }

    /// The earliest presentation time among a transport stream's first video PES packets (90
    /// kHz): where its first picture presents; `nil` when they carry none.
    public var transportStreamVideoStart: Int64? {
        transportStream?.firstTimestamps.compactMap { $0.presentation ?? $0.decoding }.min()
    }
}

extension TransportStreamAudioReader {
    /// The PTS the audio's times are taken from: where `source`'s first picture presents
    /// (``MediaSource/transportStreamVideoStart``), or, when the video PES packets carry no time
    /// stamp, the audio's own first PTS (the audio then starts with the video).
    public func origin(in source: MediaSource) -> Int64 { source.transportStreamVideoStart ?? firstPTS }
}
