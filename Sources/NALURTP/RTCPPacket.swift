public import NALU

/// An RTCP packet of another type than those read (APP, 204; XR, 207; …): kept as it came, not
/// interpreted.
public struct RTCPOtherPacket: Sendable, Hashable {
    /// `PT`.
    public var packetType: UInt8
    /// The 5-bit field after `P` (a count or a subtype).
    public var count: UInt8
    /// The packet after its 4-octet header, without padding (a whole number of 32-bit words).
    public var body: [UInt8]

    public init(packetType: UInt8, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = RTCPFirstOctet(count: count).count
        self.body = body
    }
}

/// One RTCP packet (RFC 3550 6.4–6.6, RFC 4585 6.1) of a compound packet.
public enum RTCPPacket: Sendable, Hashable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case goodbye(RTCPGoodbye)
    case feedback(RTCPFeedback)
    /// APP (RFC 3550 6.7) and any other type: skipped by the receivers here, written back as it came.
    case other(RTCPOtherPacket)

    /// The largest report, source or chunk count (5 bits).
    public static let maxCount = 31
    /// The packet type of an APP packet (RFC 3550 6.7).
    public static let applicationType: UInt8 = 204

    /// The packet type `PT`.
    public var packetType: UInt8 {
        switch self {
        case .senderReport: RTCPSenderReport.packetType
        case .receiverReport: RTCPReceiverReport.packetType
        case .sourceDescription: RTCPSourceDescription.packetType
        case .goodbye: RTCPGoodbye.packetType
        case .feedback(let feedback): feedback.typeAndFormat.packetType
        case .other(let other): other.packetType
        }
    }

    /// The 5-bit field after `P`: reception report count, source count, `FMT` or subtype.
    var countField: Int {
        switch self {
        case .senderReport(let report): min(report.reports.count, Self.maxCount)
        case .receiverReport(let report): min(report.reports.count, Self.maxCount)
        case .sourceDescription(let description): min(description.chunks.count, Self.maxCount)
        case .goodbye(let goodbye): min(goodbye.sources.count, Self.maxCount)
        case .feedback(let feedback): Int(feedback.typeAndFormat.format)
        case .other(let other): Int(RTCPFirstOctet(count: other.count).count)
        }
    }

    /// The packet's bytes (RFC 3550 6.4.1 header: `V` 2, `P` 0, the count, `PT`, `length` in
    /// 32-bit words minus one), its body padded with zeros to 32 bits.
    public var bytes: [UInt8] {
        var body: [UInt8] = []
        switch self {
        case .senderReport(let report): report.write(into: &body)
        case .receiverReport(let report): report.write(into: &body)
        case .sourceDescription(let description): description.write(into: &body)
        case .goodbye(let goodbye): goodbye.write(into: &body)
        case .feedback(let feedback): feedback.write(into: &body)
        case .other(let other): body = other.body
        }
        while body.count % 4 != 0 { body.append(0) }
        var out: [UInt8] = []
        out.reserveCapacity(4 + body.count)
        out.append(RTCPFirstOctet(count: UInt8(truncatingIfNeeded: countField)).byte)
        out.append(packetType)
        out.appendRTCP(UInt16(truncatingIfNeeded: body.count / 4))
        out.append(contentsOf: body)
        return out
    }
}

/// An RTCP compound packet (RFC 3550 6.1): the RTCP packets of one datagram, stacked.
///
/// Parsing checks each packet's version, its `length` against the bytes that arrived, its
/// padding (a count of octets, a multiple of four, inside the packet), and its counts against
/// the bytes of its body; APP and unknown types are kept as ``RTCPOtherPacket``. Writing
/// produces no padding.
///
/// ```swift
/// let compound = try RTCPCompoundPacket(parsing: datagram)
/// for case .senderReport(let report) in compound.packets { print(report.ntpTimestamp, report.rtpTimestamp) }
/// let reply = RTCPCompoundPacket(packets: [.receiverReport(rr), .sourceDescription(RTCPSourceDescription(ssrc: me, canonicalName: "nalu@host"))])
/// try socket.send(reply.bytes, to: sender)
/// ```
public struct RTCPCompoundPacket: Sendable, Hashable {
    public var packets: [RTCPPacket]

    public init(packets: [RTCPPacket]) { self.packets = packets }

