/// Where a reader's buffers go once NAL units were delivered from them, instead of being moved
/// into, refilled or freed: for a consumer on another thread that still reads (or writes out)
/// those NAL units after the reader has moved on.
///
/// A reader given one (``AnnexBReader/init(_:chunkSize:maxNALUnitSize:retirement:)``) never
/// writes to memory that held a delivered NAL unit: when its buffer runs short, it copies the
/// unfinished NAL unit into a buffer from ``reusableBuffer(byteCount:)`` (or a new one) and hands
/// the old one to ``retire(_:)``, and it retires its last buffer when it is released. The
/// retirement owns a retired buffer from then on: it frees it, or hands it out again from
/// ``reusableBuffer(byteCount:)`` once the consumer is done with it.
package protocol BufferRetirement: AnyObject {
    /// Takes a buffer (from `UnsafeMutableRawBufferPointer.allocate(byteCount:alignment: 16)`)
    /// the reader no longer uses.
    func retire(_ buffer: UnsafeMutableRawBufferPointer)
    /// A buffer of exactly `byteCount` bytes the consumer is done with, if there is one.
    func reusableBuffer(byteCount: Int) -> UnsafeMutableRawBufferPointer?
}
