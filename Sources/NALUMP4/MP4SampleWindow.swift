import NALU

/// Reads samples through a window onto the file, so that a run of small samples stored one after
/// another (a chunk, ISO/IEC 14496-12 8.7.4) costs one `pread` per window instead of one per
/// sample: the difference on a stream of 800-byte pictures is most of the time spent.
///
/// Memory is one window of ``capacity`` bytes, allocated on first use, plus one buffer for
/// samples larger than ``largeSample``, which are read on their own.
struct MP4SampleWindow {
    /// Bytes read per window: 1 MiB.
    static let capacity = 1 << 20
    /// Samples above this size skip the window (a window would hold little more than them).
    static let largeSample = 256 << 10

    private var window: [UInt8] = []
    /// File offset of `window[0]` and how many bytes of `window` are valid.
    private var windowStart: Int64 = 0
    private var windowCount = 0
    private var single: [UInt8] = []

    /// Lends the bytes of `sample` to `body`, valid only during the call.
    /// - Throws: ``NALUError`` for a sample outside the file or a short read, or what `body` throws.
    mutating func withSample<R>(_ sample: MP4Sample, from source: some RandomAccessByteSource,
                                _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let (end, overflow) = sample.offset.addingReportingOverflow(Int64(sample.size))
        guard sample.offset >= 0, sample.size >= 0, !overflow, end <= source.size else {
            throw NALUError(.lengthPastEnd, field: "sample", byteOffset: sample.offset,
                            detail: "sample \(sample.index + 1) of \(sample.size) bytes ends past the \(source.size)-byte file")
        }
        if sample.size > Self.largeSample {
            try MP4SampleBytes.read(sample, from: source, into: &single)
            return try single.withUnsafeBytes(body)
        }
        let relative = sample.offset - windowStart
        if relative < 0 || relative > Int64(windowCount) || Int64(windowCount) - relative < Int64(sample.size) {
            // `end <= source.size` above, so the window holds at least the sample.
            let length = Int(min(Int64(Self.capacity), source.size - sample.offset))
            if window.isEmpty { window = [UInt8](repeating: 0, count: Self.capacity) }
            windowCount = 0
            try window.withUnsafeMutableBytes { bytes in
                try source.readExactly(at: sample.offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length]), field: "sample")
            }
            windowStart = sample.offset
            windowCount = length
        }
        let from = Int(sample.offset - windowStart)
        return try window.withUnsafeBytes { bytes in
            try body(UnsafeRawBufferPointer(rebasing: bytes[from..<(from + sample.size)]))
        }
    }
}
