public import NALU
public import NALUMedia
public import NALURTP

/// How ``RTPStreamTransmitter`` packetizes and paces a stream.
public struct RTPTransmitterOptions: Sendable {
    /// MTU, payload type, SSRC, packetization mode and aggregation (RFC 6184, RFC 7798).
    public var packetizer: RTPPacketizerOptions
    /// Sends each access unit at its decoding time (RFC 3550 section 5.1: the timestamp
    /// reflects the sampling instant) instead of as fast as the deliverer takes them.
    public var realtime: Bool
    /// The frame rate of an elementary stream input (it has no times of its own).
    public var frameRate: Rational?

    public init(packetizer: RTPPacketizerOptions = RTPPacketizerOptions(), realtime: Bool = false, frameRate: Rational? = nil) {
        self.packetizer = packetizer
        self.realtime = realtime
        self.frameRate = frameRate
    }
}

/// What ``RTPStreamTransmitter/transmit(_:)`` sent.
public struct RTPTransmissionReport: Sendable, Equatable {
    /// Access units packetized.
    public var accessUnits = 0
    /// RTP packets delivered.
    public var packets = 0
    /// Times the parameter sets changed mid-stream (sent in band; the SDP describes the first).
    public var parameterSetChanges = 0
}

/// A `MediaReader`'s video as RTP packets (RFC 3550; H.264 RFC 6184, H.265 RFC 7798): the
/// pipeline of `nalu rtp send` as a library type. Reads the first access unit at creation (for
/// the parameter sets of the SDP, ``sessionDescription(address:port:)``), then
/// ``transmit(_:)`` hands every packet with its send offset to a deliverer (a UDP socket, an
/// rtpdump writer, an RTSP server's interleaved channel), optionally paced in real time.
public final class RTPStreamTransmitter {
    private let reader: MediaReader
    let options: RTPTransmitterOptions
    private let timescale: Int64
    private var sender: RTPStreamSender
    private var first: CodedAccessUnit?
    /// The parameter sets the SDP carries: the record's, else the first access unit's.
    public let parameterSets: [[UInt8]]
    /// The AAC stream sent beside the video (``attachAudio(_:options:)``).
    var audio: RTPAACStreamSender?
    /// The presentation time of the first access unit (decoding order) in the video's
    /// timescale: RTP time 0 of both streams (`nil` for an elementary stream).
    public var firstPresentationTime: Int64? { firstPTS }
    private var firstPTS: Int64?

    /// Prepares `reader`'s video for packetization.
    /// - Throws: `NALUError` `.missing` (field `frame rate`) for an elementary stream without
    ///   ``RTPTransmitterOptions/frameRate``, or (field `access unit`) for a stream without any.
    public init(reader: MediaReader, options: RTPTransmitterOptions) throws(NALUError) {
        self.reader = reader
        self.options = options
        if let own = reader.timescale {
            timescale = Int64(own)
        } else if let rate = options.frameRate {
            timescale = rate.numerator
        } else {
            throw NALUError(.missing, field: "frame rate", detail: "an elementary stream has no times")
        }
        sender = try RTPStreamSender(codec: reader.codec, timescale: timescale, parameterSets: reader.outOfBandParameterSets,
                                     options: options.packetizer)
        guard let first = try NALUError.typed(field: "access unit", { try reader.nextAccessUnit() }) else { throw NALUError(.missing, field: "access unit", detail: "no access unit to send") }
        self.first = first
        firstPTS = first.pts
        parameterSets = reader.outOfBandParameterSets.isEmpty ? first.parameterSets : reader.outOfBandParameterSets
    }

    /// The SDP (RFC 8866) of the stream sent to `address`:`port`.
    /// The AAC stream, when one is attached, is on `port` + 2 (``RTPAACStreamSender``).
    public func sessionDescription(address: String, port: UInt16) -> SessionDescription {
        SessionDescription(address: address, video: RTPVideoDescription(
            codec: reader.codec, port: port, payloadType: options.packetizer.payloadType, parameterSets: parameterSets,
            packetizationMode: options.packetizer.packetizationMode).withDecodingOrder(of: options.packetizer),
            audio: audio?.description(port: port &+ 2))
    }

