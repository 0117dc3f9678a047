public import NALU

/// One packet of an rtpdump file (rtptools' `RD_packet_t`).
public struct RTPDumpRecord: Sendable, Hashable {
    /// Milliseconds since the start of the recording.
    public var offsetMilliseconds: UInt32
    /// The packet's bytes (an RTP packet; RTCP records are skipped by the reader).
    public var bytes: [UInt8]

    public init(offsetMilliseconds: UInt32, bytes: [UInt8]) {
        self.offsetMilliseconds = offsetMilliseconds
        self.bytes = bytes
    }
}

/// The rtpdump file format of rtptools (`rtpdump -F dump`, read by `rtpplay`, Wireshark and
/// GStreamer tests): a text line `#!rtpplay1.0 ADDRESS/PORT\n`, a 16-byte `RD_hdr_t` (start time
/// seconds and microseconds, source address, port, padding), then per packet an 8-byte
/// `RD_packet_t` (record length including itself, packet length — 0 for RTCP — and milliseconds
/// since the start) and the packet. All numbers big-endian.
public enum RTPDump {
    /// The first line's start.
    public static let magic = Array("#!rtpplay1.0 ".utf8)
    /// The longest first line read.
    public static let maxFirstLine = 256
    static let fileHeaderSize = 16
    static let recordHeaderSize = 8
}

/// Writes an rtpdump file (``RTPDump``) to a sink: a file through NALUIO's `FileSink` (written
/// under a temporary name and committed by the caller, as every output is).
public struct RTPDumpWriter<Sink: ByteSink> {
    public private(set) var sink: Sink
    /// Records written.
    public private(set) var count = 0

    /// Writes the file header: the address and port the packets were sent to, the start time.
    /// - Throws: ``NALU/NALUError`` (typed): the sink's error.
    public init(sink: Sink, address: String, port: UInt16, startSeconds: UInt32 = 0, startMicroseconds: UInt32 = 0) throws(NALUError) {
        self.sink = sink
        var header = RTPDump.magic + Array("\(address)/\(port)\n".utf8)
        header += Self.bigEndian(startSeconds) + Self.bigEndian(startMicroseconds)
        header += Self.bigEndian(RTPDumpWriter.ipv4(address)) + [UInt8(port >> 8), UInt8(port & 0xFF), 0, 0]
        try self.sink.write(header)
    }

