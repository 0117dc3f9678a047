public import NALU

/// Reads from a ``NALU/ByteSource`` through a fixed read-ahead buffer: lines for Y4M headers,
/// exact byte counts for frames. Memory stays constant whatever the input size.
struct BufferedInput<Source: ByteSource> {
    private var source: Source
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// Bytes consumed so far (the offset of the next byte).
    private(set) var offset: Int64 = 0
    private let owner: BufferOwner

    final class BufferOwner {
        let buffer: UnsafeMutableRawBufferPointer
        init(size: Int) { buffer = .allocate(byteCount: size, alignment: 16) }
        deinit { buffer.deallocate() }
    }

    init(_ source: Source, bufferSize: Int = 64 * 1024) {
        self.source = source
        owner = BufferOwner(size: max(64, bufferSize))
        buffer = owner.buffer
    }

    private mutating func readSource(into destination: UnsafeMutableRawBufferPointer) throws(EncoderError) -> Int {
        do {
            return try source.read(into: destination)
        } catch {
            throw EncoderError(.io, field: "read", byteOffset: offset, detail: "\(error)")
        }
    }

    /// Refills the buffer; returns false at the end of the input.
    private mutating func refill() throws(EncoderError) -> Bool {
        if atEnd { return false }
        if start == end { start = 0; end = 0 }
        if start > 0 {
            // Move the unread bytes to the front.
            if let base = buffer.baseAddress { base.copyMemory(from: base + start, byteCount: end - start) }
            end -= start
            start = 0
        }
        guard end < buffer.count else { return true }
        let count = try readSource(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
        if count == 0 { atEnd = true; return false }
        end += count
        return true
    }

    /// The source's size in bytes (a seekable source: a regular file).
    func sourceSize() throws(EncoderError) -> Int64 where Source: SeekableByteSource {
        do {
            return try source.size
        } catch {
            throw EncoderError(.io, field: "size", detail: "\(error)")
        }
    }

    /// Moves the source to byte `position` and drops what was read ahead: the next byte read is
    /// the one at `position`.
    mutating func seek(to position: Int64) throws(EncoderError) where Source: SeekableByteSource {
        do {
            try source.seek(to: position)
        } catch {
            throw EncoderError(.io, field: "seek", byteOffset: position, detail: "\(error)")
        }
        start = 0
        end = 0
        atEnd = false
        offset = position
    }

    /// The line at byte `position` of a seekable source, without its `\n`, read straight from
    /// the source in 64-byte steps rather than through the read-ahead buffer (probing a line
    /// costs tens of bytes, not a buffer fill). `nil` when the input ends first or no `\n`
    /// comes within `maxLength` bytes. The input is left just after the line.
    mutating func probeLine(at position: Int64, maxLength: Int) throws(EncoderError) -> [UInt8]? where Source: SeekableByteSource {
        try seek(to: position)
        var line: [UInt8] = []
        var step = [UInt8](repeating: 0, count: 64)
        while line.count <= maxLength {
            let want = min(step.count, maxLength + 1 - line.count)
            let got: Int
            do {
                got = try step.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want])) }
            } catch {
                throw EncoderError(.io, field: "read", byteOffset: position, detail: "\(error)")
            }
            guard got > 0 else { return nil }
            if let newline = step[0..<got].firstIndex(of: 0x0A) {
                line += step[0..<newline]
                try seek(to: position + Int64(line.count) + 1)
                return line
            }
            line += step[0..<got]
        }
        return nil
    }

    /// Fills `buffer` with the next frame, allocating its memory as the bytes arrive when it has
    /// none yet (at most doubling what arrived, from 1 MiB), so a header or `--size` that claims
    /// a huge frame costs memory only for the data that is there. Returns false when the input
    /// was already at its end; throws ``EncoderError/Code/truncated`` when it ends part-way.
    mutating func readFrame(into buffer: FrameBuffer, field: String) throws(EncoderError) -> Bool {
        if buffer.isAllocated { return try readExactly(into: buffer.bytes, field: field) }
        let total = buffer.byteCount
        let startOffset = offset
        var filled = 0
        while filled < total {
            let target = min(total, max(filled * 2, 1 << 20))
            try buffer.grow(to: target)
            let complete: Bool
            do {
                complete = try readExactly(into: buffer.allocatedBytes(filled..<target), field: field)
            } catch where error.code == .truncated {
                throw EncoderError(.truncated, field: field, byteOffset: offset,
                                   detail: "needs \(total) bytes, input ended after \(offset - startOffset) (frame starts at byte \(startOffset))")
            }
            if !complete {
                if filled == 0 { return false }
                throw EncoderError(.truncated, field: field, byteOffset: offset,
                                   detail: "needs \(total) bytes, input ended after \(filled) (frame starts at byte \(startOffset))")
            }
            filled = target
        }
        return true
    }

    /// True when no byte is left.
    mutating func isAtEnd() throws(EncoderError) -> Bool {
        if start < end { return false }
        return try !refill()
    }

    /// Reads a line ending in `\n` (not returned), at most `maxLength` bytes. Returns `nil` at
    /// a clean end of input; throws when the input ends inside the line or the line is too long.
    mutating func readLine(maxLength: Int, field: String) throws(EncoderError) -> [UInt8]? {
        var line: [UInt8] = []
        let lineStart = offset
        while true {
            while start < end {
                let byte = buffer[start]
                start += 1
                offset += 1
                if byte == 0x0A { return line }
                guard line.count < maxLength else {
                    throw EncoderError(.invalidInput, field: field, byteOffset: lineStart, detail: "line longer than \(maxLength) bytes")
                }
                line.append(byte)
            }
            guard try refill() else {
                if line.isEmpty { return nil }
                throw EncoderError(.truncated, field: field, byteOffset: offset, detail: "input ended inside a header line")
            }
        }
    }

    /// Fills `destination` completely. Returns false when the input was already at its end;
    /// throws ``EncoderError/Code/truncated`` when it ends part-way.
    mutating func readExactly(into destination: UnsafeMutableRawBufferPointer, field: String) throws(EncoderError) -> Bool {
        var filled = 0
        let total = destination.count
        let startOffset = offset
        while filled < total {
            if start < end {
                let count = min(end - start, total - filled)
                if let to = destination.baseAddress, let from = buffer.baseAddress {
                    (to + filled).copyMemory(from: from + start, byteCount: count)
                }
                start += count
                filled += count
                offset += Int64(count)
                continue
            }
            // Large remainders go straight into the destination, skipping the buffer.
            if total - filled >= buffer.count, !atEnd {
                let count = try readSource(into: UnsafeMutableRawBufferPointer(rebasing: destination[filled...]))
                if count == 0 {
                    atEnd = true
                } else {
                    filled += count
                    offset += Int64(count)
                    continue
                }
            }
            guard try refill() else {
                if filled == 0 { return false }
                throw EncoderError(.truncated, field: field, byteOffset: offset, detail: "needs \(total) bytes, input ended after \(filled) (frame starts at byte \(startOffset))")
            }
        }
        return true
    }
}

