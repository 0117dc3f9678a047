/// Start codes found ahead of the reader: the positions ``AnnexB/findStartCodeOrZeros(in:from:)``
/// would return in one buffer, computed once on the thread that read the buffer (its bytes are
/// still in that core's cache) so the parsing thread need not touch every byte.
///
/// A `00 00 00` run is recorded at its first position only: the reader skips the run anyway, and
/// a search that starts inside one is answered by looking at the three bytes there
/// (``ReadBuffer/findStartCodeOrZeros(in:from:)``), so the list is exact for every start.
/// The list holds at most ``limit`` positions; ``covered`` says how far it is complete (bytes
/// after that are searched as usual), so a stream of nothing but start codes costs no more memory.
package struct StartCodeCandidates: Sendable {
    /// Offsets from the first byte searched, ascending.
    package private(set) var positions: [UInt32] = []
    /// Every candidate starting before this offset is in ``positions`` (or inside a zero run
    /// that begins at one of them).
    package private(set) var covered = 0

    /// Positions per buffer at most (32 KiB of them).
    package static let limit = 8192

    package init() {}

    /// Finds the candidates of `bytes` (at most 4 GiB; larger buffers get none).
    package init(of bytes: UnsafeRawBufferPointer) {
        guard bytes.count < Int(UInt32.max) else { return }
        positions.reserveCapacity(min(Self.limit, bytes.count / 256 + 16))
        var index = 0
        while let found = AnnexB.findStartCodeOrZeros(in: bytes, from: index) {
            guard positions.count < Self.limit else {
                covered = found
                return
            }
            positions.append(UInt32(truncatingIfNeeded: found))
            if bytes[found &+ 2] == 0 {
                // A zero run: the reader goes on two bytes before its first non-zero byte.
                let nonZero = AnnexB.firstNonZero(in: bytes, from: found &+ 3)
                index = max(found &+ 1, nonZero &- 2)
            } else {
                index = found &+ 1
            }
        }
        covered = max(0, bytes.count &- 2)
    }
}
