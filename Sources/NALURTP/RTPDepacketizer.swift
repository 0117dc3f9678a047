public import NALU

/// How a received stream is packetized (from its SDP: ``RTPVideoDescription``).
public struct RTPPayloadFormat: Sendable, Hashable {
    public var codec: Codec
    /// H.264 `packetization-mode` (RFC 6184 8.1).
    public var packetizationMode: H264PacketizationMode
    /// H.265 `sprop-max-don-diff` (RFC 7798 7.1): above 0, packets carry DONL/DOND fields.
    public var maxDonDiff: Int
    /// The de-interleaving buffer's size from the SDP (`sprop-interleaving-depth`,
    /// `sprop-deint-buf-req`, `sprop-init-buf-time`; `sprop-depack-buf-nalus`,
    /// `sprop-depack-buf-bytes`); the receiver takes its ``RTPDecodingOrderLimits/maxDonDiff``
    /// from ``maxDonDiff``.
    public var decodingOrder: RTPDecodingOrderLimits

    public init(codec: Codec, packetizationMode: H264PacketizationMode = .nonInterleaved, maxDonDiff: Int = 0,
                decodingOrder: RTPDecodingOrderLimits = RTPDecodingOrderLimits()) {
        self.codec = codec
        self.packetizationMode = packetizationMode
        self.maxDonDiff = maxDonDiff
        self.decodingOrder = decodingOrder
        self.decodingOrder.maxDonDiff = maxDonDiff
    }

    /// Whether H.265 payloads carry DONL/DOND (RFC 7798 4.4: `sprop-max-don-diff` > 0).
    var hasDON: Bool { codec == .hevc && maxDonDiff > 0 }

    /// Whether NAL units carry decoding order numbers and are put in decoding order by the
    /// receiver: H.264 interleaved mode (RFC 6184 5.5), H.265 with `sprop-max-don-diff` > 0
    /// (RFC 7798 6).
    public var usesDecodingOrderNumbers: Bool {
        codec == .hevc ? maxDonDiff > 0 : packetizationMode == .interleaved
    }
}

/// A NAL unit taken out of RTP payloads.
public struct DepacketizedNALUnit: Sendable, Hashable {
    /// The NAL unit, header included; `forbidden_zero_bit` set when ``isDamaged``.
    public var bytes: [UInt8]
    /// Whether fragments of it were lost (its end; never its start: a NAL unit is never rebuilt
    /// from a middle fragment).
    public var isDamaged: Bool
    /// Its decoding order number, when the payload carries one (H.264 STAP-B, MTAP, FU-B;
    /// H.265 with `sprop-max-don-diff` > 0).
    public var decodingOrderNumber: Int?
    /// An MTAP unit's timestamp offset (RFC 6184 5.7.2: its timestamp is the packet's plus this);
    /// 0 for the others.
    public var timestampOffset: UInt32 = 0
}

/// What one payload gave: NAL units, and what was wrong with it.
public struct DepacketizedPayload: Sendable {
    public var nalUnits: [DepacketizedNALUnit] = []
    /// Fragments skipped because their NAL unit's first fragment was not received.
    public var fragmentsWithoutStart = 0
    /// H.265 PACI packets skipped (RFC 7798 4.4.4).
    public var skippedPACI = 0
}

/// Takes NAL units out of RTP payloads in transmission order: H.264 (RFC 6184) single NAL unit,
/// STAP-A, STAP-B, MTAP16, MTAP24, FU-A and FU-B; H.265 (RFC 7798) single NAL unit, aggregation
/// packets, fragmentation units, with DONL/DOND when `sprop-max-don-diff` > 0; H.265 PACI packets
/// are skipped with a count.
///
/// A fragmented NAL unit is rebuilt from its start fragment only; fragments without one are
/// skipped and counted. ``interrupt()`` (packets were lost) hands back the NAL unit being
/// rebuilt, marked damaged. Decoding order numbers are reported here; ``RTPReceiver`` puts the
/// units in decoding order (``RTPDecodingOrderBuffer``).
public struct RTPDepacketizer: Sendable {
    public let format: RTPPayloadFormat
    /// The largest NAL unit rebuilt, in bytes (`.tooLarge` past it).
    public let maxNALUnitBytes: Int
    /// The NAL unit being rebuilt from fragments.
    private var fragment: (bytes: [UInt8], don: Int?)?