/// Reads headerless frames in any ``PixelFormat`` (`i420`, `nv12`, `yuv422p`, `yuv444p10le`, …) of a known size from a
/// ``NALU/ByteSource`` such as a file or standard input, one frame at a time into one reused
/// buffer. A partial frame at the end is a ``EncoderError/Code/truncated`` error with the
/// byte offset where the input ended.
public struct RawVideoReader<Source: ByteSource> {
    var input: BufferedInput<Source>
    public let buffer: FrameBuffer
    /// The index of the next frame (the frames read so far, plus the first one after a
    /// ``seek(toFrame:)``).
    public internal(set) var framesRead: Int64 = 0
    /// Bytes in one frame.
    public var frameSize: Int { buffer.byteCount }

    /// Memory for the frame is allocated as its bytes arrive, not here.
    public init(_ source: Source, pixelFormat: PixelFormat, width: Int, height: Int) throws(EncoderError) {
        buffer = try FrameBuffer(pixelFormat: pixelFormat, width: width, height: height, allocate: false)
        input = BufferedInput(source)
    }

    /// The next frame (pts = frame index), borrowing ``buffer`` until the next call, or `nil` at
    /// the end of the input.
    public mutating func nextFrame() throws(EncoderError) -> Frame? {
        guard try input.readFrame(into: buffer, field: "frame \(framesRead)") else { return nil }
        defer { framesRead += 1 }
        return buffer.frame(pts: framesRead)
    }
}

