/// A NAL unit handed to a reader's callback: its bytes (escaped, header included, no start code
/// or length prefix) and where it sits in the stream.
///
/// ``bytes`` points into the reader's buffer and is valid only during the callback; copy it
/// (``array``) to keep it.
public struct NALUnitView {
    /// Offset in the stream of the NAL unit's first header byte.
    public let offset: Int64
    /// The NAL unit, escaped as in the stream.
    public let bytes: UnsafeRawBufferPointer
    /// Length of the start code (3 or 4) or of the length prefix (1, 2 or 4) before it.
    public let prefixLength: Int

    public init(offset: Int64, bytes: UnsafeRawBufferPointer, prefixLength: Int) {
        self.offset = offset
        self.bytes = bytes
        self.prefixLength = prefixLength
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
