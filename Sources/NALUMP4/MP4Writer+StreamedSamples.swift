import NALU

/// What ``MP4Writer`` keeps of the video samples an ``MP4Muxer`` streams in: bytes first, table
/// entries later (``MP4Writer/appendSampleBytes(_:)``).
struct StreamedSampleState {
    /// Bytes of the sample being streamed in (not yet ended).
    var sampleBytes = 0
    /// Samples ended (their bytes all in); ``MP4Writer/tables`` counts those committed.
    var ended = 0
}

/// Samples in two steps, for the muxer: a sample's bytes (length-prefixed NAL units) go in as its
/// NAL units arrive, in decoding order (`mdat` is in decoding order), and its table entry (size,
/// duration, composition offset, sync flag) once its presentation time is known. The muxer then
/// keeps only a few numbers per access unit waiting in its reorder queue, not its bytes.
///
/// For the `moovAtEnd` layout (bytes gathered in the chunk buffer until the chunk is complete)
/// and `faststart` (bytes straight into the spool); not for `fragmented` (a fragment's `moof`
/// needs its samples' entries before its media data) nor with passthrough tracks. Samples do
/// not mix with ``MP4Writer/append(_:duration:compositionOffset:isSync:)`` in one file.
extension MP4Writer {
    /// Whether samples can be streamed in (``appendSampleBytes(_:)``) with this configuration.
    var acceptsStreamedSamples: Bool {
        configuration.layout != .fragmented && configuration.passthroughTracks.isEmpty
    }

    /// Bytes of the sample being streamed in so far.
    var streamedSampleBytes: Int { streamed.sampleBytes }

    /// Appends bytes of the video sample being assembled.
    func appendSampleBytes(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        switch configuration.layout {
        case .moovAtEnd:
            pending.append(contentsOf: bytes)
        case .faststart:
            guard var spool else { return }
            try spool.write(bytes)
        case .fragmented:
            throw NALUError(.unsupported, field: "sample", detail: "fragments take whole samples")
        }
        streamed.sampleBytes += bytes.count
    }

    /// Appends a 4-byte NAL unit length (ISO/IEC 14496-15 5.3.2 `NALUnitLength`, big-endian).
    func appendSampleLength(_ length: UInt32) throws {
        var bigEndian = length.bigEndian
        try withUnsafeBytes(of: &bigEndian) { try appendSampleBytes($0) }
    }

    /// Ends the sample being streamed in: its bytes are all in. With `description`, the sample
    /// starts a new sample entry (``startSampleDescription(record:width:height:)``), in a chunk
    /// of its own. Returns its size.
    @discardableResult
    func endSample(description: (record: [UInt8], width: Int, height: Int)? = nil) throws -> Int {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        let size = streamed.sampleBytes
        guard size <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_size", detail: "\(size) bytes")
        }
        // Keeps counts within the 32-bit table fields and the total duration within 64 bits.
        guard streamed.ended < Int(UInt32.max) - 1 else {
            throw NALUError(.doesNotFit, field: "sample_count", detail: "more than \(UInt32.max) samples")
        }
        if let description {
            // moovAtEnd: the chunk so far is written, this sample's bytes start the next one.
            try startSampleDescription(record: description.record, width: description.width, height: description.height)
        }
        switch configuration.layout {
        case .moovAtEnd:
            try startIfNeeded()
            if chunkBytes == 0 { chunks.append((0, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            chunkBytes += size
            if chunkBytes >= configuration.chunkSize { try flushChunk() }
        case .faststart:
            if chunkBytes == 0 { chunks.append((spooled, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            spooled += Int64(size)
            chunkBytes += size
            if chunkBytes >= configuration.chunkSize { chunkBytes = 0 }
        case .fragmented:
            throw NALUError(.unsupported, field: "sample", detail: "fragments take whole samples")
        }
        streamed.sampleBytes = 0
        streamed.ended += 1
        return size
    }

    /// Drops the bytes of the sample being streamed in (NAL units after the last picture, which
    /// belong to no sample). They are still in the chunk buffer, or past the spool's used part.
    func discardSampleBytes() {
        if configuration.layout == .moovAtEnd {
            pending.removeSubrange(chunkBytes..<pending.count)
        }
        streamed.sampleBytes = 0
    }

    /// Records the table entry of the oldest ended sample not yet committed (samples are
    /// committed in decoding order).
    /// - Parameters:
    ///   - size: its size, as ``endSample(description:)`` returned.
    ///   - duration: its duration in the timescale.
    ///   - compositionOffset: presentation time minus decoding time.
    ///   - isSync: whether decoding can start here (`stss`).
    func commitSample(size: Int, duration: UInt32, compositionOffset: Int64, isSync: Bool) throws {
        guard tables.count < streamed.ended else {
            throw NALUError(.missing, field: "sample", detail: "no streamed sample to commit")
        }
        guard compositionOffset >= Int64(Int32.min), compositionOffset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset \(compositionOffset) does not fit 32 bits")
        }
        recordSample(size: UInt32(truncatingIfNeeded: size), duration: duration, offset: compositionOffset, isSync: isSync)
    }

    /// Whether every ended sample has its table entry (checked before the movie box is written).
    var streamedSamplesCommitted: Bool { streamed.ended == 0 || tables.count == streamed.ended }
}
