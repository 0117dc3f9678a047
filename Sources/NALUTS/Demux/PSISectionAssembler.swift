/// Collects the PSI sections of one PID from its packets' payloads (ISO/IEC 13818-1 2.4.4):
/// `pointer_field` in a packet that starts a section, sections that span packets, several
/// sections in one packet, `0xFF` stuffing after the last. Memory is one section at most
/// (4096 bytes), reused.
public struct PSISectionAssembler: Sendable {
    /// Longest `section_length` of a private section (2.4.4.10); PAT and PMT allow 1021.
    public static let maximumSectionLength = 4093
    private var section: [UInt8] = []
    /// Bytes the section in progress has in all (3 + `section_length`), or 0 before its header.
    private var expected = 0
    private var collecting = false

    public init() { section.reserveCapacity(Self.maximumSectionLength + 3) }

    /// What ``push(_:payloadUnitStart:_:)`` reports besides whole sections.
    public enum Problem: Sendable, Hashable {
        /// `pointer_field` points past the payload.
        case pointerField(Int)
        /// `section_length` over the limit.
        case sectionLength(Int)
    }

    /// Feeds one packet's payload; `body` gets each complete section (header and `CRC_32` included).
    /// - Returns: a problem found in this payload, if any (the bytes concerned are dropped).
    @discardableResult
    public mutating func push(_ payload: UnsafeRawBufferPointer, payloadUnitStart: Bool,
                              _ body: (UnsafeRawBufferPointer) -> Void) -> Problem? {
        var index = 0
        if payloadUnitStart {
            guard payload.count >= 1 else { return .pointerField(0) }
            let pointer = Int(payload[0])
            guard 1 + pointer <= payload.count else {
                collecting = false
                return .pointerField(pointer)
            }
            // The bytes before the new section end the one in progress.
            if collecting { _ = append(UnsafeRawBufferPointer(rebasing: payload[1..<(1 + pointer)]), body) }
            collecting = false
            index = 1 + pointer
            // New sections start here until stuffing (table_id 0xFF) or the end.
            while index < payload.count, payload[index] != 0xFF {
                section.removeAll(keepingCapacity: true)
                expected = 0
                collecting = true
                let before = index
                if let problem = append(UnsafeRawBufferPointer(rebasing: payload[index...]), body) { return problem }
                if collecting { break }
                index = before + consumedByLast
            }
            return nil
        }
        guard collecting else { return nil }
        return append(UnsafeRawBufferPointer(rebasing: payload[index...]), body)
    }

    /// Bytes the last ``append(_:_:)`` took from its input.
    private var consumedByLast = 0

    private mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) -> Problem? {
        var taken = 0
        if expected == 0 {
            let need = min(3 - section.count, bytes.count)
            section.append(contentsOf: bytes[0..<need])
            taken = need
            if section.count < 3 { consumedByLast = taken; return nil }
            let length = Int(section[1] & 0x0F) << 8 | Int(section[2])
            guard length <= Self.maximumSectionLength else {
                collecting = false
                consumedByLast = bytes.count
                return .sectionLength(length)
            }
            expected = 3 + length
        }
        let need = min(expected - section.count, bytes.count - taken)
        section.append(contentsOf: bytes[taken..<(taken + need)])
        taken += need
        consumedByLast = taken
        if section.count == expected {
            collecting = false
            section.withUnsafeBytes { body($0) }
        }
        return nil
    }
}
