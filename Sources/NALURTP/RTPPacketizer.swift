public import NALU

/// H.264 packetization modes (RFC 6184 6.2–6.4, the `packetization-mode` SDP parameter).
public enum H264PacketizationMode: Int, Sendable, Hashable {
    /// Single NAL unit mode (0): every packet carries one NAL unit.
    case singleNALUnit = 0
    /// Non-interleaved mode (1): single NAL units, STAP-A and FU-A.
    case nonInterleaved = 1
    /// Interleaved mode (2): STAP-B, MTAP16/24, FU-A/FU-B with decoding order numbers (received
    /// only).
    case interleaved = 2
}

/// What an ``RTPPacketizer`` is told.
public struct RTPPacketizerOptions: Sendable, Hashable {
    /// The largest RTP packet written, in bytes, RTP header included (UDP and IP headers not):
    /// 1400 leaves room for IPv6 and tunnels on a 1500-byte Ethernet MTU.
    public var mtu: Int
    /// `PT`: 96–127 are dynamic (RFC 3551 6).
    public var payloadType: UInt8
    /// `SSRC`.
    public var ssrc: UInt32
    /// The first packet's sequence number (RFC 3550 5.1: should be random).
    public var initialSequenceNumber: UInt16
    /// Added to every timestamp (RFC 3550 5.1: should be random).
    public var timestampOffset: UInt32
    /// H.264 only: modes 0 and 1 are written.
    public var packetizationMode: H264PacketizationMode
    /// Whether small NAL units are aggregated (STAP-A, H.265 AP) while they fit the MTU: the
    /// parameter sets with the keyframe's first slice, for example.
    public var aggregates: Bool

    /// The smallest ``mtu`` accepted: a fragment carries at least one byte after its headers.
    public static let minimumMTU = 32

    public init(mtu: Int = 1400, payloadType: UInt8 = 96, ssrc: UInt32 = 0x4E41_4C55, initialSequenceNumber: UInt16 = 0,
                timestampOffset: UInt32 = 0, packetizationMode: H264PacketizationMode = .nonInterleaved, aggregates: Bool = true) {
        self.mtu = mtu
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.initialSequenceNumber = initialSequenceNumber
        self.timestampOffset = timestampOffset
        self.packetizationMode = packetizationMode
        self.aggregates = aggregates
    }
}

/// Splits access units into RTP packets: H.264 (RFC 6184: single NAL unit, STAP-A, FU-A) and
/// H.265 (RFC 7798: single NAL unit, aggregation packets, fragmentation units, without DONL:
/// `sprop-max-don-diff` 0).
///
/// Every packet of an access unit has its timestamp; the marker bit is set on the last packet
/// of the access unit only (RFC 6184 5.1, RFC 7798 4.1). An H.265 aggregation packet's PayloadHdr
/// takes the lowest `nuh_layer_id` and `TemporalId` of the NAL units it carries, a fragmentation
/// unit's those of the NAL unit it fragments (RFC 7798 4.4.2, 4.4.3).
///
/// ```swift
/// var packetizer = try RTPPacketizer(codec: .h264, options: RTPPacketizerOptions(mtu: 1200))
/// for packet in try packetizer.packetize(nalUnits: unit.nalUnits, timestamp: 90_000) { send(packet.bytes) }
/// ```
public struct RTPPacketizer: Sendable {
    public let codec: Codec
    public let options: RTPPacketizerOptions
    /// The next packet's sequence number.
    public private(set) var sequenceNumber: UInt16
    /// Packets written so far.
    public private(set) var packetCount: Int = 0

