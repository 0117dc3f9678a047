/// A raw byte sequence payload: the bytes of a NAL unit with every
/// `emulation_prevention_three_byte` removed (ITU-T H.264 7.3.1, 7.4.1; ITU-T H.265 7.3.1.1).
///
/// Unescaping copies only when a `00 00 03` sequence is present; otherwise ``bytes`` shares the
/// input's storage. The positions of removed bytes are kept so that an error found at an RBSP
/// offset can be reported at its offset in the escaped NAL unit (``escapedOffset(of:)``).
public struct RBSP: Sendable, Hashable {
    /// The payload with emulation prevention removed.
    public let bytes: ArraySlice<UInt8>
    /// RBSP indices (relative to `bytes.startIndex`) before which a `03` was removed, ascending.
    public let removedBefore: [Int]

    /// Unescapes `escaped` (a whole NAL unit, header included, or any part of one).
    public init(escaped: ArraySlice<UInt8>) {
        // Fast path: look for the first 00 00 03 without copying.
        var zeros = 0
        var firstEscape: Int? = nil
        var index = escaped.startIndex
        while index < escaped.endIndex {
            let byte = escaped[index]
            if zeros >= 2 && byte == 3 { firstEscape = index; break }
            zeros = byte == 0 ? zeros + 1 : 0
            index += 1
        }
        guard let firstEscape else {
            bytes = escaped
            removedBefore = []
            return
        }
        var out = [UInt8]()
        out.reserveCapacity(escaped.count)
        out.append(contentsOf: escaped[escaped.startIndex..<firstEscape])
        var removed = [out.count]
        zeros = 0
        index = firstEscape + 1
        while index < escaped.endIndex {
            let byte = escaped[index]
            if zeros >= 2 && byte == 3 {
                removed.append(out.count)
                zeros = 0
            } else {
                out.append(byte)
                zeros = byte == 0 ? zeros + 1 : 0
            }
            index += 1
        }
        bytes = out[...]
        removedBefore = removed
    }

    /// Unescapes `escaped`.
    public init(escaped: [UInt8]) { self.init(escaped: escaped[...]) }

    /// The offset in the escaped input of the RBSP byte at `rbspOffset` (relative to the start).
    public func escapedOffset(of rbspOffset: Int) -> Int {
        // Count removed bytes at or before this position (binary search: ascending list).
        var low = 0
        var high = removedBefore.count
        while low < high {
            let mid = (low + high) / 2
            if removedBefore[mid] <= rbspOffset { low = mid + 1 } else { high = mid }
        }
        return rbspOffset + low
    }

    /// Escapes an RBSP for writing into a NAL unit: inserts `03` after every `00 00` that is
    /// followed by a byte `00`–`03`, and appends `03` when the payload ends in `00`
    /// (ITU-T H.264 7.4.1, ITU-T H.265 7.4.2).
    public static func escape(_ rbsp: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if out.last == 0 { out.append(3) }
        return out
    }
}