    /// Packetizes every access unit and hands each packet to `deliver` with its offset from the
    /// first access unit's decoding time in nanoseconds.
    /// - Throws: `NALUError` for a time out of range, an elementary stream's B picture (its
    ///   presentation order is not known from a frame rate), a unit RTP cannot carry, or what
    ///   `deliver` throws, as it threw it. Untyped (`any Error`) for that: Swift 6.3 does not give
    ///   a closure literal the typed throws of the parameter it is passed to, so a
    ///   `throws(NALUError)` `deliver` would make every caller write `throws(NALUError) in`, and
    ///   converting a caller's own error to a `NALUError` would lose its type.
    public func transmit(_ deliver: (_ packet: [UInt8], _ offsetNanoseconds: Int64) throws -> Void) throws -> RTPTransmissionReport {
        try transmitStreams { packet, offset, _ in try deliver(packet, offset) }
    }

    /// ``transmit(_:)`` of the video and the attached AAC stream: each packet handed to
    /// `deliver` with its offset and its stream. An AU goes out when the video access unit
    /// decoding at its presentation time does (the packetizer holds up to
    /// ``NALURTP/RTPAACPacketizerOptions/maxAccessUnitsPerPacket`` AUs).
    /// - Throws: as ``transmit(_:)`` (untyped for its reason).
    public func transmitStreams(_ deliver: (_ packet: [UInt8], _ offsetNanoseconds: Int64, _ stream: RTPStreamKind) throws -> Void) throws
        -> RTPTransmissionReport {
        var report = RTPTransmissionReport()
        let start = MonotonicClock.now()
        var unit = first
        first = nil
        var firstDecode: Int64?
        var lastOffset: Int64 = 0
        while let current = unit {
            let (pts, decode) = try times(of: current, index: report.accessUnits)
            if firstDecode == nil { firstDecode = decode }
            let (sinceFirst, overflow) = decode.subtractingReportingOverflow(firstDecode ?? decode)
            guard !overflow, let offset = CheckedNumber.rescale(sinceFirst, from: timescale, to: 1_000_000_000) else {
                throw NALUError(.invalidValue, field: "access unit \(current.index)", detail: "its decoding time \(decode) is out of range")
            }
            if options.realtime { MonotonicClock.sleep(nanoseconds: start + offset - MonotonicClock.now()) }
            if audio != nil {
                // An AU presenting at the video's first presentation time + t leaves at t + lead.
                let lead = CheckedNumber.rescale((firstPTS ?? pts) &- (firstDecode ?? decode), from: timescale, to: 1_000_000_000) ?? 0
                try audio?.send(through: offset, lead: lead, deliver: deliver)
                lastOffset = offset
            }
            for packet in try sender.packets(for: current, pts: pts) {
                try deliver(packet.bytes, offset, .video)
                report.packets += 1
            }
            report.accessUnits += 1
            unit = try reader.nextAccessUnit()
        }
        try audio?.finish(offset: lastOffset, deliver: deliver)
        report.parameterSetChanges = sender.parameterSetChanges
        return report
    }

    /// The presentation and decoding times of `unit` in the sender's timescale: the container's,
    /// else (an elementary stream) the frame number at the frame rate, which needs pictures in
    /// presentation order.
    private func times(of unit: CodedAccessUnit, index: Int) throws(NALUError) -> (pts: Int64, decode: Int64) {
        if let pts = unit.pts { return (pts, unit.dts ?? pts) }
        guard let rate = options.frameRate else {
            throw NALUError(.missing, field: "access unit \(unit.index)", detail: "it has no time")
        }
        if unit.pictureType == .b {
            throw NALUError(.unsupported, field: "access unit \(unit.index)",
                            detail: "a B picture: an elementary stream's presentation order is not known from a frame rate; put it in MP4 first")
        }
        guard let time = CheckedNumber.product(Int64(index), rate.denominator) else {
            throw NALUError(.doesNotFit, field: "access unit \(unit.index)", detail: "its time does not fit 64 bits")
        }
        return (time, time)
    }
}