/// A YUV4MPEG2 stream header (`YUV4MPEG2 W… H… F…:… [I…] [A…:…] [C…] [X…]`).
public struct Y4MHeader: Sendable, Hashable {
    /// `text` as it may be quoted in a message: control characters (ESC, CR, NUL, …), `\` and
    /// `"` escaped, so header bytes cannot drive the terminal the message is printed on.
    static func escaped(_ text: some StringProtocol) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    public var width: Int
    public var height: Int
    public var frameRate: Rational
    public var pixelAspectRatio: Rational?
    /// The `C` tag as written (`"420jpeg"` when absent, the format's default).
    public var colourSpace: String
    /// The `I` tag (`p`, `t`, `b`, `m`; `?` when absent).
    public var interlacing: Character
    public var pixelFormat: PixelFormat

    /// The frame rates a header may state: what ``EncoderConfiguration/validate()`` accepts.
    static let frameRates = 0.01...1000.0

    /// Parses a header line (without its `\n`).
    ///
    /// Every fault is ``EncoderError/Code/invalidInput`` (the input is at fault, not a setting)
    /// whose field names the header field: `Y4M header W`, `… H`, `… F`, `… A`, `… C`, `… I`, or
    /// `Y4M header` for the line as a whole (a signature, CR LF line ends).
    public init(line: [UInt8]) throws(EncoderError) {
        if line.last == 0x0D {
            throw EncoderError(.invalidInput, field: "Y4M header", byteOffset: 0,
                               detail: "the line ends in CR LF; YUV4MPEG2 lines end in LF alone")
        }
        guard line.starts(with: Array("YUV4MPEG2".utf8)), let text = String(validating: line, as: UTF8.self) else {
            throw EncoderError(.invalidInput, field: "Y4M header", byteOffset: 0, detail: "does not start with YUV4MPEG2")
        }
        var tokens = text.split(separator: " ", omittingEmptySubsequences: true)
        guard tokens.first == "YUV4MPEG2" else {
            throw EncoderError(.invalidInput, field: "Y4M header", byteOffset: 0, detail: "does not start with YUV4MPEG2")
        }
        tokens.removeFirst()
        var width: Int?
        var height: Int?
        var rate: Rational?
        var aspect: Rational?
        var colour = "420jpeg"
        var interlacing: Character = "?"
        func ratio(_ value: Substring, _ tag: String) throws(EncoderError) -> Rational {
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1]), n >= 0, d >= 0 else {
                throw EncoderError(.invalidInput, field: "Y4M header \(tag)", detail: "bad value \"\(Self.escaped(value))\"; expected N:D")
            }
            return Rational(n, d)
        }
        for token in tokens {
            guard let tag = token.first else { continue }
            let value = token.dropFirst()
            switch tag {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "F": rate = try ratio(value, "F")
            case "A": aspect = try ratio(value, "A")
            case "C": colour = String(value)
            case "I": interlacing = value.first ?? "?"
            default: break // X (comments) and unknown tags are ignored, as the format allows.
            }
        }
        guard let width, width > 0, width <= 16384 else {
            throw EncoderError(.invalidInput, field: "Y4M header W", detail: "missing or not 1...16384 in \"\(Self.escaped(text))\"")
        }
        guard let height, height > 0, height <= 16384 else {
            throw EncoderError(.invalidInput, field: "Y4M header H", detail: "missing or not 1...16384 in \"\(Self.escaped(text))\"")
        }
        guard let rate, rate.numerator > 0, rate.denominator > 0, rate.numerator <= Int64(UInt32.max),
              rate.denominator <= Int64(UInt32.max), Self.frameRates.contains(rate.doubleValue) else {
            throw EncoderError(.invalidInput, field: "Y4M header F", detail: "missing, or not a frame rate of 0.01 to 1000 fps (N:D, 32-bit each), in \"\(Self.escaped(text))\"")
        }
        guard let format = PixelFormat(y4mColourSpace: colour) else {
            throw EncoderError(.invalidInput, field: "Y4M header C", detail: "unknown colour space \"\(Self.escaped(colour))\"; nalu reads \(PixelFormat.y4mColourSpaces.joined(separator: ", "))")
        }
        pixelFormat = format
        guard format.allowsSize(width: width, height: height) else {
            throw EncoderError(.invalidInput, field: "Y4M header W", detail: "\(width)x\(height) is odd; \(format.chromaSubsampling) needs \(format.chromaSubsampling == .yuv420 ? "even sizes" : "an even width")")
        }
        // Fields would be coded as progressive frames (combing, wrong field order): refused.
        guard interlacing == "p" || interlacing == "?" else {
            throw EncoderError(.invalidInput, field: "Y4M header I", detail: "interlaced input (I\(Self.escaped(String(interlacing)))); only progressive (Ip) Y4M is encoded: deinterlace first, e.g. ffmpeg -vf yadif")
        }
        self.width = width
        self.height = height
        self.frameRate = rate.reduced
        self.pixelAspectRatio = aspect
        self.colourSpace = colour
        self.interlacing = interlacing
    }
}

