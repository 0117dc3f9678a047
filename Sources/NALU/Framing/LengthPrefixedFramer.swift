/// A push parser for length-prefixed streams ("AVCC"/"HVCC", ISO/IEC 14496-15 5.3.2 and
/// 8.3.2): append bytes as they arrive, in any chunking, and get every NAL unit whose bytes are
/// all there.
///
/// The results are those of ``LengthPrefixed/forEachNALUnit(in:lengthSize:_:)`` on the whole
/// stream, whatever the chunk edges. Zero-length NAL units are skipped and counted.
///
/// - Memory is bounded: a length field above ``maxNALUnitSize`` throws ``NALUError/Code/tooLarge``
///   at the length field's offset before anything is buffered for it, and an append that would
///   make the framer hold more than ``maxBufferedBytes`` throws the same. Either error leaves the
///   framer unchanged (a length-prefixed stream has no start codes to resynchronise on, so a bad
///   length ends the stream).
/// - ``finish()`` throws ``NALUError/Code/truncated`` or ``NALUError/Code/lengthPastEnd`` when the
///   stream ends inside a length field or a NAL unit.
public struct LengthPrefixedFramer: Sendable {
    /// Bytes in each length field: 1, 2 or 4.
    public let lengthSize: Int
    /// The largest NAL unit accepted.
    public let maxNALUnitSize: Int
    /// The most bytes held between appends plus one appended chunk.
    public let maxBufferedBytes: Int
    /// Zero-length NAL units skipped.
    public private(set) var zeroLengthNALUnits = 0

    private var buffer: [UInt8] = []
    /// Stream offset of the buffer's first byte.
    private var baseOffset: Int64 = 0

    /// - Parameters:
    ///   - lengthSize: 1, 2 or 4 (`lengthSizeMinusOne` + 1); 3 is reserved and rejected.
    ///   - maxNALUnitSize: the largest NAL unit accepted (default 64 MiB).
    ///   - maxBufferedBytes: the memory bound (default ``AnnexBFramer/defaultMaxBufferedBytes``,
    ///     at least `maxNALUnitSize` plus the length field).
    public init(lengthSize: Int, maxNALUnitSize: Int = 64 << 20,
                maxBufferedBytes: Int = AnnexBFramer.defaultMaxBufferedBytes) throws(NALUError) {
        try LengthPrefixed.validate(lengthSize: lengthSize)
        self.lengthSize = lengthSize
        self.maxNALUnitSize = max(1, maxNALUnitSize)
        self.maxBufferedBytes = max(self.maxNALUnitSize + lengthSize, maxBufferedBytes)
    }

    /// Bytes held: a partial length field or NAL unit.
    public var bufferedByteCount: Int { buffer.count }

    /// Appends `bytes` and returns copies of the NAL units they complete, in stream order.
    public mutating func append(_ bytes: [UInt8]) throws(NALUError) -> [[UInt8]] {
        try append(contentsOf: bytes)
    }

    /// Appends the bytes of any collection (`Data`, `ArraySlice`, …).
    public mutating func append(contentsOf bytes: some Collection<UInt8>) throws(NALUError) -> [[UInt8]] {
        try accept(bytes)
        var units: [[UInt8]] = []
        deliver { (unit: NALUnitView) in units.append(unit.array) }
        return units
    }

    /// Appends `bytes` and lends every NAL unit they complete to `body`, without copying it: the
    /// view is valid only during the call. A bad length throws before any NAL unit of this chunk
    /// is delivered.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (NALUnitView) throws -> Void) throws {
        try accept(bytes)
        try deliver(body)
    }

    /// Takes `bytes` into the buffer if they fit the bound and every length they complete is
    /// valid; otherwise throws and leaves the framer as it was.
    private mutating func accept(_ bytes: some Collection<UInt8>) throws(NALUError) {
        try admit(bytes.count)
        let before = buffer.count
        buffer.append(contentsOf: bytes)
        do throws(NALUError) {
            try validate()
        } catch {
            buffer.removeSubrange(before...)
            throw error
        }
    }

    /// Ends the stream. Returns nothing (a length-prefixed NAL unit is complete as soon as its
    /// bytes are in) but throws when the stream ended inside a length field or a NAL unit. The
    /// framer is then empty and can take a new stream.
    @discardableResult
    public mutating func finish() throws(NALUError) -> [[UInt8]] {
        defer {
            baseOffset += Int64(buffer.count)
            buffer.removeAll()
        }
        guard !buffer.isEmpty else { return [] }
        guard buffer.count >= lengthSize else {
            throw NALUError(.truncated, field: "NAL unit length", byteOffset: baseOffset,
                            detail: "\(buffer.count) of \(lengthSize) bytes before the end")
        }
        throw NALUError(.lengthPastEnd, field: "NAL unit length", byteOffset: baseOffset,
                        detail: "length \(length(at: 0)), \(buffer.count - lengthSize) bytes left")
    }

    // MARK: - Internals

    private func admit(_ count: Int) throws(NALUError) {
        guard count <= maxBufferedBytes - buffer.count else {
            throw NALUError(.tooLarge, field: "NAL unit", byteOffset: baseOffset,
                            detail: "\(buffer.count) bytes held plus \(count) appended exceed the framer's limit of \(maxBufferedBytes) bytes")
        }
    }

    private func length(at position: Int) -> Int {
        var length = 0
        for index in position..<(position + lengthSize) { length = length << 8 | Int(buffer[index]) }
        return length
    }

    /// Checks every complete length field in the buffer against the limit.
    private func validate() throws(NALUError) {
        var position = 0
        while buffer.count - position >= lengthSize {
            let length = length(at: position)
            guard length <= maxNALUnitSize else {
                throw NALUError(.tooLarge, field: "NAL unit length", byteOffset: baseOffset + Int64(position),
                                detail: "\(length) bytes, limit \(maxNALUnitSize)")
            }
            position += lengthSize + length
        }
    }

    private mutating func deliver<E: Error>(_ body: (NALUnitView) throws(E) -> Void) throws(E) {
        var position = 0
        var zero = 0
        var failure: E?
        let lengthSize = self.lengthSize
        let baseOffset = self.baseOffset
        buffer.withUnsafeBytes { bytes in
            do throws(E) {
                // validate() checked every complete length against the limit.
                try LengthPrefixed.forEachCompleteNALUnit(in: bytes, position: &position, lengthSize: lengthSize,
                                                          baseOffset: baseOffset, zeroLengthNALUnits: &zero, body)
            } catch {
                failure = error
            }
        }
        zeroLengthNALUnits += zero
        if position > 0 {
            buffer.removeSubrange(0..<position)
            self.baseOffset += Int64(position)
        }
        if let failure { throw failure }
    }
}