    /// Parses a datagram of RTCP packets.
    /// - Throws: ``NALU/NALUError``: `.truncated` for a header, `length` or field past the bytes
    ///   that arrived; `.invalidValue` for a version other than 2, bad padding, a count that
    ///   does not fit the body, an empty datagram. The field and the byte offset in the datagram
    ///   are named.
    public init(parsing bytes: some Collection<UInt8>) throws(NALUError) {
        let data = Array(bytes)
        guard !data.isEmpty else { throw NALUError(.truncated, field: "RTCP header", byteOffset: 0, detail: "an empty datagram") }
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < data.count {
            guard data.count - offset >= 4 else {
                throw NALUError(.truncated, field: "RTCP header", byteOffset: Int64(offset), detail: "\(data.count - offset) of 4 bytes")
            }
            let first = RTCPFirstOctet(data[offset])
            guard first.version == RTPPacket.version else {
                throw NALUError(.invalidValue, field: "RTCP version", byteOffset: Int64(offset), detail: "\(first.version); only 2 is defined")
            }
            let count = Int(first.count)
            let packetType = data[offset + 1]
            let words = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let size = (words + 1) * 4
            guard size <= data.count - offset else {
                throw NALUError(.truncated, field: "RTCP length", byteOffset: Int64(offset + 2),
                                detail: "\(words) words past the datagram's \(data.count - offset) bytes left")
            }
            var end = offset + size
            if first.hasPadding {
                // RFC 3550 6.4.1: the last octet counts the padding octets, itself included; a multiple of four.
                let padding = Int(data[end - 1])
                guard padding > 0, padding % 4 == 0, padding <= size - 4 else {
                    throw NALUError(.invalidValue, field: "RTCP padding", byteOffset: Int64(end - 1),
                                    detail: "\(padding) padding bytes in a packet of \(size)")
                }
                end -= padding
            }
            var reader = RTCPReader(bytes: data, offset: offset + 4, end: end)
            packets.append(try Self.packet(type: packetType, count: count, reader: &reader))
            offset += size
        }
        self.packets = packets
    }

    private static func packet(type: UInt8, count: Int, reader: inout RTCPReader) throws(NALUError) -> RTCPPacket {
        switch type {
        case RTCPSenderReport.packetType: .senderReport(try RTCPSenderReport(reading: &reader, count: count))
        case RTCPReceiverReport.packetType: .receiverReport(try RTCPReceiverReport(reading: &reader, count: count))
        case RTCPSourceDescription.packetType: .sourceDescription(try RTCPSourceDescription(reading: &reader, count: count))
        case RTCPGoodbye.packetType: .goodbye(try RTCPGoodbye(reading: &reader, count: count))
        case RTCPFeedback.transportLayerType, RTCPFeedback.payloadSpecificType:
            .feedback(try RTCPFeedback(reading: &reader, packetType: type, format: UInt8(count)))
        default: .other(RTCPOtherPacket(packetType: type, count: UInt8(count), body: reader.rest()))
        }
    }

    /// The packets' bytes, one after the other.
    public var bytes: [UInt8] { packets.flatMap(\.bytes) }

    /// The sender reports in the compound packet.
    public var senderReports: [RTCPSenderReport] { packets.compactMap { if case .senderReport(let report) = $0 { report } else { nil } } }
    /// The report blocks of its SRs and RRs.
    public var reportBlocks: [RTCPReportBlock] {
        var blocks: [RTCPReportBlock] = []
        for packet in packets {
            switch packet {
            case .senderReport(let report): blocks += report.reports
            case .receiverReport(let report): blocks += report.reports
            default: continue
            }
        }
        return blocks
    }
    /// Its feedback packets.
    public var feedback: [RTCPFeedback] { packets.compactMap { if case .feedback(let feedback) = $0 { feedback } else { nil } } }
    /// The sources its BYE packets say leave.
    public var departedSources: [UInt32] {
        var sources: [UInt32] = []
        for case .goodbye(let bye) in packets { sources += bye.sources }
        return sources
    }
    /// Whether it holds a BYE.
    public var hasGoodbye: Bool { packets.contains { if case .goodbye = $0 { true } else { false } } }
}

/// The first octet of an RTCP packet (RFC 3550 6.4.1): `V` (2 bits), `P` (1), and the 5-bit
/// count (`RC`/`SC`, or `FMT` in feedback messages, RFC 4585 6.1).
struct RTCPFirstOctet {
    /// The largest count the 5 bits hold.
    static let maxCount: UInt8 = 0x1F

    var version: UInt8
    var hasPadding: Bool
    /// The 5-bit count or format.
    var count: UInt8

    init(_ byte: UInt8) {
        version = byte >> 6
        hasPadding = byte & 0x20 != 0
        count = byte & Self.maxCount
    }

    /// Version 2, no padding, the low 5 bits of `count`.
    init(count: UInt8) {
        version = RTPPacket.version
        hasPadding = false
        self.count = count & Self.maxCount
    }

    var byte: UInt8 { version << 6 | (hasPadding ? 0x20 : 0) | count }
}