    /// - Throws: ``NALU/NALUError`` `.invalidValue` for an MTU outside
    ///   ``RTPPacketizerOptions/minimumMTU`` … ``RTPPacket/maxSize``, a payload type above 127, or
    ///   H.264 mode 2.
    public init(codec: Codec, options: RTPPacketizerOptions = RTPPacketizerOptions()) throws(NALUError) {
        guard options.mtu >= RTPPacketizerOptions.minimumMTU, options.mtu <= RTPPacket.maxSize else {
            throw NALUError(.invalidValue, field: "mtu", detail: "\(options.mtu); \(RTPPacketizerOptions.minimumMTU)…\(RTPPacket.maxSize) bytes")
        }
        guard options.payloadType <= 127 else {
            throw NALUError(.invalidValue, field: "payload type", detail: "\(options.payloadType); 0…127")
        }
        guard codec == .hevc || options.packetizationMode != .interleaved else {
            throw NALUError(.unsupported, field: "packetization-mode", detail: "2 (interleaved) is received, not sent")
        }
        self.codec = codec
        self.options = options
        sequenceNumber = options.initialSequenceNumber
    }

    /// The RTP timestamp of a presentation time `pts` in 90 kHz ticks: the offset added, modulo 2^32.
    public func timestamp(pts90kHz pts: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: pts) &+ options.timestampOffset
    }

    /// The packets of one access unit (its NAL units in decoding order, without start codes or
    /// lengths), all with `timestamp` (already offset: ``timestamp(pts90kHz:)``).
    /// - Throws: ``NALU/NALUError``: `.invalidValue` for an empty NAL unit or one whose header is
    ///   invalid (`forbidden_zero_bit` set, H.265 `nuh_temporal_id_plus1` 0), `.tooLarge` for a
    ///   NAL unit larger than the MTU in single NAL unit mode.
    public mutating func packetize(nalUnits: [[UInt8]], timestamp: UInt32) throws(NALUError) -> [RTPPacket] {
        var payloads: [[UInt8]] = []
        let budget = options.mtu - RTPPacket.fixedHeaderSize
        var pending: [[UInt8]] = []
        for (index, unit) in nalUnits.enumerated() {
            let header: NALUnitHeader
            do {
                header = try NALUnitHeader(unit, codec: codec)
            } catch {
                throw NALUError(error.code, field: "NAL unit \(index) of the access unit: \(error.field)", byteOffset: error.byteOffset,
                                detail: error.detail)
            }
            // The types RTP takes for its own packets (and type 0) cannot be carried: a receiver
            // would read them as aggregation or fragmentation packets (RFC 6184 5.2, RFC 7798 4.4).
            guard RTPPacketizer.isCarriable(header) else {
                throw NALUError(.unsupported, field: "NAL unit \(index) of the access unit: nal_unit_type", byteOffset: 0,
                                detail: "\(header.typeNumber) is unspecified in the video standard and cannot be carried in RTP")
            }
            if unit.count > budget {
                guard codec == .hevc || options.packetizationMode == .nonInterleaved else {
                    throw NALUError(.tooLarge, field: "NAL unit \(index) of the access unit",
                                    detail: "\(unit.count) bytes; single NAL unit mode carries at most \(budget) with MTU \(options.mtu)")
                }
                flush(&pending, into: &payloads)
                payloads.append(contentsOf: fragments(of: unit, budget: budget))
                continue
            }
            let aggregates = options.aggregates && (codec == .hevc || options.packetizationMode == .nonInterleaved)
            if aggregates, !pending.isEmpty, aggregateSize(pending + [unit]) <= budget {
                pending.append(unit)
            } else {
                flush(&pending, into: &payloads)
                pending = [unit]
            }
            if !aggregates { flush(&pending, into: &payloads) }
        }
        flush(&pending, into: &payloads)
        var packets: [RTPPacket] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            packets.append(RTPPacket(marker: index == payloads.count - 1, payloadType: options.payloadType, sequenceNumber: sequenceNumber,
                                     timestamp: timestamp, ssrc: options.ssrc, payload: payload))
            sequenceNumber &+= 1
        }
        packetCount += packets.count
        return packets
    }

    /// Whether a NAL unit of this header can go in an RTP payload: H.264 types 1–23 (RFC 6184
    /// Table 1 keeps 0 and 24–31 from the stream), H.265 types 0–47 (RFC 7798 4.4: 48–63).
    public static func isCarriable(_ header: NALUnitHeader) -> Bool {
        switch header {
        case .avc(let avc): (1...23).contains(avc.nalUnitType.rawValue)
        case .hevc(let hevc): hevc.nalUnitType.rawValue < HEVCNALUnitType.aggregationPacket.rawValue
        }
    }

    /// Bytes of an aggregation packet of `units`: its payload header, then a 16-bit size before
    /// each unit (RFC 6184 5.7.1, RFC 7798 4.4.2 without DONL/DOND).
    private func aggregateSize(_ units: [[UInt8]]) -> Int {
        (codec == .h264 ? 1 : 2) + units.reduce(0) { $0 + 2 + $1.count }
    }

    /// `pending` as one packet payload: a single NAL unit packet for one, an aggregation packet
    /// for more; empties it.
    private func flush(_ pending: inout [[UInt8]], into payloads: inout [[UInt8]]) {
        defer { pending.removeAll(keepingCapacity: true) }
        guard pending.count > 1 else {
            if let only = pending.first { payloads.append(only) }
            return
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(aggregateSize(pending))
        switch codec {
        case .h264:
            // RFC 6184 5.7.1: F is the OR of the units' F bits (all 0 here), NRI their highest.
            let nri = pending.map { AVCNALUnitHeader.payloadHeader($0[0]).header.nalRefIdc }.max() ?? 0
            payload.append(AVCNALUnitHeader(nalRefIdc: nri, nalUnitType: .stapA).byte())
        case .hevc:
            // RFC 7798 4.4.2: LayerId and TID the lowest of the aggregated units'.
            let headers = pending.map { HEVCNALUnitHeader.payloadHeader($0[0], $0[1]).header }
            let layer = headers.map(\.nuhLayerId).min() ?? 0
            let temporal = headers.map(\.nuhTemporalIdPlus1).min() ?? 1
            payload.append(contentsOf: HEVCNALUnitHeader(nalUnitType: .aggregationPacket, nuhLayerId: layer, nuhTemporalIdPlus1: temporal).bytes)
        }
        for unit in pending {
            payload.append(UInt8(truncatingIfNeeded: unit.count >> 8))
            payload.append(UInt8(truncatingIfNeeded: unit.count))
            payload.append(contentsOf: unit)
        }
        payloads.append(payload)
    }

    /// FU-A (RFC 6184 5.8) or H.265 FU (RFC 7798 4.4.3) payloads of `unit`, each at most `budget`.
    private func fragments(of unit: [UInt8], budget: Int) -> [[UInt8]] {
        let prefix: [UInt8]
        let headerLength: Int
        let type: UInt8
        switch codec {
        case .h264:
            let header = AVCNALUnitHeader.payloadHeader(unit[0]).header
            prefix = [AVCNALUnitHeader(nalRefIdc: header.nalRefIdc, nalUnitType: .fuA).byte()]
            headerLength = 1
            type = header.nalUnitType.rawValue
        case .hevc:
            let header = HEVCNALUnitHeader.payloadHeader(unit[0], unit[1]).header
            prefix = HEVCNALUnitHeader(nalUnitType: .fragmentationUnit, nuhLayerId: header.nuhLayerId,
                                       nuhTemporalIdPlus1: header.nuhTemporalIdPlus1).bytes
            headerLength = 2
            type = header.nalUnitType.rawValue
        }
        let chunk = budget - prefix.count - 1
        var result: [[UInt8]] = []
        var start = headerLength
        while start < unit.count {
            let end = min(start + chunk, unit.count)
            var payload = prefix
            payload.reserveCapacity(prefix.count + 1 + end - start)
            payload.append(RTPFragmentHeader(isStart: start == headerLength, isEnd: end == unit.count, nalUnitType: type).byte)
            payload.append(contentsOf: unit[start..<end])
            result.append(payload)
            start = end
        }
        return result
    }
}
