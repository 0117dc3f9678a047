public import NALU

/// An RTP packet (RFC 3550 5.1): the fixed header, the contributing sources, and the payload.
///
/// Parsing skips a header extension (5.3.1) and removes padding (the last octet counts the
/// padding octets, itself included) after checking both against the packet's length; writing
/// produces neither.
///
/// ```swift
/// let packet = try RTPPacket(parsing: datagram)
/// print(packet.sequenceNumber, packet.timestamp, packet.marker)
/// ```
public struct RTPPacket: Sendable, Hashable {
    /// The only RTP version (RFC 3550 5.1: `V` = 2).
    public static let version: UInt8 = 2
    /// Octets of the fixed header.
    public static let fixedHeaderSize = 12
    /// The largest RTP packet over UDP/IPv4 (65 535 − 20 − 8).
    public static let maxSize = 65_507

    /// `M`: for video (RFC 6184 5.1, RFC 7798 4.1), set on the last packet of an access unit.
    public var marker: Bool
    /// `PT`: 7 bits.
    public var payloadType: UInt8
    /// `sequence number`: increments by one per packet, wrapping at 2^16.
    public var sequenceNumber: UInt16
    /// `timestamp`: the sampling instant of the payload, in the payload format's clock (90 kHz
    /// for video), wrapping at 2^32.
    public var timestamp: UInt32
    /// `SSRC`: the synchronisation source.
    public var ssrc: UInt32
    /// The `CSRC` list (at most 15).
    public var contributingSources: [UInt32]
    /// Whether the parsed packet had a header extension (`X`), which was skipped.
    public var hadHeaderExtension: Bool
    /// Padding octets removed while parsing (`P`).
    public var paddingCount: Int
    /// The payload, without padding.
    public var payload: [UInt8]

    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                contributingSources: [UInt32] = [], payload: [UInt8]) {
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.contributingSources = Array(contributingSources.prefix(15))
        self.hadHeaderExtension = false
        self.paddingCount = 0
        self.payload = payload
    }

    /// Parses one packet (a whole UDP datagram).
    /// - Throws: ``NALU/NALUError``: `.truncated` for a packet shorter than its header, CSRC list
    ///   or extension; `.invalidValue` for a version other than 2 or a padding count past the
    ///   payload; the field is named and the byte offset is inside the packet.
    public init(parsing bytes: some Collection<UInt8>) throws(NALUError) {
        let data = Array(bytes)
        guard data.count >= Self.fixedHeaderSize else {
            throw NALUError(.truncated, field: "RTP fixed header", byteOffset: Int64(data.count), detail: "\(data.count) of 12 bytes")
        }
        let first = RTPFirstOctet(data[0])
        guard first.version == Self.version else {
            throw NALUError(.invalidValue, field: "RTP version", byteOffset: 0, detail: "\(first.version); only 2 is defined")
        }
        marker = data[1] & 0x80 != 0
        payloadType = data[1] & 0x7F
        sequenceNumber = UInt16(data[2]) << 8 | UInt16(data[3])
        timestamp = UInt32(data[4]) << 24 | UInt32(data[5]) << 16 | UInt32(data[6]) << 8 | UInt32(data[7])
        ssrc = UInt32(data[8]) << 24 | UInt32(data[9]) << 16 | UInt32(data[10]) << 8 | UInt32(data[11])
        var offset = Self.fixedHeaderSize
        let csrcEnd = offset + 4 * first.csrcCount
        guard csrcEnd <= data.count else {
            throw NALUError(.truncated, field: "CSRC list", byteOffset: Int64(data.count), detail: "CC = \(first.csrcCount)")
        }
        var sources: [UInt32] = []
        sources.reserveCapacity(first.csrcCount)
        while offset < csrcEnd {
            sources.append(UInt32(data[offset]) << 24 | UInt32(data[offset + 1]) << 16 | UInt32(data[offset + 2]) << 8 | UInt32(data[offset + 3]))
            offset += 4
        }
        contributingSources = sources
        hadHeaderExtension = first.hasExtension
        if first.hasExtension {
            // RFC 3550 5.3.1: 16 bits defined by profile, 16 bits length in 32-bit words (the
            // four-octet extension header not counted).
            guard offset + 4 <= data.count else {
                throw NALUError(.truncated, field: "RTP header extension", byteOffset: Int64(data.count))
            }
            let words = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let end = offset + 4 + 4 * words
            guard end <= data.count else {
                throw NALUError(.truncated, field: "RTP header extension length", byteOffset: Int64(offset + 2),
                                detail: "\(words) words past the packet's \(data.count) bytes")
            }
            offset = end
        }
        var end = data.count
        if first.hasPadding {
            // RFC 3550 5.1: the last octet counts the padding octets, itself included.
            let count = Int(data[data.count - 1])
            guard count >= 1, count <= data.count - offset else {
                throw NALUError(.invalidValue, field: "RTP padding", byteOffset: Int64(data.count - 1),
                                detail: "\(count) padding bytes after a \(data.count - offset)-byte payload")
            }
            end -= count
            paddingCount = count
        } else {
            paddingCount = 0
        }
        payload = Array(data[offset..<end])
    }

    /// The packet's bytes: the fixed header, the CSRC list and the payload (no extension, no
    /// padding).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.fixedHeaderSize + 4 * contributingSources.count + payload.count)
        out.append(RTPFirstOctet(version: Self.version, hasPadding: false, hasExtension: false,
                                 csrcCount: contributingSources.count).byte)
        out.append((marker ? 0x80 : 0) | payloadType & 0x7F)
        out.append(UInt8(truncatingIfNeeded: sequenceNumber >> 8))
        out.append(UInt8(truncatingIfNeeded: sequenceNumber))
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: timestamp >> UInt32(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: ssrc >> UInt32(shift))) }
        for source in contributingSources {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: source >> UInt32(shift))) }
        }
        out.append(contentsOf: payload)
        return out
    }
}

/// The first octet of an RTP header (RFC 3550 5.1): `V` (2 bits), `P`, `X`, `CC` (4 bits).
struct RTPFirstOctet {
    var version: UInt8
    var hasPadding: Bool
    var hasExtension: Bool
    var csrcCount: Int

    init(_ byte: UInt8) {
        version = byte >> 6
        hasPadding = byte & 0x20 != 0
        hasExtension = byte & 0x10 != 0
        csrcCount = Int(byte & 0x0F)
    }

    init(version: UInt8, hasPadding: Bool, hasExtension: Bool, csrcCount: Int) {
        self.version = version
        self.hasPadding = hasPadding
        self.hasExtension = hasExtension
        self.csrcCount = min(max(csrcCount, 0), 15)
    }

    var byte: UInt8 {
        version << 6 | (hasPadding ? 0x20 : 0) | (hasExtension ? 0x10 : 0) | UInt8(csrcCount)
    }
}
