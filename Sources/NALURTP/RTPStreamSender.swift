public import NALU

/// Turns a stream's coded access units (as NALUMedia's `MediaReader` yields them) into RTP
/// packets: presentation times moved to the 90 kHz RTP clock, parameter sets sent in band before
/// every keyframe that does not carry them (so a receiver may join at any keyframe, as
/// GStreamer's `config-interval=-1` does), packetized by ``RTPPacketizer``.
///
/// ```swift
/// var sender = try RTPStreamSender(codec: reader.codec, timescale: 90_000, parameterSets: reader.outOfBandParameterSets)
/// while let unit = try reader.nextAccessUnit() {
///     for packet in try sender.packets(for: unit) { try socket.send(packet.bytes, to: destination) }
/// }
/// ```
public struct RTPStreamSender: Sendable {
    public private(set) var packetizer: RTPPacketizer
    /// Ticks per second of the access units' times.
    public let timescale: Int64
    /// Whether parameter sets are inserted before keyframes that lack them.
    public let insertsParameterSets: Bool
    /// The parameter sets in force, for the SDP (`sprop-…`): the first ones seen.
    public private(set) var initialParameterSets: [[UInt8]]
    /// How many times the parameter sets in force changed after the first access unit (each
    /// change is sent in band; an SDP written at the start describes the first ones).
    public private(set) var parameterSetChanges = 0
    /// Access units sent.
    public private(set) var accessUnits = 0
    /// The first access unit's presentation time, in ``timescale`` ticks: RTP times count from it.
    public private(set) var firstPTS: Int64?
    private var current: [[UInt8]]

    /// - Parameters:
    ///   - timescale: ticks per second of the access units' `pts` (a container's; 90 000 for MPEG-TS).
    ///   - parameterSets: the stream's out-of-band parameter sets (an MP4 sample entry's).
    /// - Throws: ``NALU/NALUError`` `.invalidValue` for a timescale that is not positive; the
    ///   packetizer's option errors.
    public init(codec: Codec, timescale: Int64, parameterSets: [[UInt8]] = [], options: RTPPacketizerOptions = RTPPacketizerOptions(),
                insertsParameterSets: Bool = true) throws(NALUError) {
        guard timescale > 0 else { throw NALUError(.invalidValue, field: "timescale", detail: "\(timescale); must be positive") }
        packetizer = try RTPPacketizer(codec: codec, options: options)
        self.timescale = timescale
        self.insertsParameterSets = insertsParameterSets
        initialParameterSets = parameterSets
        current = parameterSets
    }

    /// The RTP presentation time of `pts` (``timescale`` ticks) in 90 kHz ticks from the first
    /// access unit's, or `nil` when it does not fit.
    public func rtpTime(pts: Int64) -> Int64? {
        let (difference, overflow) = pts.subtractingReportingOverflow(firstPTS ?? pts)
        return overflow ? nil : CheckedNumber.rescale(difference, from: timescale, to: 90_000)
    }

    /// The packets of `unit`, whose presentation time is `pts` ticks of ``timescale``.
    /// - Throws: ``NALU/NALUError``: `.invalidValue` for a time that does not convert to 90 kHz;
    ///   the packetizer's errors.
    public mutating func packets(for unit: CodedAccessUnit, pts: Int64) throws(NALUError) -> [RTPPacket] {
        if firstPTS == nil { firstPTS = pts }
        let (difference, overflow) = pts.subtractingReportingOverflow(firstPTS ?? pts)
        guard !overflow, let time = CheckedNumber.rescale(difference, from: timescale, to: 90_000) else {
            throw NALUError(.invalidValue, field: "pts", detail: "\(pts) in timescale \(timescale) does not convert to 90 kHz")
        }
        let codec = packetizer.codec
        var nalUnits = unit.nalUnits
        let inForce = unit.parameterSets.isEmpty ? current : unit.parameterSets
        if accessUnits == 0 {
            if initialParameterSets.isEmpty { initialParameterSets = inForce }
        } else if inForce != current {
            parameterSetChanges += 1
        }
        current = inForce
        if insertsParameterSets, unit.keyframe != nil || RTPTimedAccessUnit.isKeyframe(nalUnits, codec: codec),
           !nalUnits.contains(where: { codec.isParameterSet($0) }) {
            let sets = inForce.filter { codec.isParameterSet($0) }
            // After an access unit delimiter, if there is one (H.264 7.4.1.2.3, H.265 7.4.2.4.4).
            let position = (nalUnits.first?.first).map { codec.isAccessUnitDelimiter(firstByte: $0) } == true ? 1 : 0
            nalUnits.insert(contentsOf: sets, at: position)
        }
        accessUnits += 1
        do {
            return try packetizer.packetize(nalUnits: nalUnits, timestamp: packetizer.timestamp(pts90kHz: time))
        } catch {
            throw NALUError(error.code, field: "access unit \(unit.index): \(error.field)", byteOffset: unit.byteOffset, detail: error.detail)
        }
    }
}
