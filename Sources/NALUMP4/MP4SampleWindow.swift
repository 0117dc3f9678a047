import NALU

/// Reads samples through a window onto the file, so that a run of small samples stored one after
/// another (a chunk, ISO/IEC 14496-12 8.7.4) costs one `pread` per window instead of one per
/// sample: the difference on a stream of 800-byte pictures is most of the time spent.
///
/// Memory is one window of ``capacity`` bytes, allocated on first use, plus one buffer for
/// samples larger than ``largeSample``, which are read on their own.
/// With a `beforeReuse` hook (lending, ``NALU/NALUnitView/isLendable``), bytes handed out from
/// the window stay valid until the hook runs, which happens before the window is refilled or
/// freed; a sample that overlaps bytes already lent since the last refill is read again from the
/// file, so a consumer that rewrote a lent sample's length fields never reads them back.
struct MP4SampleWindow {
    /// Bytes read per window: 512 KiB (a window that fits the cache better than 1 MiB, for the
    /// kernel copying lent samples out of it, at the cost of twice the reads: ~3% less CPU).
    static let capacity = 512 << 10
    /// Samples above this size skip the window (a window would hold little more than them).
    static let largeSample = 256 << 10

    /// The window's memory, with a stable address while lent, freed with the last reference.
    private final class Storage {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: MP4SampleWindow.capacity, alignment: 16)
        deinit { bytes.deallocate() }
    }

    private var window: Storage?
    /// The window's bytes (`window`'s), kept as a pointer so a sample costs no retain.
    private var windowBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// File offset of the window's first byte and how many of its bytes are valid.
    private var windowStart: Int64 = 0
    private var windowCount = 0
    /// File offset where the bytes lent from the window since its last refill end.
    private var lentEnd: Int64 = 0
    private var single: [UInt8] = []

    /// Lends the bytes of `sample` to `body`, valid only during the call; with `beforeReuse`,
    /// `body`'s second argument says whether they stay valid until the hook runs (they came from
    /// the window).
    /// - Throws: ``NALUError`` for a sample outside the file or a short read, or what `body` throws.
    ///
    /// (Always inlined into its one per-sample caller: called, it ran as unspecialized generic
    /// code, with `body` and its generic result behind a closure call per sample.)
    @inline(__always)
    mutating func withSample<R>(_ sample: MP4Sample, from source: some RandomAccessByteSource, beforeReuse: (() throws -> Void)? = nil,
                                _ body: (UnsafeRawBufferPointer, Bool) throws -> R) throws -> R {
        let (end, overflow) = sample.offset.addingReportingOverflow(Int64(sample.size))
        guard sample.offset >= 0, sample.size >= 0, !overflow else { throw Self.pastEnd(sample, fileSize: source.size) }
        if sample.size > Self.largeSample {
            guard end <= source.size else { throw Self.pastEnd(sample, fileSize: source.size) }
            try MP4SampleBytes.read(sample, from: source, into: &single)
            return try single.withUnsafeBytes { try body($0, false) }
        }
        let relative = sample.offset - windowStart
        let lending = beforeReuse != nil
        // A sample inside the window is inside the file (the window was read from it): the
        // file's size, a dynamic call on a type-erased source, is asked only on a miss.
        if relative < 0 || relative > Int64(windowCount) || Int64(windowCount) - relative < Int64(sample.size)
            || (lending && sample.offset < lentEnd) {
            guard end <= source.size else { throw Self.pastEnd(sample, fileSize: source.size) }
            try beforeReuse?()
            // `end <= source.size` above, so the window holds at least the sample.
            let length = Int(min(Int64(Self.capacity), source.size - sample.offset))
            if window == nil {
                let storage = Storage()
                window = storage
                windowBytes = storage.bytes
            }
            windowCount = 0
            try source.readExactly(at: sample.offset, into: UnsafeMutableRawBufferPointer(rebasing: windowBytes[0..<length]), field: "sample")
            windowStart = sample.offset
            windowCount = length
            lentEnd = sample.offset
        }
        guard windowBytes.baseAddress != nil else { return try body(UnsafeRawBufferPointer(start: nil, count: 0), false) }
        let from = Int(sample.offset - windowStart)
        if lending { lentEnd = max(lentEnd, end) }
        return try body(UnsafeRawBufferPointer(rebasing: windowBytes[from..<(from + sample.size)]), lending)
    }

    private static func pastEnd(_ sample: MP4Sample, fileSize: Int64) -> NALUError {
        NALUError(.lengthPastEnd, field: "sample", byteOffset: sample.offset,
                  detail: "sample \(sample.index + 1) of \(sample.size) bytes ends past the \(fileSize)-byte file")
    }
}
