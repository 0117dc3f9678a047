public import NALU

/// A sink that can replace bytes it has already taken (a regular file): an ``MP4Writer`` then
/// writes a chunk's media data straight through, the `mdat` header first with its size filled
/// in when the chunk is complete, instead of gathering the chunk in memory (NALUIO's `FileSink`,
/// through NALUMedia).
public protocol MP4OverwritableSink: AnyObject, ByteSink {
    /// Bytes taken so far.
    var bytesWritten: Int64 { get }
    /// Whether ``overwrite(_:at:)`` works on this output.
    var canOverwrite: Bool { get }
    /// Replaces the bytes at `offset` (from the first byte taken) with `bytes`.
    func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(NALUError)
}

/// What ``MP4Writer`` keeps of the video samples an ``MP4Muxer`` streams in: bytes first, table
/// entries later (``MP4Writer/appendSampleBytes(_:)``).
struct StreamedSampleState {
    /// Bytes of the sample being streamed in (begun, not yet ended).
    var sampleBytes = 0
    var sampleBegun = false
    /// Samples ended (their bytes all in); ``MP4Writer/tables`` counts those committed.
    var ended = 0
    /// The largest sample the caller gives (its access unit limit): with the chunk size, whether
    /// a chunk's `mdat` always has a 32-bit size, so its header can be written before its data.
    var maxSampleSize = Int.max
    /// `moovAtEnd` on an overwritable sink: chunks are written through (``MP4OverwritableSink``);
    /// decided when the first sample begins.
    var direct: (any MP4OverwritableSink)?
    var decided = false
    /// Where the sink's byte 0 is in the writer's ``MP4Writer/position`` (negative when the sink
    /// took bytes before the writer).
    var sinkBase: Int64 = 0
    /// Direct: the open chunk's `mdat` header (writer position), to fill in when it is complete.
    var headerPosition: Int64?
    /// Fragmented: the fragments complete but not written (their samples' entries are not all
    /// committed yet), oldest first, and the samples and bytes of the one being filled.
    var closedFragments: [(samples: Int, bytes: Int)] = []
    var openFragment: (samples: Int, bytes: Int) = (0, 0)
}

/// Samples in steps, for the muxer: ``beginSample(description:)``, the sample's bytes
/// (length-prefixed NAL units) as its NAL units arrive, in decoding order (`mdat` is in decoding
/// order), ``endSample()``, and its table entry (``commitSample(size:duration:compositionOffset:isSync:)``)
/// once its presentation time is known. The muxer keeps only a few numbers per access unit
/// waiting in its reorder queue, not its bytes.
///
/// `moovAtEnd` writes a chunk's bytes as they come when the sink is an ``MP4OverwritableSink``
/// (the `mdat` size filled in at the end of the chunk), else gathers the chunk in memory;
/// `faststart` writes them to the spool; `fragmented` gathers them, and writes a fragment once
/// the entries of all its samples are committed (its `moof` needs them). Not with passthrough
/// tracks. Samples do not mix with ``MP4Writer/append(_:duration:compositionOffset:isSync:)``
/// in one file.
extension MP4Writer {
    /// Whether samples can be streamed in with this configuration.
    var acceptsStreamedSamples: Bool { configuration.passthroughTracks.isEmpty }

    /// Whether a chunk is written straight to the sink (its `mdat` size filled in later).
    var writesChunksThrough: Bool { streamed.direct != nil }

