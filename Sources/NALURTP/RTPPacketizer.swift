public import NALU

/// H.264 packetization modes (RFC 6184 6.2–6.4, the `packetization-mode` SDP parameter).
public enum H264PacketizationMode: Int, Sendable, Hashable {
    /// Single NAL unit mode (0): every packet carries one NAL unit.
    case singleNALUnit = 0
    /// Non-interleaved mode (1): single NAL units, STAP-A and FU-A.
    case nonInterleaved = 1
    /// Interleaved mode (2): STAP-B, MTAP16/24, FU-A/FU-B with decoding order numbers (sent as
    /// STAP-B and FU-B/FU-A, in decoding order).
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
    /// H.264 only: modes 0, 1 and 2 are written.
    public var packetizationMode: H264PacketizationMode
    /// H.265 `sprop-max-don-diff` (RFC 7798 7.1): above 0, every packet carries the decoding
    /// order number (DONL in single NAL unit packets, aggregation packets and first fragments,
    /// DOND after an aggregation packet's first unit). The packets go in decoding order; the
    /// value promises a receiver how far a reordering network or a later interleaving sender
    /// may move them. 0…32 767.
    public var maxDonDiff: Int = 0
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

/// Splits access units into RTP packets: H.264 (RFC 6184: single NAL unit, STAP-A, FU-A; in
/// interleaved mode STAP-B and FU-B/FU-A with decoding order numbers) and H.265 (RFC 7798:
/// single NAL unit, aggregation packets, fragmentation units, with DONL/DOND when
/// `sprop-max-don-diff` > 0). Decoding order numbers count NAL units in the order given.
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
    /// The next NAL unit's decoding order number (H.264 mode 2, H.265 with ``RTPPacketizerOptions/maxDonDiff`` > 0).
    public private(set) var decodingOrderNumber: UInt16 = 0

    /// Whether packets carry decoding order numbers.
    private var writesDON: Bool { codec == .hevc ? options.maxDonDiff > 0 : options.packetizationMode == .interleaved }