    public init(format: RTPPayloadFormat, maxNALUnitBytes: Int = 64 << 20) {
        self.format = format
        self.maxNALUnitBytes = maxNALUnitBytes
    }

    /// Whether a fragmented NAL unit is being rebuilt.
    public var isInsideFragmentedUnit: Bool { fragment != nil }

    /// Packets were lost: the NAL unit being rebuilt, if any, ends here damaged
    /// (`forbidden_zero_bit` set, RFC 6184 5.3).
    public mutating func interrupt() -> DepacketizedNALUnit? {
        guard var partial = fragment else { return nil }
        fragment = nil
        ForbiddenZeroBit.set(in: &partial.bytes)
        return DepacketizedNALUnit(bytes: partial.bytes, isDamaged: true, decodingOrderNumber: partial.don)
    }

    /// The NAL units of one payload.
    /// - Throws: ``NALU/NALUError`` naming the payload's field and its byte offset: `.truncated`
    ///   for a payload shorter than its headers or aggregated sizes, `.invalidValue` for a
    ///   packet type the packetization mode does not allow (or an undefined one), `.tooLarge` for
    ///   a NAL unit above ``maxNALUnitBytes``. The payload gives nothing then; a NAL unit being
    ///   rebuilt is kept.
    public mutating func depacketize(_ payload: [UInt8]) throws(NALUError) -> DepacketizedPayload {
        switch format.codec {
        case .h264: try h264(payload)
        case .hevc: try hevc(payload)
        }
    }

    // MARK: H.264 (RFC 6184 5.2)

    private mutating func h264(_ payload: [UInt8]) throws(NALUError) -> DepacketizedPayload {
        guard let first = payload.first else { throw NALUError(.truncated, field: "RTP payload header", byteOffset: 0) }
        let type = AVCNALUnitHeader.payloadHeader(first).header.nalUnitType
        var result = DepacketizedPayload()
        let mode = format.packetizationMode
        switch type.rawValue {
        case 1...23:
            guard mode != .interleaved else { throw notAllowed("single NAL unit packet", type.rawValue) }
            result.nalUnits.append(DepacketizedNALUnit(bytes: payload, isDamaged: ForbiddenZeroBit.isSet(in: payload)))
        case AVCNALUnitType.stapA.rawValue:
            guard mode == .nonInterleaved else { throw notAllowed("STAP-A", type.rawValue) }
            result.nalUnits = try aggregated(payload, from: 1, don: nil, donDifferences: false, timestampOffsetBytes: 0)
        case AVCNALUnitType.stapB.rawValue:
            guard mode == .interleaved else { throw notAllowed("STAP-B", type.rawValue) }
            let don = try read16(payload, at: 1, field: "DON")
            result.nalUnits = try aggregated(payload, from: 3, don: don, donDifferences: false, timestampOffsetBytes: 0)
        case AVCNALUnitType.mtap16.rawValue, AVCNALUnitType.mtap24.rawValue:
            guard mode == .interleaved else { throw notAllowed("MTAP", type.rawValue) }
            let base = try read16(payload, at: 1, field: "DONB")
            result.nalUnits = try aggregated(payload, from: 3, don: base, donDifferences: true,
                                             timestampOffsetBytes: type == .mtap16 ? 2 : 3)
        case AVCNALUnitType.fuA.rawValue, AVCNALUnitType.fuB.rawValue:
            guard mode != .singleNALUnit, type == .fuA || mode == .interleaved else { throw notAllowed("FU", type.rawValue) }
            guard payload.count >= 2 else { throw NALUError(.truncated, field: "FU header", byteOffset: 1) }
            let header = RTPFragmentHeader(byte: payload[1], codec: .h264)
            if type == .fuA, mode == .interleaved, header.isStart {
                // RFC 6184 5.8: in interleaved mode the first fragment is an FU-B (it carries the DON).
                throw NALUError(.invalidValue, field: "FU-A S bit", byteOffset: 1, detail: "interleaved mode starts a fragmented NAL unit with FU-B")
            }
            var start = 2
            var don: Int?
            if type == .fuB {
                guard header.isStart else { throw NALUError(.invalidValue, field: "FU-B S bit", byteOffset: 1, detail: "FU-B is the first fragment only") }
                don = try read16(payload, at: 2, field: "DON")
                start = 4
            }
            let indicator = AVCNALUnitHeader.payloadHeader(first)
            let nalHeader = AVCNALUnitHeader(nalRefIdc: indicator.header.nalRefIdc, nalUnitType: AVCNALUnitType(rawValue: header.nalUnitType))
            try fragmentArrived(header, headerBytes: [nalHeader.byte(forbiddenBit: indicator.forbiddenBit)], body: payload[start...],
                                don: don, into: &result)
        default:
            throw NALUError(.invalidValue, field: "RTP payload type (NAL unit type)", byteOffset: 0,
                            detail: "\(type.rawValue) is undefined in RFC 6184")
        }
        return result
    }

