public import NALU

/// Reads a track's samples' bytes in the order they are walked, through one 512 KiB window onto
/// the file (``MP4SampleWindow``'s): a run of samples stored one after another (a chunk,
/// ISO/IEC 14496-12 8.7.4) costs one `pread` per window instead of one per sample, and the bytes
/// are handed out from the window without a copy. What the packager reads its video samples with.
///
/// ```swift
/// var bytes = MP4SampleReader()
/// var samples = track.samples()
/// while let sample = try samples.next() {
///     try bytes.withBytes(of: sample, in: track) { raw in consume(raw) }
/// }
/// ```
public struct MP4SampleReader {
    private var window = MP4SampleWindow()

    /// A reader with no window yet (allocated at the first sample).
    public init() {}

    /// Calls `body` with `sample`'s bytes (valid during the call only), read from `track`'s file.
    /// - Throws: ``NALU/NALUError`` `.lengthPastEnd` when the sample ends past the file, the
    ///   source's read errors, and `body`'s.
    public mutating func withBytes<R>(of sample: MP4Sample, in track: MP4TrackReader<some RandomAccessByteSource>,
                                      _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try window.withSample(sample, from: track.context.source) { bytes, _ in try body(bytes) }
    }

    /// Calls `body` with `sample`'s bytes (valid during the call only), read from the video
    /// track's file.
    public mutating func withBytes<R>(of sample: MP4Sample, in track: MP4VideoTrackReader<some RandomAccessByteSource>,
                                      _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try window.withSample(sample, from: track.source) { bytes, _ in try body(bytes) }
    }
}