    /// Appends one packet sent or received `offsetMilliseconds` after the start.
    /// - Throws: ``NALU/NALUError`` `.tooLarge` for a packet above 65 527 bytes (the record's
    ///   16-bit length); the sink's errors.
    public mutating func append(_ packet: [UInt8], offsetMilliseconds: UInt32) throws(NALUError) {
        guard packet.count <= Int(UInt16.max) - RTPDump.recordHeaderSize else {
            throw NALUError(.tooLarge, field: "RD_packet_t length", detail: "\(packet.count) bytes")
        }
        let length = UInt16(packet.count + RTPDump.recordHeaderSize)
        let packetLength = UInt16(packet.count)
        // The record header, then the packet as it is (no copy into one record: the sink buffers).
        try sink.write([UInt8(length >> 8), UInt8(length & 0xFF), UInt8(packetLength >> 8), UInt8(packetLength & 0xFF),
                        UInt8(truncatingIfNeeded: offsetMilliseconds >> 24), UInt8(truncatingIfNeeded: offsetMilliseconds >> 16),
                        UInt8(truncatingIfNeeded: offsetMilliseconds >> 8), UInt8(truncatingIfNeeded: offsetMilliseconds)])
        try sink.write(packet)
        count += 1
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value)]
    }

    /// A dotted IPv4 address as a number (0 for anything else).
    static func ipv4(_ address: String) -> UInt32 {
        let parts = address.split(separator: ".")
        guard parts.count == 4 else { return 0 }
        var value: UInt32 = 0
        for part in parts {
            guard let byte = UInt8(part) else { return 0 }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}

/// Reads an rtpdump file (``RTPDump``) record by record, in constant memory.
public struct RTPDumpReader<Source: ByteSource> {
    private var source: Source
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    /// Bytes consumed so far (the offset of errors).
    public private(set) var offset: Int64 = 0
    /// The first line's `ADDRESS/PORT`.
    public private(set) var destination = ""
    /// RTCP records (packet length 0) skipped.
    public private(set) var skippedRTCP = 0
    /// Records holding less than their packet (recorded cut short) skipped.
    public private(set) var skippedPartial = 0

    /// Reads the first line and the file header.
    /// - Throws: ``NALU/NALUError`` `.unrecognisedFormat` without the `#!rtpplay1.0 ` line,
    ///   `.truncated` when the file header is cut short; the source's errors as it
    ///   reported them.
    public init(source: Source) throws(NALUError) {
        self.source = source
        var line: [UInt8] = []
        while true {
            guard let byte = try Self.byte(&self) else {
                throw NALUError(.truncated, field: "rtpdump first line", byteOffset: offset)
            }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
            guard line.count <= RTPDump.maxFirstLine else {
                throw NALUError(.unrecognisedFormat, field: "rtpdump first line", byteOffset: 0, detail: "longer than \(RTPDump.maxFirstLine) bytes")
            }
        }
        guard line.starts(with: RTPDump.magic) else {
            throw NALUError(.unrecognisedFormat, field: "rtpdump first line", byteOffset: 0, detail: "does not start with #!rtpplay1.0")
        }
        destination = String(decoding: line.dropFirst(RTPDump.magic.count), as: UTF8.self)
        guard try take(RTPDump.fileHeaderSize) != nil else {
            throw NALUError(.truncated, field: "RD_hdr_t", byteOffset: offset)
        }
    }

    /// The next RTP packet's record, `nil` at the end of the file.
    /// - Throws: ``NALU/NALUError`` `.truncated` for a record cut short, `.invalidValue` for a
    ///   record length below its header's; the source's errors (typed, as for ``init(source:)``).
    public mutating func next() throws(NALUError) -> RTPDumpRecord? {
        while true {
            let start = offset
            guard let header = try take(RTPDump.recordHeaderSize) else {
                if offset == start { return nil }
                throw NALUError(.truncated, field: "RD_packet_t", byteOffset: start)
            }
            let length = Int(header[0]) << 8 | Int(header[1])
            let packetLength = Int(header[2]) << 8 | Int(header[3])
            let milliseconds = UInt32(header[4]) << 24 | UInt32(header[5]) << 16 | UInt32(header[6]) << 8 | UInt32(header[7])
            guard length >= RTPDump.recordHeaderSize else {
                throw NALUError(.invalidValue, field: "RD_packet_t length", byteOffset: start, detail: "\(length); at least 8")
            }
            guard let body = try take(length - RTPDump.recordHeaderSize) else {
                throw NALUError(.truncated, field: "rtpdump packet", byteOffset: offset, detail: "\(length - 8) bytes announced")
            }
            if packetLength == 0 {
                skippedRTCP += 1
                continue
            }
            if body.count < packetLength {
                skippedPartial += 1
                continue
            }
            return RTPDumpRecord(offsetMilliseconds: milliseconds, bytes: body)
        }
    }

    /// `count` bytes, `nil` when the input ends first (what was there is consumed).
    private mutating func take(_ count: Int) throws(NALUError) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            if position == buffer.count {
                guard try refill() else { return nil }
            }
            let available = min(count - out.count, buffer.count - position)
            out.append(contentsOf: buffer[position..<position + available])
            position += available
            offset += Int64(available)
        }
        return out
    }

    private static func byte(_ reader: inout RTPDumpReader) throws(NALUError) -> UInt8? {
        try reader.take(1)?.first
    }

    private mutating func refill() throws(NALUError) -> Bool {
        guard !ended else { return false }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let read = try chunk.withMutableBytes { (bytes) throws(NALUError) in try source.read(into: bytes) }
        guard read > 0 else {
            ended = true
            return false
        }
        buffer = Array(chunk[0..<read])
        position = 0
        return true
    }
}