/// Reads a YUV4MPEG2 stream from a ``NALU/ByteSource``: the header gives size, frame rate and
/// colour space; frames are read one at a time into one reused buffer.
public struct Y4MReader<Source: ByteSource> {
    var input: BufferedInput<Source>
    public let header: Y4MHeader
    public let buffer: FrameBuffer
    /// The index of the next frame (the frames read so far, plus the first one after a
    /// ``seek(toFrame:)``).
    public internal(set) var framesRead: Int64 = 0
    /// The offset of the first `FRAME` line: the header's length.
    public let firstFrameOffset: Int64

    /// Reads and parses the stream header.
    public init(_ source: Source) throws(EncoderError) {
        input = BufferedInput(source)
        guard let line = try input.readLine(maxLength: 4096, field: "Y4M header") else {
            throw EncoderError(.truncated, field: "Y4M header", byteOffset: 0, detail: "empty input")
        }
        header = try Y4MHeader(line: line)
        firstFrameOffset = input.offset
        // Allocated as the first frame's bytes arrive (issue 32 item 8).
        buffer = try FrameBuffer(pixelFormat: header.pixelFormat, width: header.width, height: header.height, allocate: false)
    }

    /// The next frame (pts = frame index), borrowing ``buffer`` until the next call, or `nil` at
    /// the end of the stream.
    public mutating func nextFrame() throws(EncoderError) -> Frame? {
        let lineOffset = input.offset
        guard let line = try input.readLine(maxLength: 4096, field: "Y4M frame \(framesRead) header") else { return nil }
        guard line.count >= 5, line[0] == 0x46, line[1] == 0x52, line[2] == 0x41, line[3] == 0x4D, line[4] == 0x45,
              line.count == 5 || line[5] == 0x20 else {
            throw EncoderError(.invalidInput, field: "Y4M frame \(framesRead)", byteOffset: lineOffset, detail: "expected a FRAME line")
        }
        guard try input.readFrame(into: buffer, field: "Y4M frame \(framesRead)") else {
            throw EncoderError(.truncated, field: "Y4M frame \(framesRead)", byteOffset: input.offset, detail: "input ended after the FRAME line")
        }
        defer { framesRead += 1 }
        return buffer.frame(pts: framesRead)
    }
}
