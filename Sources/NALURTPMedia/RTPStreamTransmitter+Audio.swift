public import NALU
public import NALURTP

/// Which stream of a session a packet belongs to.
public enum RTPStreamKind: Sendable, Hashable {
    case video
    case audio
}

/// Packetizes an ``RTPAACSendSource``'s AUs (``NALURTP/RTPAACPacketizer``, AAC-hbr) in step
/// with the video ``RTPStreamTransmitter`` sends: RTP time 0 is the instant the video's first
/// access unit presents, in ticks of the sampling rate (plus the packetizer's offset).
final class RTPAACStreamSender {
    let source: RTPAACSendSource
    private(set) var packetizer: RTPAACPacketizer
    private var pending: (bytes: [UInt8], time: Int64)?
    private var done = false
    /// AUs and packets sent.
    private(set) var accessUnits = 0
    private(set) var packets = 0

    init(source: RTPAACSendSource, options: RTPAACPacketizerOptions) throws {
        self.source = source
        let duration = try RTPAACPayloadFormat.frameLength(audioSpecificConfig: source.audioSpecificConfig)
        packetizer = try RTPAACPacketizer(format: .hbr(clockRate: source.sampleRate, accessUnitDuration: duration), options: options)
    }

    func description(port: UInt16) -> RTPAACDescription {
        source.description(port: port, payloadType: packetizer.options.payloadType)
    }

    /// Sends the AUs due by `offset` nanoseconds (an AU presenting at time t after the video's
    /// first access unit is due at t + `lead`).
    func send(through offset: Int64, lead: Int64, deliver: (_ packet: [UInt8], _ offset: Int64, _ stream: RTPStreamKind) throws -> Void) throws {
        while let unit = try peek() {
            let due = (CheckedNumber.rescale(unit.time, from: Int64(source.sampleRate), to: 1_000_000_000) ?? 0) &+ lead
            guard due <= offset else { return }
            pending = nil
            try push(unit, offset: offset, deliver: deliver)
        }
    }

    /// Sends what is left (the end of the video) at `offset`.
    func finish(offset: Int64, deliver: (_ packet: [UInt8], _ offset: Int64, _ stream: RTPStreamKind) throws -> Void) throws {
        while let unit = try peek() {
            pending = nil
            try push(unit, offset: offset, deliver: deliver)
        }
        for packet in packetizer.flush() {
            try deliver(packet.bytes, offset, .audio)
            packets += 1
        }
    }

    private func push(_ unit: (bytes: [UInt8], time: Int64), offset: Int64,
                      deliver: (_ packet: [UInt8], _ offset: Int64, _ stream: RTPStreamKind) throws -> Void) throws {
        for packet in try packetizer.push(unit.bytes, timestamp: packetizer.timestamp(ticks: unit.time)) {
            try deliver(packet.bytes, offset, .audio)
            packets += 1
        }
        accessUnits += 1
    }

    private func peek() throws -> (bytes: [UInt8], time: Int64)? {
        if pending == nil, !done {
            pending = try source.next()
            if pending == nil { done = true }
        }
        return pending
    }
}

extension RTPStreamTransmitter {
    /// Sends `source`'s AAC stream beside the video (RFC 3640 AAC-hbr, its own SSRC and
    /// payload type from `options`), on the port after the video's RTCP port
    /// (``transmit(to:rtpdump:sdp:)``: the video's + 2) and in the SDP.
    /// - Throws: `NALUError` for packetizer options out of range or an AudioSpecificConfig too short.
    public func attachAudio(_ source: RTPAACSendSource, options: RTPAACPacketizerOptions) throws(NALUError) {
        audio = try NALUError.typed(field: "audio") { try RTPAACStreamSender(source: source, options: options) }
    }

    /// AUs and packets of the AAC stream sent so far (0 without one).
    public var audioSent: (accessUnits: Int, packets: Int) { (audio?.accessUnits ?? 0, audio?.packets ?? 0) }
}

extension RTPStreamTransmitter {
    /// Both streams' RTP timestamps at the media instant of `timestamp` of `stream`: RTP time 0
    /// of each stream (before its packetizer's offset) is the video's first presentation time,
    /// so one instant maps to the two clocks (90 kHz, the AAC sampling rate). The sender
    /// reports of the two streams take their RTP times from here, so that a receiver lines
    /// the streams up by them (RFC 3550 6.4.1: the SRs' NTP ↔ RTP pairs of one clock).
    func timestamps(at timestamp: UInt32, of stream: RTPStreamKind) -> (video: UInt32, audio: UInt32?) {
        let videoOffset = options.packetizer.timestampOffset
        guard let audio else { return (stream == .video ? timestamp : videoOffset, nil) }
        let rate = Int64(max(1, audio.source.sampleRate))
        let audioOffset = audio.packetizer.options.timestampOffset
        // The first packets are near RTP time 0: a signed 32-bit distance from the offset.
        switch stream {
        case .video:
            let ticks = Int64(Int32(bitPattern: timestamp &- videoOffset))
            return (timestamp, audioOffset &+ UInt32(truncatingIfNeeded: ticks * rate / 90_000))
        case .audio:
            let ticks = Int64(Int32(bitPattern: timestamp &- audioOffset))
            return (videoOffset &+ UInt32(truncatingIfNeeded: ticks * 90_000 / rate), timestamp)
        }
    }

    /// The AAC stream's sampling rate (its RTP clock rate), when one is attached.
    public var audioClockRate: Int? { audio?.source.sampleRate }
}