    // MARK: H.265 (RFC 7798 4.4)

    private mutating func hevc(_ payload: [UInt8]) throws(NALUError) -> DepacketizedPayload {
        guard payload.count >= 2 else { throw NALUError(.truncated, field: "PayloadHdr", byteOffset: Int64(payload.count)) }
        let (header, forbidden) = HEVCNALUnitHeader.payloadHeader(payload[0], payload[1])
        guard header.nuhTemporalIdPlus1 != 0 else {
            throw NALUError(.invalidValue, field: "PayloadHdr TID", byteOffset: 1, detail: "0 is not allowed")
        }
        var result = DepacketizedPayload()
        switch header.nalUnitType.rawValue {
        case 0...47:
            if format.hasDON {
                let don = try read16(payload, at: 2, field: "DONL")
                var unit = Array(payload[0..<2])
                unit.append(contentsOf: payload[4...])
                result.nalUnits.append(DepacketizedNALUnit(bytes: unit, isDamaged: forbidden, decodingOrderNumber: don))
            } else {
                result.nalUnits.append(DepacketizedNALUnit(bytes: payload, isDamaged: forbidden))
            }
        case HEVCNALUnitType.aggregationPacket.rawValue:
            result.nalUnits = try hevcAggregated(payload)
        case HEVCNALUnitType.fragmentationUnit.rawValue:
            guard payload.count >= 3 else { throw NALUError(.truncated, field: "FU header", byteOffset: 2) }
            let fu = RTPFragmentHeader(byte: payload[2], codec: .hevc)
            var start = 3
            var don: Int?
            if format.hasDON && fu.isStart {
                don = try read16(payload, at: 3, field: "DONL")
                start = 5
            }
            let nalHeader = HEVCNALUnitHeader(nalUnitType: HEVCNALUnitType(rawValue: fu.nalUnitType), nuhLayerId: header.nuhLayerId,
                                              nuhTemporalIdPlus1: header.nuhTemporalIdPlus1)
            try fragmentArrived(fu, headerBytes: nalHeader.bytes(forbiddenBit: forbidden), body: payload[start...], don: don, into: &result)
        case HEVCNALUnitType.payloadContentInformation.rawValue:
            result.skippedPACI = 1
        default:
            throw NALUError(.invalidValue, field: "PayloadHdr Type", byteOffset: 0,
                            detail: "\(header.nalUnitType.rawValue) is undefined in RFC 7798")
        }
        return result
    }

    /// The units of an H.265 aggregation packet (RFC 7798 4.4.2): DONL before the first and DOND
    /// before the others when DON is in use, a 16-bit size before each.
    private func hevcAggregated(_ payload: [UInt8]) throws(NALUError) -> [DepacketizedNALUnit] {
        var units: [DepacketizedNALUnit] = []
        var offset = 2
        var don: Int?
        while offset < payload.count {
            if format.hasDON {
                if let previous = don {
                    guard offset < payload.count else { throw NALUError(.truncated, field: "DOND", byteOffset: Int64(offset)) }
                    don = (previous + Int(payload[offset]) + 1) & 0xFFFF
                    offset += 1
                } else {
                    don = try read16(payload, at: offset, field: "DONL")
                    offset += 2
                }
            }
            let size = try read16(payload, at: offset, field: "NALU size")
            offset += 2
            guard size >= 2, offset + size <= payload.count else {
                throw NALUError(.lengthPastEnd, field: "NALU size", byteOffset: Int64(offset - 2),
                                detail: "\(size) bytes; \(payload.count - offset) left in the aggregation packet")
            }
            let unit = Array(payload[offset..<offset + size])
            units.append(DepacketizedNALUnit(bytes: unit, isDamaged: ForbiddenZeroBit.isSet(in: unit), decodingOrderNumber: don))
            offset += size
        }
        guard !units.isEmpty else { throw NALUError(.truncated, field: "aggregation packet", byteOffset: 2, detail: "no NAL unit") }
        return units
    }

