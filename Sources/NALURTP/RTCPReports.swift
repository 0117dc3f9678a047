import NALU

/// A reception report block (RFC 3550 6.4.1): what a receiver got from one source since its
/// last report.
public struct RTCPReportBlock: Sendable, Hashable {
    /// Octets of a report block.
    public static let size = 24
    /// The smallest and largest `cumulative number of packets lost` (24 bits, signed).
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// `SSRC_n`: the source reported on.
    public var ssrc: UInt32
    /// `fraction lost`: packets lost since the previous report over packets expected, in 1/256.
    public var fractionLost: UInt8
    /// `cumulative number of packets lost`: expected − received since the start (negative with
    /// duplicates), clamped to 24 bits signed.
    public var cumulativeLost: Int32
    /// `extended highest sequence number received`: cycles in the high 16 bits.
    public var extendedHighestSequenceNumber: UInt32
    /// `interarrival jitter` (A.8), in timestamp units.
    public var jitter: UInt32
    /// `last SR timestamp (LSR)`: the middle 32 bits of the last SR's NTP timestamp (0: none).
    public var lastSenderReport: UInt32
    /// `delay since last SR (DLSR)`, in units of 1/65536 s (0: no SR yet).
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequenceNumber: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    init(reading reader: inout RTCPReader) throws(NALUError) {
        ssrc = try reader.u32("report block SSRC_n")
        fractionLost = try reader.u8("report block fraction lost")
        let high = try reader.u8("report block cumulative number of packets lost")
        let low = try reader.u16("report block cumulative number of packets lost")
        // 24 bits, two's complement: shifted to the top of 32 bits and back, sign extended.
        cumulativeLost = Int32(bitPattern: UInt32(high) << 24 | UInt32(low) << 8) >> 8
        extendedHighestSequenceNumber = try reader.u32("report block extended highest sequence number")
        jitter = try reader.u32("report block interarrival jitter")
        lastSenderReport = try reader.u32("report block LSR")
        delaySinceLastSenderReport = try reader.u32("report block DLSR")
    }

    func write(into out: inout [UInt8]) {
        out.appendRTCP(ssrc)
        let lost = UInt32(bitPattern: min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound))
        out.append(fractionLost)
        out.append(UInt8(truncatingIfNeeded: lost >> 16))
        out.appendRTCP(UInt16(truncatingIfNeeded: lost))
        out.appendRTCP(extendedHighestSequenceNumber)
        out.appendRTCP(jitter)
        out.appendRTCP(lastSenderReport)
        out.appendRTCP(delaySinceLastSenderReport)
    }

    /// Reads `count` blocks.
    static func read(_ count: Int, from reader: inout RTCPReader) throws(NALUError) -> [RTCPReportBlock] {
        guard count * size <= reader.remaining else {
            throw NALUError(.truncated, field: "RTCP report count", byteOffset: Int64(reader.offset),
                            detail: "\(count) report blocks need \(count * size) bytes; \(reader.remaining) left in the packet")
        }
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count { blocks.append(try RTCPReportBlock(reading: &reader)) }
        return blocks
    }
}

/// A sender report, SR (RFC 3550 6.4.1, packet type 200): the sender's NTP and RTP clocks at
/// one instant, what it sent, and reception reports on sources it receives.
public struct RTCPSenderReport: Sendable, Hashable {
    /// The RTCP packet type `PT` of an SR.
    public static let packetType: UInt8 = 200

    /// `SSRC of sender`.
    public var ssrc: UInt32
    /// `NTP timestamp`: the wall-clock time of ``rtpTimestamp``.
    public var ntpTimestamp: NTPTimestamp
    /// `RTP timestamp`: the same instant on the RTP clock of the sender's packets.
    public var rtpTimestamp: UInt32
    /// `sender's packet count` since the start.
    public var packetCount: UInt32
    /// `sender's octet count`: payload octets (headers and padding not counted) since the start.
    public var octetCount: UInt32
    /// Reception report blocks (at most 31 are written).
    public var reports: [RTCPReportBlock]
    /// `profile-specific extensions` (kept, not interpreted).
    public var profileExtension: [UInt8]

    public init(ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reports: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtension = profileExtension
    }

    init(reading reader: inout RTCPReader, count: Int) throws(NALUError) {
        ssrc = try reader.u32("SR SSRC of sender")
        let seconds = try reader.u32("SR NTP timestamp")
        ntpTimestamp = NTPTimestamp(seconds: seconds, fraction: try reader.u32("SR NTP timestamp"))
        rtpTimestamp = try reader.u32("SR RTP timestamp")
        packetCount = try reader.u32("SR sender's packet count")
        octetCount = try reader.u32("SR sender's octet count")
        reports = try RTCPReportBlock.read(count, from: &reader)
        profileExtension = reader.rest()
    }

    func write(into out: inout [UInt8]) {
        out.appendRTCP(ssrc)
        out.appendRTCP(ntpTimestamp.seconds)
        out.appendRTCP(ntpTimestamp.fraction)
        out.appendRTCP(rtpTimestamp)
        out.appendRTCP(packetCount)
        out.appendRTCP(octetCount)
        for block in reports.prefix(RTCPPacket.maxCount) { block.write(into: &out) }
        out.append(contentsOf: profileExtension)
    }
}

/// A receiver report, RR (RFC 3550 6.4.2, packet type 201): reception reports from a
/// participant that does not send.
public struct RTCPReceiverReport: Sendable, Hashable {
    /// The RTCP packet type `PT` of an RR.
    public static let packetType: UInt8 = 201

    /// `SSRC of packet sender`.
    public var ssrc: UInt32
    /// Reception report blocks (at most 31 are written).
    public var reports: [RTCPReportBlock]
    /// `profile-specific extensions` (kept, not interpreted).
    public var profileExtension: [UInt8]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtension = profileExtension
    }

    init(reading reader: inout RTCPReader, count: Int) throws(NALUError) {
        ssrc = try reader.u32("RR SSRC of packet sender")
        reports = try RTCPReportBlock.read(count, from: &reader)
        profileExtension = reader.rest()
    }

    func write(into out: inout [UInt8]) {
        out.appendRTCP(ssrc)
        for block in reports.prefix(RTCPPacket.maxCount) { block.write(into: &out) }
        out.append(contentsOf: profileExtension)
    }
}
