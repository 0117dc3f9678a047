/// The fixed header and adaptation field of one 188-byte transport packet (ISO/IEC 13818-1
/// 2.4.3.2 `transport_packet()`, 2.4.3.4 `adaptation_field()`), read in place.
public struct TransportPacket: Sendable, Hashable {
    /// `transport_error_indicator`: at least one uncorrectable bit error in the packet.
    public var transportErrorIndicator: Bool
    /// `payload_unit_start_indicator`: a PES packet or a PSI section (after `pointer_field`) starts here.
    public var payloadUnitStart: Bool
    /// `PID` (13 bits).
    public var pid: UInt16
    /// `transport_scrambling_control` (2 bits); 0 is not scrambled.
    public var scramblingControl: UInt8
    /// `adaptation_field_control` (2 bits): 1 payload only, 2 adaptation field only, 3 both, 0 reserved.
    public var adaptationFieldControl: UInt8
    /// `continuity_counter` (4 bits).
    public var continuityCounter: UInt8
    /// `discontinuity_indicator` of the adaptation field.
    public var discontinuityIndicator: Bool
    /// Where the payload starts in the 188 bytes (188 when there is none).
    public var payloadOffset: Int

    /// Whether the packet carries payload bytes (`adaptation_field_control` 1 or 3, and some left).
    public var hasPayload: Bool { adaptationFieldControl & 1 != 0 && payloadOffset < TransportStream.packetSize }

    /// Why a packet header does not parse.
    public enum Problem: Sendable, Hashable {
        /// The first byte is not `sync_byte` 0x47.
        case noSyncByte
        /// `adaptation_field_length` runs past the packet's end (or, with no payload, is not 183).
        case adaptationFieldLength(Int)
    }

    /// Reads the header of `packet` (at least 188 bytes; only the first 188 are read).
    public static func parse(_ packet: UnsafeRawBufferPointer) -> Result<TransportPacket, ProblemError> {
        guard packet.count >= TransportStream.packetSize, packet[0] == TransportStream.syncByte else {
            return .failure(ProblemError(problem: .noSyncByte))
        }
        let b1 = packet[1], b3 = packet[3]
        let control = (b3 >> 4) & 0x3
        var header = TransportPacket(transportErrorIndicator: b1 & 0x80 != 0, payloadUnitStart: b1 & 0x40 != 0,
                                     pid: UInt16(b1 & 0x1F) << 8 | UInt16(packet[2]), scramblingControl: b3 >> 6,
                                     adaptationFieldControl: control, continuityCounter: b3 & 0x0F,
                                     discontinuityIndicator: false, payloadOffset: 4)
        if control & 2 != 0 {
            // 2.4.3.5: 0…182 bytes with a payload after it, exactly 183 without.
            let length = Int(packet[4])
            let end = 5 + length
            guard end <= TransportStream.packetSize else { return .failure(ProblemError(problem: .adaptationFieldLength(length))) }
            if length > 0 { header.discontinuityIndicator = packet[5] & 0x80 != 0 }
            header.payloadOffset = end
        }
        if control & 1 == 0 { header.payloadOffset = TransportStream.packetSize }
        return .success(header)
    }

    /// A ``Problem`` as an `Error` (for `Result`).
    public struct ProblemError: Error, Sendable, Hashable {
        public var problem: Problem
    }
}