    /// - Throws: ``NALU/NALUError`` `.invalidValue` for an MTU outside
    ///   ``RTPPacketizerOptions/minimumMTU`` … ``RTPPacket/maxSize``, a payload type above 127, or
    ///   H.264 mode 2.
    public init(codec: Codec, options: RTPPacketizerOptions = RTPPacketizerOptions()) throws(NALUError) {
        guard (0...32_767).contains(options.maxDonDiff) else {
            throw NALUError(.invalidValue, field: "sprop-max-don-diff", detail: "\(options.maxDonDiff); 0…32767")
        }
        guard codec == .hevc || options.maxDonDiff == 0 || options.packetizationMode == .interleaved else {
            throw NALUError(.invalidValue, field: "sprop-max-don-diff", detail: "H.264 carries decoding order numbers in packetization mode 2 only")
        }
        guard options.mtu >= RTPPacketizerOptions.minimumMTU, options.mtu <= RTPPacket.maxSize else {
            throw NALUError(.invalidValue, field: "mtu", detail: "\(options.mtu); \(RTPPacketizerOptions.minimumMTU)…\(RTPPacket.maxSize) bytes")
        }
        guard options.payloadType <= 127 else {
            throw NALUError(.invalidValue, field: "payload type", detail: "\(options.payloadType); 0…127")
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
        var pendingDON = decodingOrderNumber
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
            let don = decodingOrderNumber
            decodingOrderNumber &+= 1
            if packetSize(single: unit) > budget {
                guard codec == .hevc || options.packetizationMode != .singleNALUnit else {
                    throw NALUError(.tooLarge, field: "NAL unit \(index) of the access unit",
                                    detail: "\(unit.count) bytes; single NAL unit mode carries at most \(budget) with MTU \(options.mtu)")
                }
                flush(&pending, don: pendingDON, into: &payloads)
                payloads.append(contentsOf: fragments(of: unit, budget: budget, don: don))
                continue
            }
            let aggregates = options.aggregates && options.packetizationMode != .singleNALUnit
            if aggregates, !pending.isEmpty, aggregateSize(pending + [unit]) <= budget {
                pending.append(unit)
            } else {
                flush(&pending, don: pendingDON, into: &payloads)
                pending = [unit]
                pendingDON = don
            }
            if !aggregates { flush(&pending, don: pendingDON, into: &payloads) }
        }
        flush(&pending, don: pendingDON, into: &payloads)
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
    /// each unit (RFC 6184 5.7.1 STAP-A; STAP-B adds a 16-bit DON; RFC 7798 4.4.2 adds a DONL
    /// before the first unit and a DOND before each other when DON is written).
    private func aggregateSize(_ units: [[UInt8]]) -> Int {
        let sizes = units.reduce(0) { $0 + 2 + $1.count }
        switch codec {
        case .h264: return 1 + (writesDON ? 2 : 0) + sizes
        case .hevc: return 2 + (writesDON ? 2 + units.count - 1 : 0) + sizes
        }
    }

    /// Bytes of the payload carrying `unit` alone: the unit (with a DONL after its header in
    /// H.265 with DON), or a STAP-B of one unit (H.264 interleaved mode, which has no single NAL
    /// unit packets: RFC 6184 Table 3).
    private func packetSize(single unit: [UInt8]) -> Int {
        guard writesDON else { return unit.count }
        return codec == .hevc ? unit.count + 2 : aggregateSize([unit])
    }

    /// `pending` (whose first unit's decoding order number is `don`) as one packet payload: a
    /// single NAL unit packet for one, an aggregation packet for more; empties it.
    private func flush(_ pending: inout [[UInt8]], don: UInt16, into payloads: inout [[UInt8]]) {
        defer { pending.removeAll(keepingCapacity: true) }
        guard pending.count > 1 || (writesDON && codec == .h264 && !pending.isEmpty) else {
            guard let only = pending.first else { return }
            if writesDON {
                // RFC 7798 4.4.1: PayloadHdr (the NAL unit header), DONL, the rest of the unit.
                var payload = Array(only[0..<2])
                payload.reserveCapacity(only.count + 2)
                appendUInt16(don, to: &payload)
                payload.append(contentsOf: only[2...])
                payloads.append(payload)
            } else {
                payloads.append(only)
            }
            return
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(aggregateSize(pending))
        switch codec {
        case .h264:
            // RFC 6184 5.7.1: F is the OR of the units' F bits (all 0 here), NRI their highest.
            let nri = pending.map { AVCNALUnitHeader.payloadHeader($0[0]).header.nalRefIdc }.max() ?? 0
            payload.append(AVCNALUnitHeader(nalRefIdc: nri, nalUnitType: writesDON ? .stapB : .stapA).byte())
            // STAP-B: the first unit's DON; the others follow it by one each (RFC 6184 5.7.1).
            if writesDON { appendUInt16(don, to: &payload) }
        case .hevc:
            // RFC 7798 4.4.2: LayerId and TID the lowest of the aggregated units'.
            let headers = pending.map { HEVCNALUnitHeader.payloadHeader($0[0], $0[1]).header }
            let layer = headers.map(\.nuhLayerId).min() ?? 0
            let temporal = headers.map(\.nuhTemporalIdPlus1).min() ?? 1
            payload.append(contentsOf: HEVCNALUnitHeader(nalUnitType: .aggregationPacket, nuhLayerId: layer, nuhTemporalIdPlus1: temporal).bytes)
        }
        for (position, unit) in pending.enumerated() {
            if writesDON && codec == .hevc {
                // RFC 7798 4.4.2: DONL before the first unit, DOND (DON difference − 1: 0, the
                // units are consecutive in decoding order) before the others.
                if position == 0 { appendUInt16(don, to: &payload) } else { payload.append(0) }
            }
            appendUInt16(UInt16(truncatingIfNeeded: unit.count), to: &payload)
            payload.append(contentsOf: unit)
        }
        payloads.append(payload)
    }

    private func appendUInt16(_ value: UInt16, to payload: inout [UInt8]) {
        payload.append(UInt8(truncatingIfNeeded: value >> 8))
        payload.append(UInt8(truncatingIfNeeded: value))
    }

    /// FU-A (RFC 6184 5.8) or H.265 FU (RFC 7798 4.4.3) payloads of `unit`, each at most `budget`;
    /// with decoding order numbers, `don` goes in the first fragment (an FU-B in H.264, the
    /// others FU-A; a DONL after the FU header in H.265).
    private func fragments(of unit: [UInt8], budget: Int, don: UInt16) -> [[UInt8]] {
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
        var result: [[UInt8]] = []
        var start = headerLength
        while start < unit.count {
            let isStart = start == headerLength
            let donBytes = writesDON && isStart ? 2 : 0
            var end = min(start + budget - prefix.count - 1 - donBytes, unit.count)
            // A unit that only just misses a packet of its own would fit one fragment: the start
            // leaves a byte for an end fragment (a fragment cannot both start and end: RFC 6184
            // 5.8, RFC 7798 4.4.3).
            if isStart, end == unit.count { end -= 1 }
            // One allocation a fragment: the capacity first, then the headers and the bytes.
            var payload: [UInt8] = []
            payload.reserveCapacity(prefix.count + 1 + donBytes + end - start)
            payload.append(contentsOf: prefix)
            if isStart, writesDON, codec == .h264 {
                payload[0] = AVCNALUnitHeader(nalRefIdc: AVCNALUnitHeader.payloadHeader(unit[0]).header.nalRefIdc, nalUnitType: .fuB).byte()
            }
            payload.append(RTPFragmentHeader(isStart: isStart, isEnd: end == unit.count, nalUnitType: type).byte)
            if donBytes > 0 { appendUInt16(don, to: &payload) }
            payload.append(contentsOf: unit[start..<end])
            result.append(payload)
            start = end
        }
        return result
    }
}
