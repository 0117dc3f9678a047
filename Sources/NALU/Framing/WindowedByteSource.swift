/// A ``ByteSource`` that can also lend its bytes in place, a window at a time: a regular file
/// mapped into memory (NALUIO's `FileSource`, NALUMedia's `InputFile`). The streaming readers
/// then scan the bytes where they are instead of copying them into their own buffer first
/// (``ReadBuffer``); pipes, FIFOs, terminals and devices are read with ``ByteSource/read(into:)``.
///
/// Offsets count bytes of the stream as ``streamPosition`` does: the bytes `read(into:)` has
/// returned so far. A window's bytes are writable and private to the process (a lent NAL unit's
/// start code or length may be rewritten in place, ``NALUnitView/isLendable``).
package protocol WindowedByteSource: ByteSource {
    /// Whether ``window(from:minimumCount:)`` may be used; when `false`, read with `read(into:)`.
    var lendsWindows: Bool { get }
    /// The bytes `read(into:)` has returned so far.
    var streamPosition: Int64 { get }
    /// Ends the previous window (its bytes become invalid) and returns the bytes from stream
    /// offset `offset`: at least `minimumCount` of them (more when the source's window is
    /// larger), fewer only at the end of the input, none at or past it.
    /// - Throws: ``NALUError`` `.io` when the input shrank under the previous window or cannot
    ///   be mapped.
    mutating func window(from offset: Int64, minimumCount: Int) throws -> UnsafeMutableRawBufferPointer
    /// Throws ``NALUError`` `.io` when the input shrank under the current window (bytes read
    /// from it past the new end were zeros, not the file's).
    func verifyWindow() throws
}

extension ReplaySource: WindowedByteSource where Source: WindowedByteSource {
    /// The replayed prefix is the source's bytes before its position when this was made, so
    /// windows are the source's, shifted by where the prefix began.
    package var lendsWindows: Bool { source.lendsWindows && sourceStart >= Int64(prefix.count) }

    package var streamPosition: Int64 {
        Int64(min(position, prefix.count)) + (source.streamPosition - sourceStart)
    }

    package mutating func window(from offset: Int64, minimumCount: Int) throws -> UnsafeMutableRawBufferPointer {
        try source.window(from: sourceStart - Int64(prefix.count) + offset, minimumCount: minimumCount)
    }

    package func verifyWindow() throws { try source.verifyWindow() }
}
