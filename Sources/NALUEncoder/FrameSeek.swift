public import NALU

/// A ``NALU/ByteSource`` whose read position can be moved, such as a regular file: what
/// ``RawVideoReader/seek(toFrame:)`` and ``Y4MReader/seek(toFrame:)`` need to start at a frame
/// without reading the frames before it.
public protocol SeekableByteSource: ByteSource {
    /// The total number of bytes.
    var size: Int64 { get throws }
    /// Moves the read position to `offset` bytes from the start (`0 ... size`).
    mutating func seek(to offset: Int64) throws
}

extension RawVideoReader where Source: SeekableByteSource {
    /// The whole frames in the source: its size divided by the frame size (a partial last frame
    /// is not counted).
    public func frameCount() throws(EncoderError) -> Int64 {
        try input.sourceSize() / Int64(frameSize)
    }

    /// Moves to frame `index`: one seek to `index × frameSize`, checked against the source's
    /// size, so the next ``nextFrame()`` returns that frame (with pts `index`).
    ///
    /// Throws ``EncoderError/Code/invalidConfiguration`` (field `seek`) when the source holds no
    /// whole frame `index`.
    public mutating func seek(toFrame index: Int64) throws(EncoderError) {
        let count = try frameCount()
        guard index >= 0, index < count else {
            throw EncoderError(.invalidConfiguration, field: "seek", detail: "frame \(index) is not in the input, which holds \(count) whole frames")
        }
        try input.seek(to: index * Int64(frameSize))
        framesRead = index
    }
}

extension Y4MReader where Source: SeekableByteSource {
    /// Bytes of one frame behind a bare `FRAME\n` line.
    private var plainRecordSize: Int64 { 6 + Int64(buffer.byteCount) }

    /// The frame count when every frame is a bare `FRAME\n` line and its pixels (the common
    /// case, ffmpeg's and x264's output): the data after the header is a whole number of such
    /// records and the first and last records start with a bare `FRAME` line. `nil` when not.
    private mutating func uniformFrameCount(size: Int64) throws(EncoderError) -> Int64? {
        let data = size - firstFrameOffset
        let record = plainRecordSize
        guard data >= 0, data % record == 0 else { return nil }
        let count = data / record
        guard count > 0 else { return 0 }
        for index in [0, count - 1] {
            guard try input.probeLine(at: firstFrameOffset + index * record, maxLength: 5) == Array("FRAME".utf8) else { return nil }
        }
        return count
    }

    /// Walks the `FRAME` lines from the first, seeking over each frame's pixels (one short read
    /// per frame, never the pixels): the number of whole frames, and the offset of frame
    /// `target`'s line when the input holds it. For inputs whose `FRAME` lines carry parameters.
    /// Bytes after the last whole frame are not counted, as a partial frame of raw input.
    private mutating func scanFrames(until target: Int64?, size: Int64) throws(EncoderError) -> (count: Int64, offset: Int64?) {
        var offset = firstFrameOffset
        var index: Int64 = 0
        let frameBytes = Int64(buffer.byteCount)
        // Every step moves at least one frame forward: at most size / frameBytes steps.
        while offset < size {
            let line = try input.probeLine(at: offset, maxLength: 4096)
            guard let line, line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == 0x20 else {
                // A fragment shorter than a frame at the end is a partial frame.
                if line == nil, size - offset < 6 + frameBytes { break }
                throw EncoderError(.invalidInput, field: "Y4M frame \(index)", byteOffset: offset, detail: "expected a FRAME line")
            }
            let next = offset + Int64(line.count) + 1 + frameBytes
            if next > size { break }
            if index == target { return (index, offset) }
            index += 1
            offset = next
        }
        return (index, nil)
    }

    /// The whole frames in the source. From the size alone when every frame has a bare `FRAME`
    /// line (checked at the first and last frame); otherwise by an index scan that reads only the
    /// `FRAME` lines. Leaves the read position where it was.
    public mutating func frameCount() throws(EncoderError) -> Int64 {
        let position = input.offset
        defer { try? input.seek(to: position) }
        let size = try input.sourceSize()
        if let count = try uniformFrameCount(size: size) { return count }
        return try scanFrames(until: nil, size: size).count
    }

    /// Moves to frame `index`, so the next ``nextFrame()`` returns it (with pts `index`): one
    /// seek to the computed offset when every frame has a bare `FRAME` line, else a scan of the
    /// `FRAME` lines before it (see ``frameCount()``). Checked against the source's size.
    ///
    /// Throws ``EncoderError/Code/invalidConfiguration`` (field `seek`) when the source holds no
    /// whole frame `index`.
    public mutating func seek(toFrame index: Int64) throws(EncoderError) {
        let size = try input.sourceSize()
        let offset: Int64?
        let count: Int64
        if let uniform = try uniformFrameCount(size: size) {
            count = uniform
            offset = index >= 0 && index < uniform ? firstFrameOffset + index * plainRecordSize : nil
        } else if index >= 0 {
            (count, offset) = try scanFrames(until: index, size: size)
        } else {
            (count, offset) = (try scanFrames(until: nil, size: size).count, nil)
        }
        guard let offset else {
            throw EncoderError(.invalidConfiguration, field: "seek", detail: "frame \(index) is not in the input, which holds \(count) whole frames")
        }
        try input.seek(to: offset)
        framesRead = index
    }
}
