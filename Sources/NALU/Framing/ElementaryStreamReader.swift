/// Reads the NAL units of an elementary stream whose framing and codec may be unknown.
///
/// It reads up to ``sniffLength`` bytes first, decides the framing with
/// ``FormatDetection/framing(of:)`` and the codec with ``FormatDetection/codec(fromHeaders:)``
/// (unless given), then streams the rest: those first bytes are replayed, not read twice.
public struct ElementaryStreamReader<Source: ByteSource> {
    /// How many bytes are examined to detect the framing and codec.
    public static var sniffLength: Int { 1 << 16 }

    /// The stream's framing.
    public let format: StreamFormat
    /// The length-field size (length-prefixed streams only).
    public let lengthSize: Int?
    /// The stream's codec.
    public let codec: Codec
    private var source: ReplaySource<Source>
    private let chunkSize: Int
    /// Non-zero bytes before the first start code (Annex-B), after reading.
    public private(set) var leadingGarbageBytes: Int64 = 0
    /// Empty NAL units skipped (Annex-B empty start codes, zero-length prefixes).
    public private(set) var emptyNALUnits = 0
    /// A NAL unit larger than this is an error (``NALUError/Code/tooLarge``) before its bytes are
    /// buffered, so memory stays bounded by the limit, not by the input (default
    /// ``AccessUnitLimit/defaultMaxBytes``, 64 MiB, the default of every reader, muxer and the
    /// command line's `--max-access-unit-size`).
    public var maxNALUnitSize = AccessUnitLimit.defaultMaxBytes

    /// - Parameters:
    ///   - format: the framing, or `nil` to detect it.
    ///   - lengthSize: the length-field size for length-prefixed input (detected when `nil`).
    ///   - codec: the codec, or `nil` to detect it.
    /// - Throws: ``NALUError``: `.unrecognisedFormat` for an empty or undetectable input,
    ///   `.invalidValue` for a length size other than 1, 2 or 4; the source's error as it
    ///   reported it.
    public init(_ source: Source, format: StreamFormat? = nil, lengthSize: Int? = nil, codec: Codec? = nil,
                chunkSize: Int = 512 << 10) throws(NALUError) {
        var source = source
        var prefix = [UInt8](repeating: 0, count: Self.sniffLength)
        var filled = 0
        while filled < prefix.count {
            let count = try prefix.withMutableBytes { (buffer) throws(NALUError) in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            }
            if count <= 0 { break }
            filled += count
        }
        prefix.removeSubrange(filled...)
        guard filled > 0 else { throw NALUError(.unrecognisedFormat, field: "input", byteOffset: 0, detail: "empty input") }

        var resolvedFormat = format
        var resolvedLength = lengthSize
        if resolvedFormat == nil || (resolvedFormat == .lengthPrefixed && resolvedLength == nil) {
            let detected = prefix.withUnsafeBytes { FormatDetection.framing(of: $0) }
            if resolvedFormat == nil { resolvedFormat = detected?.format }
            if resolvedFormat == .lengthPrefixed && resolvedLength == nil {
                resolvedLength = detected?.format == .lengthPrefixed ? detected?.lengthSize : 4
            }
        }
        guard let resolvedFormat else {
            throw NALUError(.unrecognisedFormat, field: "input", byteOffset: 0,
                            detail: "no Annex-B start code and no valid length prefix in the first \(filled) bytes")
        }
        if resolvedFormat == .lengthPrefixed, let length = resolvedLength, ![1, 2, 4].contains(length) {
            throw NALUError(.invalidValue, field: "length size", detail: "\(length); must be 1, 2 or 4")
        }
        var resolvedCodec = codec
        if resolvedCodec == nil {
            let headers = Self.headers(in: prefix, format: resolvedFormat, lengthSize: resolvedLength ?? 4)
            resolvedCodec = FormatDetection.codec(fromHeaders: headers)
        }
        guard let resolvedCodec else {
            throw NALUError(.unrecognisedFormat, field: "codec", byteOffset: 0,
                            detail: "cannot tell H.264 from H.265; pass the codec explicitly")
        }
        self.format = resolvedFormat
        self.lengthSize = resolvedFormat == .lengthPrefixed ? resolvedLength : nil
        self.codec = resolvedCodec
        self.source = ReplaySource(prefix: prefix, source: source)
        self.chunkSize = chunkSize
    }

