/// Bytes that can be read at any offset: a regular file (POSIX `pread`) or memory.
///
/// Containers such as MP4 point into themselves (sample offsets, box sizes), so their readers
/// need positioned reads rather than a stream. Reads never move a shared position, so one
/// source can serve several readers.
public protocol RandomAccessByteSource {
    /// The total number of bytes.
    var size: Int64 { get }

    /// Reads up to `buffer.count` bytes starting at `offset` into `buffer` and returns how many
    /// were read: fewer only at the end of the data, 0 at or past it.
    /// - Throws: ``NALUError``: a source reports its failure as ``NALUError/Code/io`` naming what
    ///   it reads (a path, a URL), with its own text as the detail (issue 39 item 6: every reader
    ///   of a container then throws one type).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int
}

extension RandomAccessByteSource {
    /// Fills `buffer` completely from `offset`, or throws: ``NALUError/Code/truncated`` naming
    /// `field` when the data ends first.
    /// - Throws: ``NALUError`` (typed): `.truncated` naming `field` when the data ends first; the source's error.
    public func readExactly(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, field: String) throws(NALUError) {
        var filled = 0
        while filled < buffer.count {
            let (position, overflow) = offset.addingReportingOverflow(Int64(filled))
            guard !overflow else { throw NALUError(.invalidValue, field: field, byteOffset: offset, detail: "offset overflows") }
            let count = try read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            guard count > 0 else {
                throw NALUError(.truncated, field: field, byteOffset: offset,
                                detail: "needs \(buffer.count) bytes, \(filled) available")
            }
            filled += count
        }
    }

    /// Reads `count` bytes at `offset` into a new array. The range is checked against ``size``
    /// before anything is allocated, so a hostile length cannot cause a large allocation.
    /// - Throws: ``NALUError`` (typed): `.invalidValue` for a negative range, `.lengthPastEnd` past ``size``; the source's error.
    public func readBytes(at offset: Int64, count: Int, field: String) throws(NALUError) -> [UInt8] {
        guard count >= 0, offset >= 0 else {
            throw NALUError(.invalidValue, field: field, byteOffset: offset, detail: "negative range")
        }
        let (end, overflow) = offset.addingReportingOverflow(Int64(count))
        guard !overflow, end <= size else {
            throw NALUError(.lengthPastEnd, field: field, byteOffset: offset,
                            detail: "\(count) bytes, \(max(0, size - offset)) left in \(size)")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withMutableBytes { (buffer) throws(NALUError) in try readExactly(at: offset, into: buffer, field: field) }
        return bytes
    }
}
