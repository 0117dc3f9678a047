extension Frame {
    /// An 8-bit planar 4:2:0 frame from three tightly packed planes (`[UInt8]`, `ArraySlice`,
    /// `Data`, any collection of bytes): Y `width × height`, U and V `width/2 × height/2`.
    ///
    /// The samples are copied into memory the frame owns, so the frame stays valid however long
    /// it is kept. Throws ``EncoderError/Code/frameMismatch`` naming the plane whose size is wrong,
    /// or ``EncoderError/Code/invalidConfiguration`` for a size that is odd, not positive or
    /// above 16384.
    public init(i420 y: some Collection<UInt8>, _ u: some Collection<UInt8>, _ v: some Collection<UInt8>,
                width: Int, height: Int, pts: Int64) throws(EncoderError) {
        let buffer = try FrameBuffer(pixelFormat: .i420, width: width, height: height)
        try Self.copy(y, into: buffer, plane: 0, name: "y")
        try Self.copy(u, into: buffer, plane: 1, name: "u")
        try Self.copy(v, into: buffer, plane: 2, name: "v")
        self = buffer.frame(pts: pts)
        owner = buffer
    }

    /// An 8-bit semi-planar 4:2:0 frame: Y `width × height`, interleaved UV `width × height/2`
    /// bytes (U first). Copied like ``init(i420:_:_:width:height:pts:)``.
    public init(nv12 y: some Collection<UInt8>, _ uv: some Collection<UInt8>, width: Int, height: Int, pts: Int64) throws(EncoderError) {
        let buffer = try FrameBuffer(pixelFormat: .nv12, width: width, height: height)
        try Self.copy(y, into: buffer, plane: 0, name: "y")
        try Self.copy(uv, into: buffer, plane: 1, name: "uv")
        self = buffer.frame(pts: pts)
        owner = buffer
    }

    /// A 10-bit semi-planar 4:2:0 frame (``PixelFormat/p010le``) from its 16-bit words as stored:
    /// Y `width × height`, interleaved UV `width × height/2` words (U first), each sample in the
    /// high 10 bits (value << 6; the low 6 bits are ignored). Copied like
    /// ``init(i420:_:_:width:height:pts:)``.
    public init(p010 y: some Collection<UInt16>, _ uv: some Collection<UInt16>, width: Int, height: Int, pts: Int64) throws(EncoderError) {
        let buffer = try FrameBuffer(pixelFormat: .p010le, width: width, height: height)
        for (index, (plane, name)) in [(AnyCollection(y), "y"), (AnyCollection(uv), "uv")].enumerated() {
            let bytes = buffer.planeBytes(index)
            guard plane.count * 2 == bytes.count else {
                throw EncoderError(.frameMismatch, field: name, detail: "\(plane.count) samples; a \(width)x\(height) p010le frame needs \(bytes.count / 2)")
            }
            var offset = 0
            for word in plane {
                bytes.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt16.self)
                offset += 2
            }
        }
        self = buffer.frame(pts: pts)
        owner = buffer
    }

    /// A 10-bit planar 4:2:0 frame from samples 0…1023 (`[UInt16]` or any collection of
    /// `UInt16`), stored little-endian as ``PixelFormat/yuv420p10le`` says. A sample above 1023
    /// throws ``EncoderError/Code/frameMismatch`` naming the plane and sample.
    public init(yuv420p10 y: some Collection<UInt16>, _ u: some Collection<UInt16>, _ v: some Collection<UInt16>,
                width: Int, height: Int, pts: Int64) throws(EncoderError) {
        try self.init(planar: .yuv420p10le, y, u, v, width: width, height: height, pts: pts)
    }

    /// An 8-bit planar frame in `format` (``PixelFormat/i420``, ``PixelFormat/yuv422p`` or
    /// ``PixelFormat/yuv444p``) from three tightly packed planes, chroma sized as the format's
    /// subsampling says (4:2:2: `width/2 × height`; 4:4:4: `width × height`). Copied like
    /// ``init(i420:_:_:width:height:pts:)``; a 10-bit or semi-planar `format` throws
    /// ``EncoderError/Code/frameMismatch``.
    public init(planar format: PixelFormat, _ y: some Collection<UInt8>, _ u: some Collection<UInt8>, _ v: some Collection<UInt8>,
                width: Int, height: Int, pts: Int64) throws(EncoderError) {
        guard format.planeCount == 3, format.bytesPerSample == 1 else {
            throw EncoderError(.frameMismatch, field: "pixelFormat", detail: "\(format) is not an 8-bit planar format; its samples are not bytes in three planes")
        }
        let buffer = try FrameBuffer(pixelFormat: format, width: width, height: height)
        try Self.copy(y, into: buffer, plane: 0, name: "y")
        try Self.copy(u, into: buffer, plane: 1, name: "u")
        try Self.copy(v, into: buffer, plane: 2, name: "v")
        self = buffer.frame(pts: pts)
        owner = buffer
    }

    /// A 10-bit planar frame in `format` (``PixelFormat/yuv420p10le``,
    /// ``PixelFormat/yuv422p10le`` or ``PixelFormat/yuv444p10le``) from samples 0…1023, stored
    /// little-endian; chroma sized as the format's subsampling says. A sample above 1023 throws
    /// ``EncoderError/Code/frameMismatch`` naming the plane and sample.
    public init(planar format: PixelFormat, _ y: some Collection<UInt16>, _ u: some Collection<UInt16>, _ v: some Collection<UInt16>,
                width: Int, height: Int, pts: Int64) throws(EncoderError) {
        guard format.planeCount == 3, format.bitDepth == 10 else {
            throw EncoderError(.frameMismatch, field: "pixelFormat", detail: "\(format) is not a 10-bit planar format")
        }
        let buffer = try FrameBuffer(pixelFormat: format, width: width, height: height)
        for (index, (plane, name)) in [(AnyCollection(y), "y"), (AnyCollection(u), "u"), (AnyCollection(v), "v")].enumerated() {
            let bytes = buffer.planeBytes(index)
            guard plane.count * 2 == bytes.count else {
                throw EncoderError(.frameMismatch, field: name, detail: "\(plane.count) samples; a \(width)x\(height) \(format) frame needs \(bytes.count / 2)")
            }
            var offset = 0
            for sample in plane {
                guard sample <= 1023 else {
                    throw EncoderError(.frameMismatch, field: name, detail: "sample \(offset / 2) is \(sample); 10-bit samples are 0…1023")
                }
                bytes.storeBytes(of: sample.littleEndian, toByteOffset: offset, as: UInt16.self)
                offset += 2
            }
        }
        self = buffer.frame(pts: pts)
        owner = buffer
    }

    /// A copy of this frame (whatever memory it borrows) that owns its samples, for example to
    /// keep it past the call it was handed to, or to send it to another task: returned as a
    /// `sending` value, in a region of its own.
    public func copy() throws(EncoderError) -> sending Frame {
        let buffer = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height)
        for index in 0..<pixelFormat.planeCount {
            guard let source = plane(index) else { continue }
            let destination = buffer.planeBytes(index)
            let rowBytes = pixelFormat.rowBytes(plane: index, width: width)
            for row in 0..<pixelFormat.rows(plane: index, height: height) {
                guard let to = destination.baseAddress else { break }
                (to + row * rowBytes).copyMemory(from: source.baseAddress + row * source.bytesPerRow, byteCount: rowBytes)
            }
        }
        var frame = buffer.frame(pts: pts)
        frame.owner = buffer
        return frame
    }

    private static func copy(_ plane: some Collection<UInt8>, into buffer: FrameBuffer, plane index: Int, name: String) throws(EncoderError) {
        let bytes = buffer.planeBytes(index)
        guard plane.count == bytes.count else {
            throw EncoderError(.frameMismatch, field: name,
                               detail: "\(plane.count) bytes; a \(buffer.width)x\(buffer.height) \(buffer.pixelFormat) frame needs \(bytes.count)")
        }
        let copied: Bool? = plane.withContiguousStorageIfAvailable { source in
            bytes.copyMemory(from: UnsafeRawBufferPointer(source))
            return true
        }
        if copied == nil {
            _ = bytes.initializeMemory(as: UInt8.self, from: plane)
        }
    }
}
