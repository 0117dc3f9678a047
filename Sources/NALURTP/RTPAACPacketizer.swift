public import NALU

/// How ``RTPAACPacketizer`` makes packets.
public struct RTPAACPacketizerOptions: Sendable, Hashable {
    /// The largest packet in bytes, RTP header included.
    public var mtu: Int
    public var payloadType: UInt8
    public var ssrc: UInt32
    public var initialSequenceNumber: UInt16
    /// Added to every timestamp (RFC 3550 5.1).
    public var timestampOffset: UInt32
    /// AUs in one packet at most (each waits for the packet to fill: at 48 kHz an AU is 21 ms).
    public var maxAccessUnitsPerPacket: Int

    public init(mtu: Int = 1400, payloadType: UInt8 = 97, ssrc: UInt32 = 0x4E41_4C56, initialSequenceNumber: UInt16 = 0,
                timestampOffset: UInt32 = 0, maxAccessUnitsPerPacket: Int = 4) {
        self.mtu = mtu
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.initialSequenceNumber = initialSequenceNumber
        self.timestampOffset = timestampOffset
        self.maxAccessUnitsPerPacket = maxAccessUnitsPerPacket
    }
}

/// AAC access units (raw AAC frames, no ADTS header) into RTP packets of the RFC 3640
/// `mpeg4-generic` payload (3.2): the AU Header Section (`AU-headers-length` in bits, then one
/// AU-size and AU-Index/AU-Index-delta per AU, all indices 0: no interleaving) and the AUs.
///
/// - Several consecutive AUs (each starting ``RTPAACPayloadFormat/accessUnitDuration`` after
///   the one before) share a packet while they fit the MTU, up to
///   ``RTPAACPacketizerOptions/maxAccessUnitsPerPacket``; the marker bit is set (3.2.3: the
///   packet holds whole AUs).
/// - An AU larger than a packet is fragmented (3.2.3): each fragment in a packet of its own
///   with one AU header giving the whole AU's size, all with the AU's timestamp, the marker
///   bit on the last only.
///
/// ```swift
/// var packetizer = try RTPAACPacketizer(format: .hbr(clockRate: 48_000))
/// for frame in frames { for packet in try packetizer.push(frame.bytes, timestamp: frame.time) { send(packet.bytes) } }
/// for packet in packetizer.flush() { send(packet.bytes) }
/// ```
public struct RTPAACPacketizer: Sendable {
    public let format: RTPAACPayloadFormat
    public let options: RTPAACPacketizerOptions
    /// The sequence number of the next packet.
    public private(set) var sequenceNumber: UInt16
    private var pending: [[UInt8]] = []
    private var pendingBytes = 0
    private var pendingTimestamp: UInt32 = 0

    /// - Throws: `NALUError` `.invalidValue` (field `mtu`) when a packet could not hold an AU
    ///   header and one byte, or (field `maxAccessUnitsPerPacket`) for fewer than 1; for index
    ///   lengths past 8 bits or an AU-size of no bits.
    public init(format: RTPAACPayloadFormat, options: RTPAACPacketizerOptions = RTPAACPacketizerOptions()) throws(NALUError) {
        guard (1...16).contains(format.sizeLength), (0...8).contains(format.indexLength), (0...8).contains(format.indexDeltaLength) else {
            throw NALUError(.invalidValue, field: "sizelength", detail: "\(format.sizeLength)/\(format.indexLength)/\(format.indexDeltaLength) bits")
        }
        guard options.mtu >= RTPPacket.fixedHeaderSize + 2 + 4 + 1, options.mtu <= RTPPacket.maxSize else {
            throw NALUError(.invalidValue, field: "mtu", detail: "\(options.mtu); \(RTPPacket.fixedHeaderSize + 7)…\(RTPPacket.maxSize)")
        }
        guard options.maxAccessUnitsPerPacket >= 1 else {
            throw NALUError(.invalidValue, field: "maxAccessUnitsPerPacket", detail: "\(options.maxAccessUnitsPerPacket); at least 1")
        }
        self.format = format
        self.options = options
        sequenceNumber = options.initialSequenceNumber
    }