    /// Begins the next sample. With `description`, it starts a new sample entry
    /// (``startSampleDescription(record:width:height:)``), in a chunk of its own.
    func beginSample(description: (record: [UInt8], width: Int, height: Int)? = nil) throws(NALUError) {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        guard !streamed.sampleBegun else { throw NALUError(.unsupported, field: "sample", detail: "the previous sample has not ended") }
        // Keeps counts within the 32-bit table fields and the total duration within 64 bits.
        guard streamed.ended < Int(UInt32.max) - 1 else {
            throw NALUError(.doesNotFit, field: "sample_count", detail: "more than \(UInt32.max) samples")
        }
        if let description {
            try startSampleDescription(record: description.record, width: description.width, height: description.height)
        }
        switch configuration.layout {
        case .moovAtEnd:
            try startIfNeeded()
            if !streamed.decided { decideDirect() }
            if chunkBytes == 0 {
                if streamed.direct != nil {
                    // The header now, its size when the chunk is complete (8 bytes: it fits 32 bits).
                    streamed.headerPosition = position
                    try Self.mediaDataHeader(payload: 0).withBytes { (bytes) throws(NALUError) in try writeThrough(bytes) }
                    chunks.append((position, 0, currentDescription))
                } else {
                    chunks.append((0, 0, currentDescription))
                }
            }
        case .faststart:
            if chunkBytes == 0 { chunks.append((spooled, 0, currentDescription)) }
        case .fragmented:
            break
        }
        streamed.sampleBegun = true
    }

    /// Writes chunks through when the sink is an ``MP4OverwritableSink`` and every chunk's
    /// `mdat` size fits 32 bits (a chunk ends at the sample that takes it to the chunk size).
    private func decideDirect() {
        streamed.decided = true
        guard let sink = sink as? any MP4OverwritableSink, sink.canOverwrite else { return }
        let (most, overflow) = max(0, configuration.chunkSize).addingReportingOverflow(streamed.maxSampleSize)
        guard !overflow, Int64(most) + 16 <= Int64(UInt32.max) else { return }
        streamed.direct = sink
        streamed.sinkBase = position - sink.bytesWritten
    }

    /// Appends bytes of the sample begun.
    func appendSampleBytes(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        guard streamed.sampleBegun else { throw NALUError(.missing, field: "sample", detail: "no sample begun") }
        switch configuration.layout {
        case .moovAtEnd:
            if streamed.direct != nil {
                try writeThrough(bytes)
            } else {
                pending.append(contentsOf: bytes)
            }
        case .faststart:
            guard var spool else { return }
            try spool.write(bytes)
        case .fragmented:
            pending.append(contentsOf: bytes)
        }
        streamed.sampleBytes += bytes.count
    }

    /// Appends a NAL unit with its 4-byte length before it (ISO/IEC 14496-15 5.3.2
    /// `NALUnitLength`, big-endian); the caller has checked that its size fits 32 bits.
    ///
    /// Direct chunks take a lendable NAL unit with a 4-byte prefix (``NALUnitView/isLendable``:
    /// an Annex-B start code, or an MP4 sample's length field) without a copy: the prefix is
    /// overwritten with the length and the run goes to the sink with `write(lent:)`, which keeps
    /// it until ``returnLent()``. Consecutive NAL units are adjacent in the reader's buffer, so
    /// the sink writes a read chunk's worth in one `writev(2)`.
    func appendNALUnit(_ unit: NALUnitView) throws(NALUError) {
        if streamed.sampleBegun, streamed.direct != nil {
            let count = 4 + unit.count
            if let run = unit.lentRun(overwritingPrefixWith: UInt32(truncatingIfNeeded: unit.count)) {
                try sink.write(lent: run)
            } else {
                var length = UInt32(truncatingIfNeeded: unit.count).bigEndian
                try withBytes(of: &length) { (bytes) throws(NALUError) in try sink.write(bytes) }
                try sink.write(unit.bytes)
            }
            position += Int64(count)
            streamed.sampleBytes += count
            return
        }
        var length = UInt32(truncatingIfNeeded: unit.count).bigEndian
        try withBytes(of: &length) { (bytes) throws(NALUError) in try appendSampleBytes(bytes) }
        try appendSampleBytes(unit.bytes)
    }

    /// Writes out whatever the sink holds of NAL units lent to ``appendNALUnit(_:)`` (the
    /// reader calls this before it reuses their memory).
    func returnLent() throws(NALUError) {
        try sink.returnLent()
    }

