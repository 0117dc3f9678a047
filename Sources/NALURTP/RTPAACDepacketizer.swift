public import NALU

/// An AAC access unit received over RTP (RFC 3640).
public struct RTPAACAccessUnit: Sendable, Hashable {
    /// The raw AAC frame (no ADTS header).
    public var bytes: [UInt8]
    /// Its RTP timestamp: the packet's, plus ``RTPAACPayloadFormat/accessUnitDuration`` per AU
    /// before it in the packet (RFC 3640 3.2.3.2).
    public var rtpTimestamp: UInt32
    /// The timestamp on a 64-bit time line (wrap-arounds unfolded), in ticks of the clock rate;
    /// set by ``RTPAACReceiver`` (0 from the depacketizer alone).
    public var time: Int64

    public init(bytes: [UInt8], rtpTimestamp: UInt32, time: Int64 = 0) {
        self.bytes = bytes
        self.rtpTimestamp = rtpTimestamp
        self.time = time
    }
}

/// RTP packets of the RFC 3640 `mpeg4-generic` payload (in sequence order, with the losses
/// before each) back into AAC access units: the AU Header Section read (3.2.1: AU-headers-length
/// in bits, AU-size and AU-Index/AU-Index-delta per AU, checked against the payload), several
/// AUs per packet, and an AU fragmented over packets (3.2.3) reassembled only from all of its
/// fragments — same timestamp, same AU-size, the marker bit on the last. An AU that lost a
/// fragment, or whose fragments do not add up, is dropped and counted (never passed on
/// partial), as is a fragment after a loss (its start may have been lost).
///
/// Memory: one AU being reassembled, at most ``RTPAACPayloadFormat/maxAccessUnitSize`` bytes;
/// time linear in the bytes.
public struct RTPAACDepacketizer: Sendable {
    public let format: RTPAACPayloadFormat
    /// AUs passed on.
    public private(set) var accessUnits = 0
    /// AUs dropped: a fragment lost or damaged.
    public private(set) var droppedAccessUnits = 0
    /// Packets whose payload could not be read (their AUs dropped).
    public private(set) var malformedPackets = 0
    /// Packets with a non-zero AU-Index or AU-Index-delta (interleaving, RFC 3640 3.2.3.2),
    /// not read: counted among ``malformedPackets`` too.
    public private(set) var interleavedPackets = 0
    /// The AU being reassembled from fragments.
    private var fragment: (timestamp: UInt32, size: Int, bytes: [UInt8])?
    /// Fragments are skipped until one with the marker bit (a loss came inside an AU).
    private var skippingFragments = false
    /// The timestamp of the AU dropped last (its other fragments are not counted again).
    private var skippedTimestamp: UInt32?

    public init(format: RTPAACPayloadFormat) {
        self.format = format
    }

    /// Whether an AU is being reassembled.
    public var isInsideFragmentedUnit: Bool { fragment != nil }

    /// Takes the next packet in sequence order, `lostBefore` packets lost just before it, and
    /// returns the AUs it completes.
    /// - Throws: `NALUError` naming the field and its byte offset in the payload: `.truncated`
    ///   for an AU Header Section or AU data past the payload, `.invalidValue` for AU sizes that
    ///   do not add up to the payload, a fragment that does not continue the AU begun,
    ///   `.unsupported` (field `AU-Index`) for interleaving. The packet's AUs (and an AU being
    ///   reassembled) are then dropped.
    public mutating func push(_ packet: RTPPacket, lostBefore: Int) throws(NALUError) -> [RTPAACAccessUnit] {
        if lostBefore > 0 {
            dropFragment()
            skippingFragments = true
        }
        let headers: [(size: Int, offset: Int)]
        let dataStart: Int
        do {
            (headers, dataStart) = try readHeaders(packet.payload)
        } catch {
            malformedPackets += 1
            dropFragment()
            skippingFragments = !packet.marker
            throw error
        }
        let available = packet.payload.count - dataStart
        let total = headers.reduce(0) { $0 + $1.size }
        if let current = fragment, current.timestamp != packet.timestamp || headers.count != 1 {
            // The AU begun never got its last fragment (no packet was lost: the sender cut it).
            dropFragment()
        }
        if headers.count == 1, headers[0].size > available || fragment != nil {
            return try pushFragment(packet, size: headers[0].size, data: packet.payload[dataStart...], headerOffset: headers[0].offset)
        }
        // Whole AUs: the next packet starts fresh.
        skippingFragments = false
        guard total == available else {
            malformedPackets += 1
            throw NALUError(total > available ? .truncated : .invalidValue, field: "AU-size", byteOffset: Int64(dataStart),
                            detail: "the AUs add up to \(total) bytes; the packet has \(available)")
        }
        var units: [RTPAACAccessUnit] = []
        units.reserveCapacity(headers.count)
        var position = dataStart
        for (index, header) in headers.enumerated() {
            let timestamp = packet.timestamp &+ UInt32(truncatingIfNeeded: index &* format.accessUnitDuration)
            units.append(RTPAACAccessUnit(bytes: Array(packet.payload[position..<(position + header.size)]), rtpTimestamp: timestamp))
            position += header.size
        }
        accessUnits += units.count
        return units
    }