    /// The units of an H.264 STAP-A/STAP-B (RFC 6184 5.7.1) or MTAP (5.7.2): a 16-bit size before
    /// each; an MTAP's units also carry a DOND (8 bits) and a timestamp offset.
    private func aggregated(_ payload: [UInt8], from start: Int, don: Int?, donDifferences: Bool,
                            timestampOffsetBytes: Int) throws(NALUError) -> [DepacketizedNALUnit] {
        var units: [DepacketizedNALUnit] = []
        var offset = start
        var nextDON = don
        while offset < payload.count {
            let size = try read16(payload, at: offset, field: "NALU size")
            offset += 2
            var unitDON = nextDON
            var headerBytes = 0
            if donDifferences {
                // MTAP: DOND (8 bits) then the timestamp offset (16 or 24 bits), all within NALU size.
                headerBytes = 1 + timestampOffsetBytes
                guard offset + headerBytes <= payload.count, size > headerBytes else {
                    throw NALUError(.truncated, field: "MTAP unit header", byteOffset: Int64(offset))
                }
                unitDON = ((don ?? 0) + Int(payload[offset])) & 0xFFFF
            }
            let bodyStart = offset + headerBytes
            let end = offset + size
            guard size > headerBytes, end <= payload.count else {
                throw NALUError(.lengthPastEnd, field: "NALU size", byteOffset: Int64(offset - 2),
                                detail: "\(size) bytes; \(payload.count - offset) left in the aggregation packet")
            }
            let unit = Array(payload[bodyStart..<end])
            var timestampOffset: UInt32 = 0
            for index in offset..<bodyStart where index > offset { timestampOffset = timestampOffset << 8 | UInt32(payload[index]) }
            units.append(DepacketizedNALUnit(bytes: unit, isDamaged: ForbiddenZeroBit.isSet(in: unit), decodingOrderNumber: unitDON,
                                             timestampOffset: timestampOffset))
            if !donDifferences, let current = nextDON { nextDON = (current + 1) & 0xFFFF }
            offset = end
        }
        guard !units.isEmpty else { throw NALUError(.truncated, field: "aggregation packet", byteOffset: Int64(start), detail: "no NAL unit") }
        return units
    }

    /// One fragment (FU-A/FU-B, H.265 FU): a start begins a NAL unit with `headerBytes`; a
    /// middle or end fragment continues the one being rebuilt, or is skipped and counted when
    /// there is none; an end completes it.
    private mutating func fragmentArrived(_ header: RTPFragmentHeader, headerBytes: [UInt8], body: ArraySlice<UInt8>, don: Int?,
                                          into result: inout DepacketizedPayload) throws(NALUError) {
        if header.isStart {
            if header.isEnd {
                throw NALUError(.invalidValue, field: "FU header S and E", byteOffset: Int64(headerBytes.count),
                                detail: "a fragment cannot both start and end a NAL unit")
            }
            // A start while another unit is open: that one lost its end.
            if let damaged = interrupt() { result.nalUnits.append(damaged) }
            fragment = (headerBytes + body, don)
        } else {
            guard fragment != nil else {
                result.fragmentsWithoutStart += 1
                return
            }
            guard let current = fragment?.bytes.count, body.count <= maxNALUnitBytes - current else {
                let partial = interrupt()
                if let partial { result.nalUnits.append(partial) }
                throw NALUError(.tooLarge, field: "fragmented NAL unit", detail: "more than \(maxNALUnitBytes) bytes")
            }
            fragment?.bytes.append(contentsOf: body)
        }
        if header.isEnd, let complete = fragment {
            fragment = nil
            result.nalUnits.append(DepacketizedNALUnit(bytes: complete.bytes, isDamaged: ForbiddenZeroBit.isSet(in: complete.bytes),
                                                       decodingOrderNumber: complete.don))
        }
    }

    private func read16(_ payload: [UInt8], at offset: Int, field: String) throws(NALUError) -> Int {
        guard offset >= 0, offset + 2 <= payload.count else { throw NALUError(.truncated, field: field, byteOffset: Int64(offset)) }
        return Int(payload[offset]) << 8 | Int(payload[offset + 1])
    }

    private func notAllowed(_ what: String, _ type: UInt8) -> NALUError {
        NALUError(.invalidValue, field: "RTP payload type (NAL unit type)", byteOffset: 0,
                  detail: "\(what) (\(type)) is not allowed in packetization mode \(format.packetizationMode.rawValue)")
    }
}
