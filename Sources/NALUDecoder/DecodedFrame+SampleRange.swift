import NALUEncoder

extension DecodedFrame {
    /// The largest sample value of the frame's bit depth (1023 for 10 bits).
    public var maximumSample: Int { (1 << pixelFormat.bitDepth) - 1 }

    /// How many samples lie above ``maximumSample``.
    ///
    /// A 10-bit picture's samples are 16-bit words, so a decoder can hand out values up to
    /// 65535: libavcodec does when it conceals damage in a High 10 stream (values up to 65528
    /// were seen). Encoders take them unchecked: libx264 aborts the process on such input
    /// (`cost >= 0` assertion, SIGABRT). 8-bit pictures cannot exceed their range: 0.
    public var samplesAboveBitDepth: Int {
        guard pixelFormat.bytesPerSample == 2 else { return 0 }
        let limit = UInt16(maximumSample)
        var count = 0
        withBytes { bytes in
            // 16-bit little-endian words; the planes start 64-byte aligned (``FrameBuffer``).
            let words = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt16.self), count: bytes.count / 2)
            for word in words where UInt16(littleEndian: word) > limit { count += 1 }
        }
        return count
    }

    /// The frame with every sample above ``maximumSample`` set to it, and how many were; the
    /// frame itself (no copy) when none is. The pixels are shared and never changed, so the
    /// clamped frame has pixels of its own. Issue 40 item 2: what an encoder can take, where
    /// ffmpeg passes the samples on and libx264 aborts.
    public func clampingToBitDepth() -> (frame: DecodedFrame, clamped: Int) {
        let clamped = samplesAboveBitDepth
        guard clamped > 0 else { return (self, 0) }
        let source = pixels.buffer
        // The same format and size as a buffer that exists: cannot fail.
        guard let copy = try? FrameBuffer(pixelFormat: source.pixelFormat, width: source.width, height: source.height) else { return (self, 0) }
        let limit = UInt16(maximumSample)
        let target = copy.bytes
        withBytes { bytes in
            let words = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt16.self), count: min(bytes.count, target.count) / 2)
            let out = UnsafeMutableBufferPointer(start: target.baseAddress?.assumingMemoryBound(to: UInt16.self), count: words.count)
            for index in words.indices {
                out[index] = min(UInt16(littleEndian: words[index]), limit).littleEndian
            }
        }
        var frame = self
        frame.pixels = DecodedPixels(copy)
        return (frame, clamped)
    }
}
