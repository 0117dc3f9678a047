/// Cuts payloads into 188-byte transport packets (ISO/IEC 13818-1 2.4.3.2, 2.4.3.4, 2.4.3.5)
/// in a buffer of whole packets that is reused for the whole stream (no allocation per packet
/// or per PES), handed to `flush` whenever it is full and by ``drain(_:)``.
///
/// - `continuity_counter` counts per PID, modulo 16, on packets that carry a payload only
///   (2.4.3.3); packets with an adaptation field and no payload repeat the last value.
/// - A payload that does not fill its last packet is padded with adaptation-field stuffing
///   bytes 0xFF (2.4.3.5), so every packet is exactly 188 bytes; PSI packets pad their payload
///   with 0xFF after the section instead (2.4.4.1).
/// - Timestamped (M2TS, Blu-ray/AVCHD) packets are 192 bytes: a `TP_extra_header` (2 bits of
///   `copy_permission_indicator` 0, a 30-bit `arrival_time_stamp` of the 27 MHz clock) before
///   each transport packet; the stamp is ``arrivalTime``, which the owner sets.
final class TransportPacketizer {
    /// What the first packet of a payload unit carries in its adaptation field.
    struct Adaptation {
        /// `program_clock_reference_base` (90 kHz, modulo 2^33); the extension is 0.
        var pcr: Int64?
        /// `random_access_indicator` and `elementary_stream_priority_indicator`: a keyframe.
        var randomAccess = false

        var isEmpty: Bool { pcr == nil && !randomAccess }
    }

    /// Whole packets not yet flushed: `count` bytes of `buffer`.
    private let buffer: UnsafeMutableRawBufferPointer
    private var count = 0
    /// Bytes from one packet to the next: 188, or 192 when timestamped.
    private let stride: Int
    /// The `arrival_time_stamp` of the next packets (27 MHz; written modulo 2^30), when timestamped.
    var arrivalTime: Int64 = 0
    /// `continuity_counter` of the last packet of each PID slot.
    private var continuity: [UInt8]
    /// Packets written in all.
    private(set) var packetsWritten: Int64 = 0

    /// - Parameters:
    ///   - packets: packets the buffer holds before it is full.
    ///   - slots: PIDs with a continuity counter (the owner numbers them 0..<slots).
    ///   - timestamped: 192-byte M2TS packets.
    init(packets: Int, slots: Int, timestamped: Bool = false) {
        stride = timestamped ? TransportStream.timestampedPacketSize : TransportStream.packetSize
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, packets) * stride, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0xFF)
        continuity = [UInt8](repeating: 0x0F, count: slots)
    }

    deinit { buffer.deallocate() }

    /// Hands the packets written so far to `flush` and empties the buffer.
    func drain(_ flush: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard count > 0 else { return }
        try flush(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        count = 0
    }

    /// Where the next transport packet goes (after its `TP_extra_header`, when timestamped),
    /// after flushing a full buffer.
    private func nextPacket(_ flush: (UnsafeRawBufferPointer) throws -> Void) rethrows -> Int {
        if count + stride > buffer.count { try drain(flush) }
        var start = count
        count += stride
        packetsWritten += 1
        if stride == TransportStream.timestampedPacketSize {
            let stamp = UInt32(truncatingIfNeeded: arrivalTime) & 0x3FFF_FFFF
            buffer[start] = UInt8(stamp >> 24)
            buffer[start + 1] = UInt8((stamp >> 16) & 0xFF)
            buffer[start + 2] = UInt8((stamp >> 8) & 0xFF)
            buffer[start + 3] = UInt8(stamp & 0xFF)
            start += 4
        }
        return start
    }

    /// Writes a payload unit: `header` (a PES header or a pointer field; it fits the first
    /// packet) then `payload`, over as many packets as it takes, the first with
    /// `payload_unit_start_indicator` and `adaptation`.
    /// - Parameter stuffPayload: pad the last packet's payload with 0xFF (PSI) rather than with
    ///   adaptation-field stuffing (PES).
    func writeUnit(pid: UInt16, slot: Int, header: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
                   adaptation: Adaptation, stuffPayload: Bool = false, flush: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        var first = true
        let out = buffer
        while first || offset < payload.count {
            let start = try nextPacket(flush)
            let headerLength = first ? header.count : 0
            // Adaptation field body: the flags byte, then the PCR.
            var fieldBody = 0
            var flags: UInt8 = 0
            if first && !adaptation.isEmpty {
                fieldBody = 1
                if adaptation.randomAccess { flags |= 0x60 }  // random_access_indicator, elementary_stream_priority_indicator
                if adaptation.pcr != nil {
                    flags |= 0x10  // PCR_flag
                    fieldBody += 6
                }
            }
            // adaptation_field_length byte plus body.
            var fieldLength = fieldBody == 0 ? 0 : 1 + fieldBody
            let space = 184 - fieldLength - headerLength
            let take = min(space, payload.count - offset)
            var payloadStuffing = 0
            if stuffPayload {
                payloadStuffing = space - take
            } else if space > take {
                // Stuffing bytes in the adaptation field; a one-byte field is just
                // adaptation_field_length 0, a longer one needs the flags byte.
                fieldLength += space - take
            }
            let hasField = fieldLength > 0
            continuity[slot] = (continuity[slot] &+ 1) & 0x0F
            out[start] = TransportStream.syncByte
            out[start + 1] = (first ? 0x40 : 0) | UInt8((pid >> 8) & 0x1F)
            out[start + 2] = UInt8(pid & 0xFF)
            out[start + 3] = (hasField ? 0x30 : 0x10) | continuity[slot]
            var position = start + 4
            if hasField {
                out[position] = UInt8(fieldLength - 1)
                position += 1
                if fieldLength > 1 {
                    out[position] = flags
                    position += 1
                    if first, let pcr = adaptation.pcr {
                        Self.writePCR(pcr, into: out, at: position)
                        position += 6
                    }
                    let end = start + 4 + fieldLength
                    if position < end {
                        UnsafeMutableRawBufferPointer(rebasing: out[position..<end]).initializeMemory(as: UInt8.self, repeating: 0xFF)
                        position = end
                    }
                }
            }
            if headerLength > 0 {
                UnsafeMutableRawBufferPointer(rebasing: out[position..<(position + headerLength)]).copyMemory(from: header)
                position += headerLength
            }
            if take > 0 {
                UnsafeMutableRawBufferPointer(rebasing: out[position..<(position + take)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[offset..<(offset + take)]))
                position += take
            }
            if payloadStuffing > 0 {
                UnsafeMutableRawBufferPointer(rebasing: out[position..<(position + payloadStuffing)])
                    .initializeMemory(as: UInt8.self, repeating: 0xFF)
            }
            offset += take
            first = false
        }
    }

    /// `program_clock_reference_base` (33 bits), 6 reserved bits, `program_clock_reference_extension` 0 (2.4.3.5).
    private static func writePCR(_ pcr: Int64, into out: UnsafeMutableRawBufferPointer, at position: Int) {
        let base = UInt64(bitPattern: pcr) & UInt64(TransportStream.timestampModulus - 1)
        out[position] = UInt8(base >> 25)
        out[position + 1] = UInt8((base >> 17) & 0xFF)
        out[position + 2] = UInt8((base >> 9) & 0xFF)
        out[position + 3] = UInt8((base >> 1) & 0xFF)
        out[position + 4] = UInt8(base & 1) << 7 | 0x7E
        out[position + 5] = 0
    }
}
