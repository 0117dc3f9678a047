import NALU
import NALUIO
import NALUTS

/// The AAC frames of a transport stream's first ADTS audio stream (ISO/IEC 13818-1 stream_type
/// 0x0F, ISO/IEC 13818-7 ADTS), read by a pass of its own over the file (the video pass reads
/// the video PID only): each frame's raw bytes (the ADTS header removed) with its presentation
/// time in 90 kHz ticks, unwrapped across the 33-bit wrap: the PES packet's PTS for its first
/// frame, then 1024 samples per frame.
///
/// Constant memory: one read buffer, one PES packet of audio (at most 64 KiB), the frame being
/// handed out. Damage (a PES without a PTS, an ADTS frame that does not parse) skips to the next
/// PES packet, counted in ``skippedBytes``.
public final class TransportStreamAudioReader {
    /// The audio stream's PID.
    public let pid: UInt16
    /// The AudioSpecificConfig the ADTS header implies (ISO/IEC 14496-3 1.6.2.1): what an MP4
    /// `esds` carries.
    public private(set) var audioSpecificConfig: [UInt8]
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
    /// The PES packets and ADTS frames of the audio PID.
    private var assembler: ADTSPESAssembler
    private var peeked: (frame: [UInt8], pts: Int64)?

    /// A PES packet of audio past this is refused as damage.
    static let maxPESBytes = ADTSPESAssembler.maxPESBytes

    /// Opens `path` again and reads up to its first AAC frame on `pid`.
    /// - Returns: `nil` when no frame comes within the first `limit` bytes.
    /// - Throws: ``NALUError`` `.io` from the file, `.unsupported` for ADTS that is not AAC the MP4
    ///   and ADTS muxers can carry.
    public init?(path: String, packetSize: Int, pid: UInt16, limit: Int64 = 16 << 20) throws {
        self.pid = pid
        assembler = ADTSPESAssembler(pid: pid)
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
        guard let config = firstConfig else { return nil }
        audioSpecificConfig = config.asc
        sampleRate = config.rate
        channelCount = config.channels
        firstPTS = peeked?.pts ?? 0
    }

    private var firstConfig: (asc: [UInt8], rate: Int, channels: Int)? { assembler.firstConfig }

    /// The next frame and its PTS, or `nil` at the end of the file.
    public func next() throws -> (frame: [UInt8], pts: Int64)? {
        if let peeked {
            self.peeked = nil
            return peeked
        }
        var read: Int64 = 0
        return try nextFrame(countingInto: &read)
    }

    private func nextFrame(countingInto read: inout Int64) throws -> (frame: [UInt8], pts: Int64)? {
        while true {
            if let frame = assembler.nextFrame() { return frame }
            guard try readPES(countingInto: &read) else { return nil }
        }
    }

    /// Collects the next whole PES packet of the audio PID for ``ADTSPESAssembler``; `false` at the end.
    private func readPES(countingInto read: inout Int64) throws -> Bool {
        while true {
            // The last PES packet ends with the file.
            guard let packet = try nextPacket() else { return assembler.finish() }
            read += Int64(packetSize)
            if packet.withUnsafeBytes({ assembler.push($0) }) { return true }
        }
    }

    /// The next 188-byte packet (a 192-byte packet's last 188), found by its sync byte.
    private func nextPacket() throws -> [UInt8]? {
        while true {
            if bufferEnd - bufferStart < packetSize {
                if ended { return nil }
                if bufferStart > 0 {
                    buffer.replaceSubrange(0..<(bufferEnd - bufferStart), with: buffer[bufferStart..<bufferEnd])
                    bufferEnd -= bufferStart
                    bufferStart = 0
                }
                let count = try buffer.withUnsafeMutableBytes { raw in
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
    public func transportStreamAudio() throws -> TransportStreamAudioReader? {
        guard case .transportStream(let packetSize) = container, path != "-",
              let stream = transportStream?.otherStreams.first(where: { $0.streamType == 0x0F }) else { return nil }
        return try TransportStreamAudioReader(path: path, packetSize: packetSize, pid: stream.pid)
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
