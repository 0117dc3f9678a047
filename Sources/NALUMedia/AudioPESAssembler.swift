import NALU
import NALUTS

/// The frames of one audio PID of a transport stream, fed one transport packet at a time: the
/// packets' payloads are collected into PES packets (ISO/IEC 13818-1 2.4.3.6), each PES packet's
/// payload is split into frames by its coding's sync header, and each frame comes out with its
/// presentation time in 90 kHz ticks, unwrapped across the 33-bit wrap: the PES packet's PTS for
/// its first frame, then ``samplesPerFrame`` per frame. The codings
/// (``TransportStreamAudioReader/Coding``): AAC in ADTS (stream_type 0x0F, ISO/IEC 13818-7 6.2.1;
/// a frame comes out without its ADTS header, 1024 samples, ISO/IEC 14496-3 4.5.1), AC-3 (ATSC
/// A/52 5.4.1 sync frames, ``AC3SyncFrame``, whole) and MPEG-1/2 audio (ISO/IEC 11172-3 2.4.1.3
/// frames, ``MPEGAudioFrameHeader``, whole). ``TransportStreamAudioReader`` feeds it from a
/// second pass over a file; ``LivePackager`` (AAC) from the single pass over a pipe.
///
/// Constant memory: one PES packet being collected (at most ``maxPESBytes``), one being split.
/// Damage (a PES without a PTS or not of an audio stream, a frame header that does not parse)
/// skips to the next PES packet, counted in ``skippedBytes``.
package struct AudioPESAssembler {
    /// The audio PID.
    let pid: UInt16
    /// How the stream is coded.
    let coding: TransportStreamAudioReader.Coding
    /// Bytes of audio payload skipped as damaged.
    package private(set) var skippedBytes = 0
    /// The first frame header's AudioSpecificConfig (AAC, ISO/IEC 14496-3 1.6.2.1; empty for
    /// the other codings), sample rate and channel count.
    package private(set) var firstConfig: (asc: [UInt8], rate: Int, channels: Int)?
    /// AC-3: the first sync frame's header.
    private(set) var ac3: AC3SyncFrame?
    /// MPEG audio: the first frame's header.
    private(set) var mpegAudio: MPEGAudioFrameHeader?
    /// Audio samples per channel in one frame: 1024 (AAC), 1536 (AC-3), 1152 (Layer II); from
    /// the first frame.
    private(set) var samplesPerFrame = 1024

    /// A PES packet of audio past this is refused as damage.
    static let maxPESBytes = 1 << 16

    /// The PES packet being collected and the one being split into frames.
    private var collecting: [UInt8] = []
    private var collectingStarted = false
    private var pending: [UInt8] = []
    private var pendingPosition = 0
    private var pendingTime: Int64 = 0
    private var samplesIntoPES: Int64 = 0
    private var lastPTS: Int64?
    private var wraps: Int64 = 0

    package init(pid: UInt16, coding: TransportStreamAudioReader.Coding = .aac) {
        self.pid = pid
        self.coding = coding
    }

    /// Reads one 188-byte transport packet (others' PIDs are ignored); `true` when it completes
    /// the PES packet before it, whose frames ``nextFrame()`` then hands out.
    package mutating func push(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard case .success(let parsed) = TransportPacket.parse(packet), parsed.pid == pid, parsed.hasPayload,
              !parsed.transportErrorIndicator, parsed.scramblingControl == 0 else { return false }
        let payload = packet[parsed.payloadOffset...]
        var done = false
        if parsed.payloadUnitStart {
            done = finish()
            collecting.removeAll(keepingCapacity: true)
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

    /// The next frame of the pending PES packet, or `nil` when it is used up (or damaged: the
    /// rest is skipped). A frame that runs on into the next PES packet (muxers may split frames)
    /// waits for it.
    package mutating func nextFrame() -> (frame: [UInt8], pts: Int64)? {
        switch coding {
        case .aac: return nextADTSFrame()
        case .ac3, .mpegAudio: return nextSyncedFrame()
        }
    }

    /// The next AC-3 sync frame (A/52 5.4.1) or MPEG audio frame (ISO/IEC 11172-3 2.4.1.3),
    /// whole, split by the length its header gives.
    private mutating func nextSyncedFrame() -> (frame: [UInt8], pts: Int64)? {
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
            skipRest(left)
            return nil
        }
        // Frame lengths are at most AC3SyncFrame.maxFrameSize / MPEGAudioFrameHeader.maxFrameLength.
        guard parsed.length > 0 else {
            skipRest(left)
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
    private mutating func nextADTSFrame() -> (frame: [UInt8], pts: Int64)? {
        let left = pending.count - pendingPosition
        guard left >= 7 else { return nil }
        let p = pendingPosition
        let bytes = pending
        // syncword 0xFFF, layer 00.
        guard bytes[p] == 0xFF, bytes[p + 1] & 0xF6 == 0xF0 else {
            skipRest(left)
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
            skipRest(left)
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

    private mutating func skipRest(_ left: Int) {
        skippedBytes += left
        pending.removeAll(keepingCapacity: true)
        pendingPosition = 0
    }

    /// Moves the collected PES packet's payload to the frames to split, with its PTS; `false`
    /// when there is none (or it has no PTS). Called at the end of the stream for the last one.
    package mutating func finish() -> Bool {
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
    private mutating func unwrap(_ pts: Int64) -> Int64 {
        let range: Int64 = 1 << 33
        if let last = lastPTS {
            let previous = last & (range - 1)
            if pts < previous && previous - pts > range / 2 { wraps &+= 1 }
        }
        let value = pts &+ wraps &* range
        lastPTS = value
        return value
    }
}