    /// Ends the sample begun: its bytes are all in. Returns its size. `isSync` (fragmented): a
    /// sync sample starts a fragment.
    @discardableResult
    func endSample(isSync: Bool = false) throws(NALUError) -> Int {
        guard streamed.sampleBegun else { throw NALUError(.missing, field: "sample", detail: "no sample begun") }
        let size = streamed.sampleBytes
        guard size <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_size", detail: "\(size) bytes")
        }
        switch configuration.layout {
        case .moovAtEnd:
            chunks[chunks.count - 1].samples += 1
            chunkBytes += size
            if chunkBytes >= configuration.chunkSize { try flushChunk() }
        case .faststart:
            chunks[chunks.count - 1].samples += 1
            chunkBytes += size
            spooled += Int64(size)
            if chunkBytes >= configuration.chunkSize { chunkBytes = 0 }
        case .fragmented:
            // As append(_:duration:compositionOffset:isSync:) decides: a new fragment at a sync
            // sample, or before the fragment grows past maxFragmentSize.
            let open = streamed.openFragment
            if open.samples > 0 && (isSync || open.bytes + size > configuration.maxFragmentSize) {
                streamed.closedFragments.append(open)
                streamed.openFragment = (0, 0)
            }
            streamed.openFragment.samples += 1
            streamed.openFragment.bytes += size
        }
        streamed.sampleBytes = 0
        streamed.sampleBegun = false
        streamed.ended += 1
        return size
    }

    /// Direct chunks: bytes go to the sink in order (it buffers small pieces and writes a large
    /// one from the caller's memory); ``position`` counts them.
    private func writeThrough(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        try sink.write(bytes)
        position += Int64(bytes.count)
    }

    /// Direct chunks: fills in the open chunk's `mdat` size (called by ``flushChunk()``).
    func closeDirectChunk() throws(NALUError) {
        guard let direct = streamed.direct, let headerPosition = streamed.headerPosition else { return }
        let header = Self.mediaDataHeader(payload: Int64(chunkBytes))
        try header.withBytes { (bytes) throws(NALUError) in try direct.overwrite(bytes, at: headerPosition - streamed.sinkBase) }
        streamed.headerPosition = nil
    }

    /// Records the table entry of the oldest ended sample not yet committed (samples are
    /// committed in decoding order).
    /// - Parameters:
    ///   - size: its size, as ``endSample()`` returned.
    ///   - duration: its duration in the timescale.
    ///   - compositionOffset: presentation time minus decoding time.
    ///   - isSync: whether decoding can start here (`stss`).
    ///
    /// (Inlined into the muxer's commit loop, its one caller: no call per sample.)
    @inline(__always)
    func commitSample(size: Int, duration: UInt32, compositionOffset: Int64, isSync: Bool) throws(NALUError) {
        guard tables.count + pendingSamples.count < streamed.ended else {
            throw NALUError(.missing, field: "sample", detail: "no streamed sample to commit")
        }
        guard compositionOffset >= Int64(Int32.min), compositionOffset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset \(compositionOffset) does not fit 32 bits")
        }
        if configuration.layout == .fragmented {
            pendingSamples.append((UInt32(truncatingIfNeeded: size), duration, compositionOffset, isSync))
            try flushStreamedFragments(closing: false)
        } else {
            recordSample(size: UInt32(truncatingIfNeeded: size), duration: duration, offset: compositionOffset, isSync: isSync)
        }
    }

    /// Fragmented: writes the complete fragments whose samples all have their entries;
    /// `closing` (the end) completes the one being filled first.
    func flushStreamedFragments(closing: Bool) throws(NALUError) {
        if closing && streamed.openFragment.samples > 0 {
            streamed.closedFragments.append(streamed.openFragment)
            streamed.openFragment = (0, 0)
        }
        while let first = streamed.closedFragments.first, pendingSamples.count >= first.samples {
            try flushFragment(samples: first.samples, bytes: first.bytes)
            streamed.closedFragments.removeFirst()
        }
    }

    /// Whether every streamed sample has ended and has its table entry (checked before the movie
    /// box is written).
    var streamedSamplesCommitted: Bool {
        !streamed.sampleBegun && (streamed.ended == 0 || tables.count + pendingSamples.count == streamed.ended)
    }
}
