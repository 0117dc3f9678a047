/// A NAL unit lent to a callback: its bytes (escaped, header included, no start code or length
/// prefix) and where it sits in the stream.
///
/// Views are only ever lent, like the buffer swift-nio's `withUnsafeReadableBytes` passes: the
/// readers, framers and ``LengthPrefixed`` walkers hand one to their callback, and code with its
/// own bytes gets one from `NALUnitView.withNALUnit(_:offset:prefixLength:_:)`.
/// ``bytes`` points into the lender's buffer and is valid only during the callback: do not store
/// the view or its pointer; copy the bytes (``array``) to keep them. There is no public
/// initialiser, so a view cannot be made from a pointer that outlives its buffer.
public struct NALUnitView {
    /// Offset in the stream of the NAL unit's first header byte.
    public let offset: Int64
    /// The NAL unit, escaped as in the stream.
    public let bytes: UnsafeRawBufferPointer
    /// Length of the start code (3 or 4) or of the length prefix (1, 2 or 4) before it.
    public let prefixLength: Int
    /// Whether the view may outlive its callback, until the reader's `beforeReuse` hook runs:
    /// the bytes (and the ``prefixLength`` bytes before them, which hold this NAL unit's start
    /// code or length) sit in the reader's own buffer, the reader reads neither again, and it
    /// calls the hook before it moves, overwrites or frees them. A consumer may then overwrite
    /// the prefix bytes (a start code becoming a length or the reverse) and hand the whole
    /// run to a sink with ``ByteSink/write(lent:)``. Only readers given a hook make such views.
    package let isLendable: Bool

    /// Internal: views are made by the lenders in this module (see the type's documentation).
    init(offset: Int64, bytes: UnsafeRawBufferPointer, prefixLength: Int, isLendable: Bool = false) {
        self.offset = offset
        self.bytes = bytes
        self.prefixLength = prefixLength
        self.isLendable = isLendable
    }

    /// The prefix bytes and the NAL unit together, writable, when the view ``isLendable`` and
    /// its prefix is `length` bytes long; else `nil`.
    private func lendablePrefixAndBytes(prefixLength length: Int) -> UnsafeMutableRawBufferPointer? {
        guard isLendable, prefixLength == length, let base = bytes.baseAddress else { return nil }
        return UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: base - length), count: length + bytes.count)
    }

    /// The NAL unit and the 4 bytes before it, with `prefix` written over them big-endian
    /// (`0x00000001`, a start code; or the NAL unit's length), when the view ``isLendable`` with
    /// a 4-byte prefix; else `nil`. The converters and the MP4 writer hand the run to
    /// ``ByteSink/write(lent:)``: consecutive units are adjacent in the reader's buffer, so the
    /// sink writes them without a copy.
    package func lentRun(overwritingPrefixWith prefix: UInt32) -> UnsafeRawBufferPointer? {
        guard let run = lendablePrefixAndBytes(prefixLength: 4), let base = run.baseAddress else { return nil }
        base.storeBytes(of: UInt8(truncatingIfNeeded: prefix >> 24), toByteOffset: 0, as: UInt8.self)
        base.storeBytes(of: UInt8(truncatingIfNeeded: prefix >> 16), toByteOffset: 1, as: UInt8.self)
        base.storeBytes(of: UInt8(truncatingIfNeeded: prefix >> 8), toByteOffset: 2, as: UInt8.self)
        base.storeBytes(of: UInt8(truncatingIfNeeded: prefix), toByteOffset: 3, as: UInt8.self)
        return UnsafeRawBufferPointer(run)
    }

    /// Number of bytes in the NAL unit.
    public var count: Int { bytes.count }

    /// A copy of the bytes.
    public var array: [UInt8] { Array(bytes) }

    /// The first header byte (0 when empty).
    public var firstByte: UInt8 { bytes.first ?? 0 }

    /// The second header byte (0 when shorter).
    public var secondByte: UInt8 { bytes.count > 1 ? bytes[1] : 0 }
}

extension NALUnitView {
    /// Lends `body` a view of the NAL unit in `bytes` (no start code or length prefix), at stream
    /// offset `offset`, preceded in its stream by a `prefixLength`-byte start code or length.
    /// The view is valid only during the call (as `bytes` is); no copy is made.
    public static func withNALUnit<R, E: Error>(_ bytes: UnsafeRawBufferPointer, offset: Int64 = 0, prefixLength: Int = 0,
                                                _ body: (NALUnitView) throws(E) -> R) throws(E) -> R {
        try body(NALUnitView(offset: offset, bytes: bytes, prefixLength: prefixLength))
    }

    /// Lends `body` a view of the NAL unit `bytes` (no start code or length prefix), for example a
    /// parameter set from a record; valid only during the call, no copy is made.
    public static func withNALUnit<R, E: Error>(_ bytes: [UInt8], offset: Int64 = 0, prefixLength: Int = 0,
                                                _ body: (NALUnitView) throws(E) -> R) throws(E) -> R {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(E) -> R in try body(NALUnitView(offset: offset, bytes: raw, prefixLength: prefixLength)) }
        }
        return try result.get()
    }
}
