import NALU

/// A full intra request entry (RFC 5104 4.3.1.1): the source asked for a decoder refresh and
/// the command sequence number (incremented per new request, repeated on retransmission).
public struct RTCPFullIntraRequest: Sendable, Hashable {
    /// `SSRC`: the media sender asked.
    public var ssrc: UInt32
    /// `Seq nr.`: the command sequence number, modulo 256.
    public var sequenceNumber: UInt8

    public init(ssrc: UInt32, sequenceNumber: UInt8) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }
}

/// A generic NACK entry (RFC 4585 6.2.1): `PID`, a lost packet's sequence number, and `BLP`, a
/// bit mask of the 16 following ones also lost.
public struct RTCPGenericNACK: Sendable, Hashable {
    public var packetID: UInt16
    public var lostBitmask: UInt16

    public init(packetID: UInt16, lostBitmask: UInt16) {
        self.packetID = packetID
        self.lostBitmask = lostBitmask
    }
}

/// The message of a feedback packet (RFC 4585 6.1).
public enum RTCPFeedbackMessage: Sendable, Hashable {
    /// Picture loss indication (RFC 4585 6.3.1: payload-specific, `FMT` 1, no FCI).
    case pictureLossIndication
    /// Full intra request (RFC 5104 4.3.1: payload-specific, `FMT` 4).
    case fullIntraRequest([RTCPFullIntraRequest])
    /// Generic NACK (RFC 4585 6.2.1: transport layer, `FMT` 1).
    case genericNACK([RTCPGenericNACK])
    /// Another message, kept as it came: its packet type (205 or 206), `FMT` and FCI.
    case other(packetType: UInt8, format: UInt8, controlInformation: [UInt8])
}

/// A feedback packet (RFC 4585 6.1): transport layer (`RTPFB`, packet type 205) or
/// payload-specific (`PSFB`, 206).
public struct RTCPFeedback: Sendable, Hashable {
    /// `RTPFB`.
    public static let transportLayerType: UInt8 = 205
    /// `PSFB`.
    public static let payloadSpecificType: UInt8 = 206

    /// `SSRC of packet sender`.
    public var senderSSRC: UInt32
    /// `SSRC of media source` (0 for a FIR, RFC 5104 4.3.1.2: the FCI names the sources).
    public var mediaSSRC: UInt32
    public var message: RTCPFeedbackMessage

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, message: RTCPFeedbackMessage) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.message = message
    }

    /// The packet type and `FMT` of the message.
    var typeAndFormat: (packetType: UInt8, format: UInt8) {
        switch message {
        case .pictureLossIndication: (Self.payloadSpecificType, 1)
        case .fullIntraRequest: (Self.payloadSpecificType, 4)
        case .genericNACK: (Self.transportLayerType, 1)
        case .other(let packetType, let format, _): (packetType, RTCPFirstOctet(count: format).count)
        }
    }

    init(reading reader: inout RTCPReader, packetType: UInt8, format: UInt8) throws(NALUError) {
        senderSSRC = try reader.u32("feedback SSRC of packet sender")
        mediaSSRC = try reader.u32("feedback SSRC of media source")
        let fciOffset = reader.offset
        let fciCount = reader.remaining
        switch (packetType, format) {
        case (Self.payloadSpecificType, 1):
            guard fciCount == 0 else {
                throw NALUError(.invalidValue, field: "PLI FCI", byteOffset: Int64(fciOffset), detail: "\(fciCount) bytes; a PLI has none")
            }
            message = .pictureLossIndication
        case (Self.payloadSpecificType, 4):
            guard fciCount % 8 == 0 else {
                throw NALUError(.invalidValue, field: "FIR FCI", byteOffset: Int64(fciOffset), detail: "\(fciCount) bytes; entries are 8")
            }
            var entries: [RTCPFullIntraRequest] = []
            while reader.remaining > 0 {
                let ssrc = try reader.u32("FIR SSRC")
                let sequenceNumber = try reader.u8("FIR Seq nr.")
                _ = try reader.take(3, "FIR Reserved")
                entries.append(RTCPFullIntraRequest(ssrc: ssrc, sequenceNumber: sequenceNumber))
            }
            message = .fullIntraRequest(entries)
        case (Self.transportLayerType, 1):
            // The FCI is a whole number of 32-bit words (the packet length counts words).
            var entries: [RTCPGenericNACK] = []
            while reader.remaining > 0 {
                let packetID = try reader.u16("NACK PID")
                entries.append(RTCPGenericNACK(packetID: packetID, lostBitmask: try reader.u16("NACK BLP")))
            }
            message = .genericNACK(entries)
        default:
            message = .other(packetType: packetType, format: format, controlInformation: reader.rest())
        }
    }

    func write(into out: inout [UInt8]) {
        out.appendRTCP(senderSSRC)
        out.appendRTCP(mediaSSRC)
        switch message {
        case .pictureLossIndication:
            break
        case .fullIntraRequest(let entries):
            for entry in entries {
                out.appendRTCP(entry.ssrc)
                out.append(entry.sequenceNumber)
                out.append(contentsOf: [0, 0, 0])
            }
        case .genericNACK(let entries):
            for entry in entries {
                out.appendRTCP(entry.packetID)
                out.appendRTCP(entry.lostBitmask)
            }
        case .other(_, _, let controlInformation):
            out.append(contentsOf: controlInformation)
        }
    }
}
