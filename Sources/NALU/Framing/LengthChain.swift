/// Follows the length fields of a length-prefixed stream through the buffers a read-ahead thread
/// reads, so that thread can tell the parser where the next NAL units start
/// (``ExchangedChunk/unitHints``) and the parser can load them ahead (`ReadBuffer`).
///
/// The thread starts reading somewhere inside the stream (after the bytes read to detect the
/// format), so the chain is found, not known: an offset among the first 4 KiB of a buffer
/// from which four lengths in a row (each at least 1 byte) land inside the buffer, one after the
/// other (four 32-bit lengths of random bytes line up like that about once in 2⁵² tries; with
/// 1- or 2-byte lengths a false chain is likelier). The positions are hints only: the parser
/// reads the lengths itself, and a wrong or missing hint costs a useless load or a cache miss,
/// never a different result.
package struct LengthChain: Sendable {
    /// Bytes per length field (1, 2 or 4).
    package let lengthSize: Int
    /// Stream offset of the next length field, from the first byte the chain saw; `nil` until
    /// found.
    private var next: Int64?
    /// The first bytes of a length field the last buffer ended in: their value and count.
    private var partialField: (value: Int, count: Int)?
    /// Stream offset of the next buffer's first byte.
    private var seen: Int64 = 0

    /// Positions per buffer at most (32 KiB of them), as for ``StartCodeCandidates``.
    package static let limit = StartCodeCandidates.limit
    /// Offsets tried for the start of the chain in a buffer.
    static let searchWindow = 4096
    /// Lengths in a row that make a chain.
    static let linksToTrust = 4

    package init(lengthSize: Int) {
        self.lengthSize = lengthSize
    }

    /// The offsets in `bytes` (the stream's next bytes) where length fields start, ascending.
    package mutating func positions(in bytes: UnsafeRawBufferPointer) -> [UInt32] {
        let base = seen
        seen += Int64(bytes.count)
        guard [1, 2, 4].contains(lengthSize), bytes.count < Int(UInt32.max) else { return [] }
        var position: Int
        if let partial = partialField {
            // The field begun at the end of the last buffer ends here.
            var value = partial.value
            var count = partial.count
            var index = 0
            while count < lengthSize, index < bytes.count {
                value = value << 8 | Int(bytes[index])
                count += 1
                index += 1
            }
            guard count == lengthSize else {
                partialField = (value, count)
                return []
            }
            partialField = nil
            next = base + Int64(index) + Int64(value)
        }
        if let next, next >= base {
            guard next - base < Int64(bytes.count) else { return [] }  // inside a NAL unit that goes on
            position = Int(next - base)
        } else {
            guard let found = chainStart(in: bytes) else {
                next = nil
                return []
            }
            position = found
        }
        var positions: [UInt32] = []
        positions.reserveCapacity(min(Self.limit, bytes.count / 256 + 16))
        while position <= bytes.count - lengthSize {
            if positions.count < Self.limit { positions.append(UInt32(truncatingIfNeeded: position)) }
            position += lengthSize + LengthPrefixed.length(in: bytes, at: position, lengthSize: lengthSize)
        }
        if position < bytes.count {
            // A field split between this buffer and the next: its first bytes.
            var value = 0
            for index in position..<bytes.count { value = value << 8 | Int(bytes[index]) }
            partialField = (value, bytes.count - position)
            next = nil
        } else {
            next = base + Int64(position)
        }
        return positions
    }

    /// The first offset within ``searchWindow`` from which ``linksToTrust`` lengths land inside
    /// `bytes` one after the other.
    private func chainStart(in bytes: UnsafeRawBufferPointer) -> Int? {
        let window = min(Self.searchWindow, bytes.count)
        var start = 0
        while start < window {
            var position = start
            var links = 0
            while links < Self.linksToTrust, position <= bytes.count - lengthSize {
                let length = LengthPrefixed.length(in: bytes, at: position, lengthSize: lengthSize)
                guard length > 0, length <= bytes.count - position - lengthSize else { break }
                position += lengthSize + length
                links += 1
            }
            if links == Self.linksToTrust { return start }
            start += 1
        }
        return nil
    }
}