    /// Ends the stream: an AU still being reassembled is dropped.
    public mutating func finish() {
        dropFragment()
    }

    /// One fragment of an AU of `size` bytes (RFC 3640 3.2.3).
    private mutating func pushFragment(_ packet: RTPPacket, size: Int, data: ArraySlice<UInt8>, headerOffset: Int) throws(NALUError) -> [RTPAACAccessUnit] {
        if var current = fragment {
            guard current.timestamp == packet.timestamp, current.size == size, current.bytes.count + data.count <= size else {
                dropFragment()
                malformedPackets += 1
                skippingFragments = !packet.marker
                throw NALUError(.invalidValue, field: "AU-size", byteOffset: Int64(headerOffset),
                                detail: "a fragment of \(data.count) bytes (AU-size \(size), timestamp \(packet.timestamp)) does not continue the AU begun")
            }
            // Taken out while it grows, so the bytes are not copied at every fragment.
            fragment = nil
            current.bytes += data
            if packet.marker {
                guard current.bytes.count == size else {
                    droppedAccessUnits += 1
                    malformedPackets += 1
                    throw NALUError(.truncated, field: "AU-size", byteOffset: Int64(headerOffset),
                                    detail: "the fragments hold \(current.bytes.count) of the AU's \(size) bytes")
                }
                accessUnits += 1
                return [RTPAACAccessUnit(bytes: current.bytes, rtpTimestamp: current.timestamp)]
            }
            fragment = current
            return []
        }
        if skippingFragments {
            // After a loss: this may be a middle or last fragment whose start was lost. Its AU
            // is dropped (counted once: an AU dropped at the loss has its timestamp).
            if packet.timestamp != skippedTimestamp {
                droppedAccessUnits += 1
                skippedTimestamp = packet.timestamp
            }
            skippingFragments = !packet.marker
            return []
        }
        guard !packet.marker else {
            malformedPackets += 1
            droppedAccessUnits += 1
            throw NALUError(.truncated, field: "AU-size", byteOffset: Int64(headerOffset),
                            detail: "\(size) bytes; the packet has \(data.count) and its marker bit says it ends the AU")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        bytes += data
        fragment = (packet.timestamp, size, bytes)
        return []
    }

    private mutating func dropFragment() {
        if let fragment {
            droppedAccessUnits += 1
            skippedTimestamp = fragment.timestamp
            self.fragment = nil
        }
    }

    /// The AU headers (size, byte offset of the header) and where the AU data begins.
    private mutating func readHeaders(_ payload: [UInt8]) throws(NALUError) -> ([(size: Int, offset: Int)], Int) {
        guard payload.count >= 2 else {
            throw NALUError(.truncated, field: "AU-headers-length", byteOffset: 0, detail: "\(payload.count) bytes of payload")
        }
        let bits = Int(payload[0]) << 8 | Int(payload[1])
        let sectionBytes = (bits + 7) / 8
        guard bits >= format.firstHeaderBits else {
            throw NALUError(.invalidValue, field: "AU-headers-length", byteOffset: 0, detail: "\(bits) bits; an AU header has \(format.firstHeaderBits)")
        }
        guard 2 + sectionBytes <= payload.count else {
            throw NALUError(.truncated, field: "AU-headers-length", byteOffset: 0, detail: "\(bits) bits; the payload has \(payload.count - 2) bytes after it")
        }
        guard (bits - format.firstHeaderBits) % format.laterHeaderBits == 0 else {
            throw NALUError(.invalidValue, field: "AU-headers-length", byteOffset: 0,
                            detail: "\(bits) bits is not \(format.firstHeaderBits) + n × \(format.laterHeaderBits)")
        }
        let count = 1 + (bits - format.firstHeaderBits) / format.laterHeaderBits
        var reader = SimpleBits(Array(payload[2..<(2 + sectionBytes)]))
        var headers: [(size: Int, offset: Int)] = []
        headers.reserveCapacity(count)
        for index in 0..<count {
            let offset = 2 + reader.position / 8
            let size = reader.read(format.sizeLength)
            let auIndex = reader.read(index == 0 ? format.indexLength : format.indexDeltaLength)
            guard auIndex == 0 else {
                interleavedPackets += 1
                throw NALUError(.unsupported, field: index == 0 ? "AU-Index" : "AU-Index-delta", byteOffset: Int64(offset),
                                detail: "\(auIndex): interleaving (RFC 3640 3.2.3.2) is not read")
            }
            guard size > 0 else {
                throw NALUError(.invalidValue, field: "AU-size", byteOffset: Int64(offset), detail: "0")
            }
            headers.append((size, offset))
        }
        return (headers, 2 + sectionBytes)
    }
}