    /// The RTP timestamp of a time in ticks of the clock rate: the offset added, modulo 2^32.
    public func timestamp(ticks: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: ticks) &+ options.timestampOffset
    }

    /// Takes one AU with its RTP timestamp (already offset: ``timestamp(ticks:)``) and returns
    /// the packets completed: the ones held when this AU does not join them, and this AU's
    /// fragments when it needs several packets.
    /// - Throws: `NALUError` `.invalidValue` (field `AU-size`) for an empty AU or one larger than
    ///   AU-size can say (8191 bytes for AAC-hbr).
    public mutating func push(_ accessUnit: [UInt8], timestamp: UInt32) throws(NALUError) -> [RTPPacket] {
        guard !accessUnit.isEmpty, accessUnit.count <= format.maxAccessUnitSize else {
            throw NALUError(.invalidValue, field: "AU-size", detail: "\(accessUnit.count) bytes; 1…\(format.maxAccessUnitSize)")
        }
        var packets: [RTPPacket] = []
        if !pending.isEmpty {
            let next = pendingTimestamp &+ UInt32(truncatingIfNeeded: pending.count * format.accessUnitDuration)
            let fits = packetSize(count: pending.count + 1, dataBytes: pendingBytes + accessUnit.count) <= options.mtu
            if next != timestamp || !fits || pending.count >= options.maxAccessUnitsPerPacket {
                packets += flush()
            }
        }
        if packetSize(count: 1, dataBytes: accessUnit.count) > options.mtu {
            packets += fragments(of: accessUnit, timestamp: timestamp)
            return packets
        }
        if pending.isEmpty { pendingTimestamp = timestamp }
        pending.append(accessUnit)
        pendingBytes += accessUnit.count
        if pending.count >= options.maxAccessUnitsPerPacket { packets += flush() }
        return packets
    }

    /// The packet of the AUs held, if any.
    public mutating func flush() -> [RTPPacket] {
        guard !pending.isEmpty else { return [] }
        var headers = SimpleBitWriter()
        for (index, unit) in pending.enumerated() {
            headers.write(unit.count, format.sizeLength)
            headers.write(0, index == 0 ? format.indexLength : format.indexDeltaLength)
        }
        let bits = format.firstHeaderBits + (pending.count - 1) * format.laterHeaderBits
        var payload = [UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)] + headers.bytes
        payload.reserveCapacity(payload.count + pendingBytes)
        for unit in pending { payload += unit }
        let packet = makePacket(marker: true, timestamp: pendingTimestamp, payload: payload)
        pending = []
        pendingBytes = 0
        return [packet]
    }

    /// Bytes of a packet holding `count` AUs of `dataBytes` in all.
    private func packetSize(count: Int, dataBytes: Int) -> Int {
        let bits = format.firstHeaderBits + (count - 1) * format.laterHeaderBits
        return RTPPacket.fixedHeaderSize + 2 + (bits + 7) / 8 + dataBytes
    }

    /// `unit` over packets of one AU header each (RFC 3640 3.2.3).
    private mutating func fragments(of unit: [UInt8], timestamp: UInt32) -> [RTPPacket] {
        var header = SimpleBitWriter()
        header.write(unit.count, format.sizeLength)
        header.write(0, format.indexLength)
        let bits = format.firstHeaderBits
        let prefix = [UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)] + header.bytes
        let room = options.mtu - RTPPacket.fixedHeaderSize - prefix.count
        var packets: [RTPPacket] = []
        var start = 0
        while start < unit.count {
            let end = min(unit.count, start + room)
            packets.append(makePacket(marker: end == unit.count, timestamp: timestamp, payload: prefix + unit[start..<end]))
            start = end
        }
        return packets
    }

    private mutating func makePacket(marker: Bool, timestamp: UInt32, payload: [UInt8]) -> RTPPacket {
        let packet = RTPPacket(marker: marker, payloadType: options.payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                               ssrc: options.ssrc, payload: payload)
        sequenceNumber &+= 1
        return packet
    }
}
