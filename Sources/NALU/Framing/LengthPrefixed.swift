/// Length-prefixed NAL units ("AVCC"/"HVCC", ISO/IEC 14496-15 5.3.2 and 8.3.2): each NAL unit
/// preceded by its size as a big-endian integer of `lengthSize` (1, 2 or 4) bytes.
///
/// ``forEachCompleteNALUnit(in:position:lengthSize:baseOffset:maxNALUnitSize:zeroLengthNALUnits:_:)``
/// is the one walker over such bytes: the streaming ``LengthPrefixedReader``, the push
/// ``LengthPrefixedFramer``, the whole-buffer ``forEachNALUnit(in:lengthSize:baseOffset:within:_:)``
/// (MP4 samples, encoder packets, in-memory conversion) all call it. It lends each NAL unit as a
/// view into the caller's bytes: no copy, no allocation per NAL unit.
public enum LengthPrefixed {
    /// Calls `body` with every complete, non-empty NAL unit of `bytes` from `position` on, as a
    /// view at stream offset `baseOffset + start`, valid only during the call. Zero-length NAL
    /// units are skipped and added to `zeroLengthNALUnits`.
    ///
    /// `position` moves past each NAL unit before it is lent (so when `body` throws, the NAL unit
    /// it was given counts as consumed) and stops at the first length field or NAL unit that is
    /// not all in `bytes`, or at a length above `maxNALUnitSize` (not delivered: the caller decides
    /// whether that is an error); it is `bytes.count` when everything was walked. Only `body` throws.
    /// - Precondition: `lengthSize` is 1, 2 or 4 and `position` is within `bytes`.
    public static func forEachCompleteNALUnit<E: Error>(
        in bytes: UnsafeRawBufferPointer, position: inout Int, lengthSize: Int, baseOffset: Int64,
        maxNALUnitSize: Int = .max, zeroLengthNALUnits: inout Int, lendable: Bool = false,
        _ body: (NALUnitView) throws(E) -> Void
    ) throws(E) {
        while bytes.count - position >= lengthSize {
            let length = Self.length(in: bytes, at: position, lengthSize: lengthSize)
            let start = position + lengthSize
            if length == 0 {
                zeroLengthNALUnits += 1
                position = start
                continue
            }
            guard length <= maxNALUnitSize, bytes.count - start >= length else { return }
            position = start + length
            try body(NALUnitView(offset: baseOffset + Int64(start),
                                 bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<position]),
                                 prefixLength: lengthSize, isLendable: lendable))
        }
    }

    /// Calls `body` with every non-empty NAL unit of `buffer`, a complete length-prefixed stream
    /// (or one MP4 sample) whose first byte is at stream offset `baseOffset`. Zero-length units
    /// are skipped.
    /// - Parameter within: what `buffer` is, for the error detail (`"sample"`: "… bytes left in
    ///   the sample"); `nil` for a whole stream.
    /// - Throws: ``NALUError/Code/invalidValue`` for a length size other than 1, 2 or 4;
    ///   ``NALUError/Code/truncated`` (a partial length field) or ``NALUError/Code/lengthPastEnd``
    ///   at the length field's offset; whatever `body` throws.
    public static func forEachNALUnit(in buffer: UnsafeRawBufferPointer, lengthSize: Int, baseOffset: Int64,
                                      within: String? = nil, _ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(in: buffer, lengthSize: lengthSize, baseOffset: baseOffset, within: within, lendable: false, body)
    }

    /// As above; `lendable`: whether `buffer` is the caller's own memory, which it keeps until
    /// its `beforeReuse` hook runs and never reads again (``NALUnitView/isLendable``).
    package static func forEachNALUnit(in buffer: UnsafeRawBufferPointer, lengthSize: Int, baseOffset: Int64,
                                       within: String?, lendable: Bool, _ body: (NALUnitView) throws -> Void) throws {
        try validate(lengthSize: lengthSize)
        var zero = 0
        var end = 0
        try forEachCompleteNALUnit(in: buffer, position: &end, lengthSize: lengthSize, baseOffset: baseOffset,
                                   zeroLengthNALUnits: &zero, lendable: lendable, body)
        guard end == buffer.count else {
            throw pastEnd(buffer, at: end, baseOffset: baseOffset, lengthSize: lengthSize, within: within)
        }
    }

    /// Calls `body` with the range in `buffer` of every non-empty NAL unit of `buffer`, a
    /// complete length-prefixed stream (``forEachNALUnit(in:lengthSize:baseOffset:within:_:)``).
    public static func forEachNALUnit(in buffer: UnsafeRawBufferPointer, lengthSize: Int,
                                      _ body: (Range<Int>) throws -> Void) throws {
        try forEachNALUnit(in: buffer, lengthSize: lengthSize, baseOffset: 0) { unit in
            let start = Int(unit.offset)
            try body(start..<(start + unit.count))
        }
    }

    /// Rejects a length size other than 1, 2 or 4 (`lengthSizeMinusOne` 2 is reserved).
    static func validate(lengthSize: Int) throws(NALUError) {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw NALUError(.invalidValue, field: "length size", detail: "\(lengthSize); must be 1, 2 or 4")
        }
    }

    /// The big-endian length field at `position`.
    /// - Precondition: `lengthSize` bytes from `position` are in `bytes`.
    @inline(__always)
    static func length(in bytes: UnsafeRawBufferPointer, at position: Int, lengthSize: Int) -> Int {
        if lengthSize == 4 && position >= 0 && bytes.count - position >= 4 {
            return Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        }
        var length = 0
        for index in position..<(position + lengthSize) { length = length << 8 | Int(bytes[index]) }
        return length
    }

    /// The error for bytes that end inside the length field or the NAL unit at `position`.
    static func pastEnd(_ bytes: UnsafeRawBufferPointer, at position: Int, baseOffset: Int64, lengthSize: Int,
                        within: String? = nil) -> NALUError {
        let left = bytes.count - position
        let offset = baseOffset + Int64(position)
        let place = within.map { " of the \($0)" } ?? ""
        guard left >= lengthSize else {
            return NALUError(.truncated, field: "NAL unit length", byteOffset: offset,
                             detail: "\(left) of \(lengthSize) bytes before the end\(place)")
        }
        let length = length(in: bytes, at: position, lengthSize: lengthSize)
        return NALUError(.lengthPastEnd, field: "NAL unit length", byteOffset: offset,
                         detail: "length \(length), \(left - lengthSize) bytes left\(within.map { " in the \($0)" } ?? "")")
    }
}
