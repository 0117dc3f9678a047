import NALU
import NALUIO
public import NALUTS

/// The frames of one audio stream of a transport stream, read by a pass of its own over the
/// file (the video pass reads the video PID only): AAC in ADTS (ISO/IEC 13818-1 stream_type
/// 0x0F, ISO/IEC 13818-7), AC-3 (stream_type 0x81, or 0x06 with a DVB AC-3_descriptor; ATSC A/52
/// sync frames, ``AC3SyncFrame``) or MPEG-1/2 audio (stream_type 0x03/0x04, ISO/IEC 11172-3
/// frames, ``MPEGAudioFrameHeader``). Each frame is split by its sync header and handed out with
/// its presentation time in 90 kHz ticks, unwrapped across the 33-bit wrap: the PES packet's PTS
/// for its first frame, then ``samplesPerFrame`` per frame. An AAC frame comes without its ADTS
/// header (as an MP4 sample), an AC-3 or MPEG audio frame whole (as an MP4 sample too).
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
    public private(set) var ac3: AC3SyncFrame?
    /// MPEG audio: the first frame's header.
    public private(set) var mpegAudio: MPEGAudioFrameHeader?
    /// Audio samples per channel in one frame: 1024 (AAC), 1536 (AC-3), 1152 (Layer II).
    public private(set) var samplesPerFrame = 1024
    /// Samples per second and channels (from the first ADTS header).
    public private(set) var sampleRate: Int
    public private(set) var channelCount: Int
    /// The first frame's PTS (90 kHz).
    public private(set) var firstPTS: Int64
    /// Bytes of audio payload skipped as damaged.
    public private(set) var skippedBytes = 0

    private let file: FileSource
    private let packetSize: Int
    private var buffer: [UInt8]
    private var bufferStart = 0
    private var bufferEnd = 0
    private var ended = false
    /// The PES packet being collected and the one being split into frames.
    private var collecting: [UInt8] = []
    private var collectingPTS: Int64?
    private var pending: [UInt8] = []
    private var pendingPosition = 0
    private var pendingTime: Int64 = 0
    private var samplesIntoPES: Int64 = 0
    private var lastPTS: Int64?
    private var wraps: Int64 = 0
    private var peeked: (frame: [UInt8], pts: Int64)?

    /// A PES packet of audio past this is refused as damage.
    static let maxPESBytes = 1 << 16

    /// Opens `path` again and reads up to the first frame of `stream`.
    /// - Returns: `nil` when no frame comes within the first `limit` bytes, or the stream's
    ///   coding is none nalu reads (``Coding``).
    /// - Throws: ``NALUError`` `.io` from the file.
    public init?(path: String, packetSize: Int, stream: ProgramElement, limit: Int64 = 16 << 20) throws {
        guard let coding = Coding(stream) else { return nil }
        self.coding = coding
        self.stream = stream
        self.pid = stream.pid
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

    /// Opens `path` again and reads up to its first AAC frame on `pid`.
    public convenience init?(path: String, packetSize: Int, pid: UInt16, limit: Int64 = 16 << 20) throws {
        try self.init(path: path, packetSize: packetSize, stream: ProgramElement(streamType: 0x0F, pid: pid), limit: limit)
    }

    private var firstConfig: (asc: [UInt8], rate: Int, channels: Int)?

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
            if let frame = splitFrame() { return frame }
            guard try readPES(countingInto: &read) else { return nil }
        }
    }

    /// The rest of the pending PES packet is damage: skipped.
    private func skipPending() {
        skippedBytes += pending.count - pendingPosition
        pending.removeAll(keepingCapacity: true)
        pendingPosition = 0
    }

    /// The next frame of the pending PES packet, or `nil` when it is used up (or damaged: the
    /// rest is skipped). A frame that runs on into the next PES packet (muxers may split frames)
    /// waits for it in `pending`.
    private func splitFrame() -> (frame: [UInt8], pts: Int64)? {
        switch coding {
        case .aac: return splitADTSFrame()
        case .ac3, .mpegAudio: return splitSyncedFrame()
        }
    }

    /// The next AC-3 sync frame (A/52 5.4.1) or MPEG audio frame (ISO/IEC 11172-3 2.4.1.3),
    /// whole, split by the length its header gives.
    private func splitSyncedFrame() -> (frame: [UInt8], pts: Int64)? {
        let left = pending.count - pendingPosition
        let p = pendingPosition
        let parsed: (length: Int, rate: Int, channels: Int, samples: Int)
        do {
            if coding == .ac3 {
                guard left >= AC3SyncFrame.headerLength else { return nil }
                let header = try pending.withUnsafeBytes { try AC3SyncFrame(UnsafeRawBufferPointer(rebasing: $0[p..<(p + AC3SyncFrame.headerLength)])) }
                if ac3 == nil { ac3 = header }
                parsed = (header.frameSize, header.sampleRate, header.channelCount, AC3SyncFrame.samplesPerFrame)
            } else {
                guard left >= MPEGAudioFrameHeader.length else { return nil }
                let header = try pending.withUnsafeBytes { try MPEGAudioFrameHeader(UnsafeRawBufferPointer(rebasing: $0[p..<(p + MPEGAudioFrameHeader.length)])) }
                if mpegAudio == nil { mpegAudio = header }
                parsed = (header.frameLength, header.sampleRate, header.channelCount, header.samplesPerFrame)
            }
        } catch {
            skipPending()
            return nil
        }
        // Frame lengths are at most AC3SyncFrame.maxFrameSize / MPEGAudioFrameHeader.maxFrameLength.
        guard parsed.length > 0 else {
            skipPending()
            return nil
        }
        if parsed.length > left { return nil }
        if firstConfig == nil {
            firstConfig = ([], parsed.rate, parsed.channels)
            samplesPerFrame = parsed.samples
        }
        let rate = Int64(firstConfig?.rate ?? 48_000)
        let frame = Array(pending[p..<(p + parsed.length)])
        let time = pendingTime &+ samplesIntoPES &* 90_000 / max(1, rate)
        samplesIntoPES &+= Int64(samplesPerFrame)
        pendingPosition += parsed.length
        return (frame, time)
    }

    /// The next ADTS frame of the pending PES packet (ISO/IEC 13818-7 6.2.1), its header removed.
    private func splitADTSFrame() -> (frame: [UInt8], pts: Int64)? {
        let left = pending.count - pendingPosition
        guard left >= 7 else { return nil }
        let p = pendingPosition
        let bytes = pending
        // syncword 0xFFF, layer 00.
        guard bytes[p] == 0xFF, bytes[p + 1] & 0xF6 == 0xF0 else {
            skippedBytes += left
            pending.removeAll(keepingCapacity: true)
            pendingPosition = 0
            return nil
        }
        let protectionAbsent = bytes[p + 1] & 1 == 1
        let profile = Int(bytes[p + 2] >> 6)
        let frequencyIndex = Int((bytes[p + 2] >> 2) & 0x0F)
        let channels = Int((bytes[p + 2] & 1) << 2 | bytes[p + 3] >> 6)
        let frameLength = Int(bytes[p + 3] & 0x03) << 11 | Int(bytes[p + 4]) << 3 | Int(bytes[p + 5] >> 5)
        let blocks = Int(bytes[p + 6] & 0x03)
        let headerLength = protectionAbsent ? 7 : 9
        if frameLength > left && frameLength > headerLength && frameLength <= ADTSHeader.maxFrameLength { return nil }
        guard frameLength > headerLength, frameLength <= left, blocks == 0,
              frequencyIndex < ADTSHeader.samplingFrequencies.count, (1...7).contains(channels) else {
            skippedBytes += left
            pending.removeAll(keepingCapacity: true)
            pendingPosition = 0
            return nil
        }
        if firstConfig == nil {
            // AudioSpecificConfig: audioObjectType (profile + 1) 5 bits, samplingFrequencyIndex 4, channelConfiguration 4.
            let objectType = profile + 1
            let asc = [UInt8(objectType << 3 | frequencyIndex >> 1), UInt8((frequencyIndex & 1) << 7 | channels << 3)]
            firstConfig = (asc, ADTSHeader.samplingFrequencies[frequencyIndex], channels)
        }
        let rate = Int64(firstConfig?.rate ?? 48_000)
        let frame = Array(bytes[(p + headerLength)..<(p + frameLength)])
        let time = pendingTime &+ samplesIntoPES &* 90_000 / max(1, rate)
        samplesIntoPES &+= 1024
        pendingPosition += frameLength
        return (frame, time)
    }

    /// Collects the next whole PES packet of the audio PID into `pending`; `false` at the end.
    private func readPES(countingInto read: inout Int64) throws -> Bool {
        while true {
            guard let packet = try nextPacket() else {
                // The last PES packet ends with the file.
                return finishCollecting()
            }
            read += Int64(packetSize)
            let finished = packet.withUnsafeBytes { raw -> Bool in
                guard case .success(let parsed) = TransportPacket.parse(raw), parsed.pid == pid, parsed.hasPayload,
                      !parsed.transportErrorIndicator, parsed.scramblingControl == 0 else { return false }
                let payload = raw[parsed.payloadOffset...]
                var done = false
                if parsed.payloadUnitStart {
                    done = finishCollecting()
                    collecting.removeAll(keepingCapacity: true)
                    collectingPTS = nil
                    collecting.append(contentsOf: payload)
                    collectingStarted = true
                } else if collectingStarted {
                    if collecting.count + payload.count <= Self.maxPESBytes + PESHeader.maximumLength {
                        collecting.append(contentsOf: payload)
                    } else {
                        skippedBytes += collecting.count
                        collecting.removeAll(keepingCapacity: true)
                        collectingStarted = false
                    }
                }
                return done
            }
            if finished { return true }
        }
    }

    private var collectingStarted = false

    /// Moves the collected PES packet's payload to `pending` with its PTS; `false` when there is
    /// none (or it has no PTS).
    private func finishCollecting() -> Bool {
        guard collectingStarted else { return false }
        collectingStarted = false
        let outcome = collecting.withUnsafeBytes { PESHeader.parse($0) }
        guard case .header(let pes) = outcome, isAudioStreamID(pes.streamID), let pts = pes.presentationTimestamp,
              pes.headerLength <= collecting.count else {
            skippedBytes += collecting.count
            collecting.removeAll(keepingCapacity: true)
            return false
        }
        // A frame begun in the previous packet goes on here: its time runs on from that packet's.
        let leftover = pendingPosition < pending.count ? Array(pending[pendingPosition...]) : []
        let time = unwrap(pts)
        pending = leftover + collecting[pes.headerLength...]
        pendingPosition = 0
        if leftover.isEmpty {
            pendingTime = time
            samplesIntoPES = 0
        }
        collecting.removeAll(keepingCapacity: true)
        return true
    }

    /// Audio stream numbers 0xC0–0xDF (ISO/IEC 13818-1 Table 2-22); AC-3 also in private_stream_1
    /// (0xBD, ATSC A/52 Annex A) and extended_stream_id (0xFD, as M2TS writes it).
    private func isAudioStreamID(_ id: UInt8) -> Bool {
        (0xC0...0xDF).contains(id) || (coding == .ac3 && (id == 0xBD || id == 0xFD))
    }

    /// A 33-bit PTS made monotonic across wraps (a jump back of more than half the range).
    private func unwrap(_ pts: Int64) -> Int64 {
        let range: Int64 = 1 << 33
        if let last = lastPTS {
            let previous = last & (range - 1)
            if pts < previous && previous - pts > range / 2 { wraps &+= 1 }
        }
        let value = pts &+ wraps &* range
        lastPTS = value
        return value
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

    /// Every audio stream of a transport stream input's program that nalu reads (AAC, AC-3,
    /// MPEG audio: ``TransportStreamAudioReader/Coding``) and that has a frame in its first 16
    /// MiB, in program map order, each opened for a pass of its own; empty for other inputs and
    /// standard input.
    public func transportStreamAudioStreams() throws -> [TransportStreamAudioReader] {
        guard case .transportStream(let packetSize) = container, path != "-", let streams = transportStream?.otherStreams else { return [] }
        var readers: [TransportStreamAudioReader] = []
        for stream in streams where TransportStreamAudioReader.Coding(stream) != nil
            && readers.count < TransportStreamWriterConfiguration.maxAudioStreams {
            if let reader = try TransportStreamAudioReader(path: path, packetSize: packetSize, stream: stream) { readers.append(reader) }
        }
        return readers
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