    /// Calls `body` for every NAL unit in stream order.
    public mutating func forEachNALUnit(_ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(beforeReuse: nil, body)
    }

    /// Calls `body` for every NAL unit in stream order; with a `beforeReuse` hook the views are
    /// lendable (``NALUnitView/isLendable``; ``AnnexBReader/forEachNALUnit(beforeReuse:_:)``).
    package mutating func forEachNALUnit(beforeReuse: (() throws -> Void)?, _ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(beforeReuse: beforeReuse, retirement: nil, body)
    }

    /// As ``forEachNALUnit(beforeReuse:_:)``; an Annex-B stream's buffers go to `retirement`
    /// (``BufferRetirement``), so lent views outlive the hook. Length-prefixed streams ignore it:
    /// check ``format`` first.
    package mutating func forEachNALUnit(beforeReuse: (() throws -> Void)?, retirement: (any BufferRetirement)?,
                                         _ body: (NALUnitView) throws -> Void) throws {
        switch format {
        case .annexB:
            var reader = AnnexBReader(source, chunkSize: chunkSize, maxNALUnitSize: maxNALUnitSize, retirement: retirement)
            defer {
                leadingGarbageBytes = reader.leadingGarbageBytes
                emptyNALUnits = reader.emptyNALUnits
            }
            try reader.forEachNALUnit(beforeReuse: beforeReuse, body)
        case .lengthPrefixed:
            var reader = try LengthPrefixedReader(source, lengthSize: lengthSize ?? 4, chunkSize: chunkSize, maxNALUnitSize: maxNALUnitSize)
            defer { emptyNALUnits = reader.zeroLengthNALUnits }
            try reader.forEachNALUnit(beforeReuse: beforeReuse, body)
        }
    }

    private static func headers(in prefix: [UInt8], format: StreamFormat, lengthSize: Int) -> [(UInt8, UInt8)] {
        var headers: [(UInt8, UInt8)] = []
        let reader = MemorySource(prefix)
        let collect: (NALUnitView) throws -> Void = { unit in
            headers.append((unit.firstByte, unit.secondByte))
            if headers.count >= 64 { throw StopIteration() }
        }
        switch format {
        case .annexB:
            var annexB = AnnexBReader(reader)
            try? annexB.forEachNALUnit(collect)
        case .lengthPrefixed:
            // The prefix may end inside a NAL unit: a length past its end is expected here.
            if var lengthPrefixed = try? LengthPrefixedReader(reader, lengthSize: lengthSize) {
                try? lengthPrefixed.forEachNALUnit(collect)
            }
        }
        return headers
    }
}

private struct StopIteration: Error {}

/// Bytes already read from an input, replayed before the rest of it: how a container or framing
/// is detected on the bytes read without reading them twice (a FIFO or pipe cannot rewind).
package struct ReplaySource<Source: ByteSource>: ByteSource {
    private let prefix: [UInt8]
    private var position = 0
    private(set) var source: Source

    /// Replays `prefix`, then reads on from `source` (which continues right after it).
    package init(prefix: [UInt8], source: Source) {
        self.prefix = prefix
        self.source = source
    }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        if position < prefix.count {
            let count = min(buffer.count, prefix.count - position)
            prefix.withUnsafeBytes { bytes in
                guard let from = bytes.baseAddress, let to = buffer.baseAddress else { return }
                to.copyMemory(from: from + position, byteCount: count)
            }
            position += count
            return count
        }
        return try source.read(into: buffer)
    }

    /// Whether every replayed byte has been read.
    var replayed: Bool { position >= prefix.count }
}
