public import NALU

/// How an ``MP4Writer`` lays the file out.
public enum MP4Layout: String, Sendable, CaseIterable {
    /// `ftyp`, the media data, then `moov`: written front to back as samples arrive, in
    /// `mdat` boxes of about ``MP4WriterConfiguration/chunkSize`` bytes (one chunk each), so
    /// it needs no seeking and works on pipes.
    case moovAtEnd
    /// `ftyp`, `moov`, then one `mdat` ("fast start": players can begin before the download
    /// ends). The media data waits in a spool (a temporary file) until the sample tables are
    /// known, then is copied after `moov`.
    case faststart
    /// `ftyp` and a `moov` without samples (with `mvex`), then a `moof` + `mdat` per GOP
    /// (ISO/IEC 14496-12 8.8): for live and streaming writers, each fragment playable as it lands.
    case fragmented
}

/// What an ``MP4Writer`` writes.
public struct MP4WriterConfiguration: Sendable {
    /// `avc1`/`hvc1` (parameter sets only in the record) or `avc3`/`hev1` (also in band).
    public var sampleEntry: MP4SampleEntryType
    /// The `avcC`/`hvcC` payload.
    public var decoderConfigurationRecord: [UInt8]
    /// Picture size for the sample entry and track header.
    public var width: Int
    public var height: Int
    /// Ticks per second of the media timeline.
    public var timescale: UInt32
    public var layout: MP4Layout
    /// Progressive layouts: write composition offsets as signed `ctts` version 1 values (the
    /// first picture shown at time 0 without an edit list) instead of unsigned version 0 values
    /// shifted by an edit list (`elst` media_time), which is what FFmpeg writes by default and
    /// what older players expect. Fragments always use signed `trun` version 1 offsets.
    public var negativeCompositionOffsets: Bool
    /// Bytes of media data per chunk (`moovAtEnd`: per `mdat` box; `faststart`: per `stco` entry).
    public var chunkSize: Int
    /// `fragmented`: start a new fragment before a GOP's media data grows past this many bytes
    /// (the fragment is held in memory until its `moof` can be written).
    public var maxFragmentSize: Int
    /// Always write `co64` (64-bit chunk offsets), even when every offset fits 32 bits.
    public var forceLargeChunkOffsets: Bool
    /// An edit list written verbatim as the track's `elst` (ISO/IEC 14496-12 8.6.6), in place of
    /// the composition-shift edit, in every layout: `segmentDuration` in the movie timescale
    /// (the media timescale, ``timescale``), `mediaTime` in the media timescale, on the timeline
    /// the samples make (decoding times plus the composition offsets as written: with unsigned
    /// `ctts` offsets, shifted up by the most negative offset). `nil`: the writer's own edit.
    public var editList: [MP4EditListEntry]?

    public init(sampleEntry: MP4SampleEntryType, decoderConfigurationRecord: [UInt8], width: Int, height: Int,
                timescale: UInt32, layout: MP4Layout = .moovAtEnd, negativeCompositionOffsets: Bool = false,
                chunkSize: Int = 1 << 20, maxFragmentSize: Int = 16 << 20, forceLargeChunkOffsets: Bool = false,
                editList: [MP4EditListEntry]? = nil) {
        self.editList = editList
        self.sampleEntry = sampleEntry
        self.decoderConfigurationRecord = decoderConfigurationRecord
        self.width = width
        self.height = height
        self.timescale = timescale
        self.layout = layout
        self.negativeCompositionOffsets = negativeCompositionOffsets
        self.chunkSize = chunkSize
        self.maxFragmentSize = maxFragmentSize
        self.forceLargeChunkOffsets = forceLargeChunkOffsets
    }
}

/// What an ``MP4Writer`` wrote.
public struct MP4WriterSummary: Hashable, Sendable {
    public var samples: Int
    public var syncSamples: Int
    /// Media duration in the track's timescale.
    public var duration: UInt64
    /// Bytes written.
    public var bytes: Int64
    /// `mdat` boxes (moovAtEnd) or fragments (fragmented); 1 for faststart.
    public var mediaDataBoxes: Int
    /// Whether chunk offsets needed 64 bits (`co64`).
    public var largeChunkOffsets: Bool
    /// `media_time` of the edit list written, if one was.
    public var editMediaTime: Int64?
}

/// Writes one H.264 or H.265 video track as MP4 (ISO/IEC 14496-12, ISO/IEC 14496-15):
/// samples in, file out, with the sample tables (`stts`, `ctts`, `stss`, `stsc`, `stsz`,
/// `stco`/`co64`) or track fragments (`tfdt`, `trun`) built from what each sample says.
///
/// Samples are access units as length-prefixed NAL units (the record's length size), in
/// decoding order, with a duration, a composition offset (presentation time − decoding time,
/// may be negative) and a sync flag. Memory holds the sample tables (about 4 bytes a sample)
/// plus one chunk (`moovAtEnd`) or one fragment (`fragmented`); `faststart` parks media data in
/// the spool it is given.
public final class MP4Writer<Sink: ByteSink> {
    public private(set) var configuration: MP4WriterConfiguration
    private var sink: Sink
    private let spool: (any ByteSink & RandomAccessByteSource)?
    private var position: Int64 = 0
    private var started = false
    private var finished = false

    // Sample tables.
    private var tables = SampleTableState()
    private var sizes: [UInt32] { tables.sizes }
    private var durations: [(count: UInt32, delta: UInt32)] { tables.durations }
    private var offsets: [(count: UInt32, offset: Int64)] { tables.offsets }
    private var syncSamples: [UInt32] { tables.syncSamples }
    /// Chunks with their sample count and 1-based sample description index (8.7.4).
    private var chunks: [(offset: Int64, samples: UInt32, description: UInt32)] = []
    /// Sample entries after the first, from ``startSampleDescription(record:width:height:)``.
    private var laterEntries: [MP4SampleDescriptionEntry] = []
    private var totalDuration: UInt64 { tables.totalDuration }
    private var minimumOffset: Int64 { tables.minimumOffset }
    /// The smallest presentation time (decoding time + composition offset) so far.
    private var earliestPresentation: Int64? { tables.earliestPresentation }

    // The chunk (moovAtEnd) or fragment (fragmented) being assembled.
    private var pending: [UInt8] = []
    private var pendingSamples: [(size: UInt32, duration: UInt32, offset: Int64, sync: Bool)] = []
    private var spooled: Int64 = 0
    private var chunkBytes = 0
    private var fragmentSequence: UInt32 = 0
    private var fragmentStartTime: UInt64 = 0
    private var mediaDataBoxes = 0
    /// ``append(_:)`` of timed access units (MP4Writer+TimedAccessUnits.swift).
    var timedState = TimedAppendState()

    /// - Parameters:
    ///   - spool: where `faststart` keeps the media data until `moov` is written (for example
    ///     NALUIO's `SpoolFile`); required for that layout, unused by the others.
    public init(sink: Sink, configuration: MP4WriterConfiguration, spool: (any ByteSink & RandomAccessByteSource)? = nil) throws(NALUError) {
        guard configuration.timescale > 0 else {
            throw NALUError(.invalidValue, field: "timescale", detail: "0; must be positive")
        }
        guard configuration.layout != .faststart || spool != nil else {
            throw NALUError(.missing, field: "spool", detail: "the faststart layout needs a spool for the media data")
        }
        self.sink = sink
        self.configuration = configuration
        self.spool = spool
        // The chunk or fragment buffer, sized once so it does not grow by doubling.
        switch configuration.layout {
        case .moovAtEnd: pending.reserveCapacity(min(max(0, configuration.chunkSize), 64 << 20) * 2)
        case .fragmented: pending.reserveCapacity(min(max(0, configuration.maxFragmentSize), 256 << 20))
        case .faststart: break
        }
    }

    /// Replaces the decoder configuration record (for example when more parameter sets were
    /// seen). Allowed until `moov` is written: before the first fragment, or until ``finish()``.
    public func updateDecoderConfigurationRecord(_ record: [UInt8]) throws(NALUError) {
        guard !(configuration.layout == .fragmented && started) else {
            throw NALUError(.unsupported, field: "decoderConfigurationRecord", detail: "moov is already written")
        }
        configuration.decoderConfigurationRecord = record
    }

    /// Record bytes of the later sample entries, and their limit (16 MiB).
    private var laterEntryBytes = 0
    static var maxSampleDescriptionBytes: Int { 16 << 20 }

    /// The 1-based index of the sample entry the next sample uses.
    private var currentDescription: UInt32 { UInt32(truncatingIfNeeded: laterEntries.count + 1) }

    /// Whether ``startSampleDescription(record:width:height:)`` is possible: the sample tables
    /// are still to be written (not the fragmented layout, whose `moov` goes out first).
    public var canStartSampleDescription: Bool { configuration.layout != .fragmented && !finished }

    /// Starts a new sample entry (ISO/IEC 14496-12 8.5.2) with `record`: the samples appended
    /// from now on refer to it, in chunks of their own (8.7.4: a chunk has one sample
    /// description). For a stream whose parameter sets change (resolution, profile, a set
    /// re-sent with new content), so that every sample decodes with the sets it was coded with.
    public func startSampleDescription(record: [UInt8], width: Int, height: Int) throws {
        guard canStartSampleDescription else {
            throw NALUError(.unsupported, field: "sample description", detail: "moov is already written")
        }
        guard laterEntries.count < Int(UInt16.max) else {
            throw NALUError(.tooLarge, field: "entry_count", detail: "more than \(UInt16.max) sample descriptions")
        }
        // The entries live in memory until moov is written: a stream that changes its parameter
        // sets at every picture must not grow them without bound.
        let (total, overflow) = laterEntryBytes.addingReportingOverflow(record.count)
        guard !overflow, total <= Self.maxSampleDescriptionBytes else {
            throw NALUError(.tooLarge, field: "stsd", detail: "sample descriptions over \(Self.maxSampleDescriptionBytes) bytes")
        }
        laterEntryBytes = total
        switch configuration.layout {
        case .moovAtEnd: try flushChunk()
        case .faststart: chunkBytes = 0
        case .fragmented: break
        }
        laterEntries.append(MP4SampleDescriptionEntry(record: record, width: width, height: height))
    }

    /// The sink, for example to commit a file after ``finish()``.
    public var output: Sink { sink }

    /// Appends one sample.
    /// - Parameters:
    ///   - sample: the access unit, length-prefixed.
    ///   - duration: its duration in the timescale.
    ///   - compositionOffset: presentation time minus decoding time.
    ///   - isSync: whether decoding can start here (`stss`; `sample_is_non_sync_sample` 0).
    public func append(_ sample: UnsafeRawBufferPointer, duration: UInt32, compositionOffset: Int64, isSync: Bool) throws {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        guard sample.count <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_size", detail: "\(sample.count) bytes")
        }
        guard compositionOffset >= Int64(Int32.min), compositionOffset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset \(compositionOffset) does not fit 32 bits")
        }
        // Keeps counts within the 32-bit table fields and the total duration within 64 bits.
        guard tables.sizes.count + pendingSamples.count < Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_count", detail: "more than \(UInt32.max) samples")
        }
        let size = UInt32(sample.count)
        switch configuration.layout {
        case .fragmented:
            if isSync && !pendingSamples.isEmpty || pending.count + sample.count > configuration.maxFragmentSize && !pendingSamples.isEmpty {
                try flushFragment()
            }
            pending.append(contentsOf: sample)
            pendingSamples.append((size, duration, compositionOffset, isSync))
        case .moovAtEnd:
            try startIfNeeded()
            pending.append(contentsOf: sample)
            recordSample(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
            if chunkBytes == 0 { chunks.append((0, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { try flushChunk() }
        case .faststart:
            guard var spool else { return }
            try spool.write(sample)
            if chunkBytes == 0 { chunks.append((spooled, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            spooled += Int64(sample.count)
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { chunkBytes = 0 }
            recordSample(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
        }
    }

    /// Appends one sample held in an array.
    public func append(_ sample: [UInt8], duration: UInt32, compositionOffset: Int64, isSync: Bool) throws {
        try sample.withUnsafeBytes { try append($0, duration: duration, compositionOffset: compositionOffset, isSync: isSync) }
    }

    private func recordSample(size: UInt32, duration: UInt32, offset: Int64, isSync: Bool) {
        tables.record(size: size, duration: duration, offset: offset, isSync: isSync)
    }

    private func write(_ bytes: [UInt8]) throws {
        try sink.write(bytes)
        position += Int64(bytes.count)
    }

    private func description(duration: UInt64, editMediaTime: Int64?) -> MovieDescription {
        // The movie timescale is the media's, so movie and edit durations are exact.
        MovieDescription(sampleEntry: configuration.sampleEntry, record: configuration.decoderConfigurationRecord,
                         width: configuration.width, height: configuration.height, laterEntries: laterEntries,
                         timescale: configuration.timescale,
                         movieTimescale: configuration.timescale,
                         duration: duration, editMediaTime: editMediaTime, editList: configuration.editList,
                         fragmented: configuration.layout == .fragmented)
    }

    private func startIfNeeded() throws {
        guard !started else { return }
        started = true
        switch configuration.layout {
        case .moovAtEnd:
            try write(description(duration: 0, editMediaTime: nil).fileType())
        case .fragmented:
            let movie = description(duration: 0, editMediaTime: nil)
            try write(movie.fileType())
            try write(movie.movie { stbl in Self.emptyTables(&stbl) })
        case .faststart:
            break
        }
    }

    /// An `mdat` header for `payload` bytes: 32-bit size, or `largesize` past 4 GiB.
    private static func mediaDataHeader(payload: Int64) -> [UInt8] {
        var builder = BoxBuilder(capacity: 16)
        if payload + 8 <= Int64(UInt32.max) {
            builder.u32(UInt32(payload + 8))
            builder.fourCC(.mdat)
        } else {
            builder.u32(1)
            builder.fourCC(.mdat)
            builder.u64(UInt64(payload + 16))
        }
        return builder.bytes
    }

    private func flushChunk() throws {
        guard chunkBytes > 0 else { return }
        let header = Self.mediaDataHeader(payload: Int64(pending.count))
        try write(header)
        chunks[chunks.count - 1].offset = position
        try write(pending)
        pending.removeAll(keepingCapacity: true)
        chunkBytes = 0
        mediaDataBoxes += 1
    }

    /// 8.8.4 Movie Fragment Box + 8.1.1 Media Data Box for the pending GOP.
    private func flushFragment() throws {
        guard !pendingSamples.isEmpty else { return }
        try startIfNeeded()
        fragmentSequence += 1
        var builder = BoxBuilder(capacity: 64 + 16 * pendingSamples.count)
        var dataOffsetPosition = 0
        builder.box(.moof) { moof in
            moof.fullBox(.mfhd) { box in box.u32(fragmentSequence) }
            moof.box(.traf) { traf in
                // default-base-is-moof: data offsets count from this moof.
                traf.fullBox(.tfhd, flags: 0x02_0000) { box in box.u32(1) }
                traf.fullBox(.tfdt, version: 1) { box in box.u64(fragmentStartTime) }
                // data-offset, sample-duration, -size, -flags, -composition-time-offset; signed offsets.
                traf.fullBox(.trun, version: 1, flags: 0x0001 | 0x0100 | 0x0200 | 0x0400 | 0x0800) { box in
                    box.u32(UInt32(pendingSamples.count))
                    dataOffsetPosition = box.bytes.count
                    box.u32(0)
                    for sample in pendingSamples {
                        box.u32(sample.duration)
                        box.u32(sample.size)
                        // sample_depends_on 2 (independent) for sync samples; 1 + is_non_sync otherwise.
                        box.u32(sample.sync ? 0x0200_0000 : 0x0101_0000)
                        box.i32(Int32(truncatingIfNeeded: sample.offset))
                    }
                }
            }
        }
        var moof = builder.bytes
        let header = Self.mediaDataHeader(payload: Int64(pending.count))
        let dataOffset = UInt32(moof.count + header.count)
        moof.replaceSubrange(dataOffsetPosition..<(dataOffsetPosition + 4),
                             with: [UInt8(dataOffset >> 24), UInt8((dataOffset >> 16) & 0xFF), UInt8((dataOffset >> 8) & 0xFF), UInt8(dataOffset & 0xFF)])
        try write(moof)
        try write(header)
        try write(pending)
        for sample in pendingSamples {
            recordSample(size: sample.size, duration: sample.duration, offset: sample.offset, isSync: sample.sync)
            fragmentStartTime += UInt64(sample.duration)
        }
        pending.removeAll(keepingCapacity: true)
        pendingSamples.removeAll(keepingCapacity: true)
        mediaDataBoxes += 1
    }

    /// Writes what is pending and the movie box. The writer takes no more samples after.
    @discardableResult
    public func finish() throws -> MP4WriterSummary {
        guard !finished else { throw NALUError(.unsupported, field: "finish", detail: "already finished") }
        try flushHeldAccessUnit()
        finished = true
        var editMediaTime: Int64?
        var large = false
        switch configuration.layout {
        case .fragmented:
            try startIfNeeded()
            try flushFragment()
            // A given edit list is in the moov of fragments too.
            if configuration.editList != nil { editMediaTime = compositionShift }
        case .moovAtEnd:
            try startIfNeeded()
            try flushChunk()
            editMediaTime = compositionShift
            large = configuration.forceLargeChunkOffsets || (chunks.last?.offset ?? 0) > Int64(UInt32.max)
            try write(description(duration: totalDuration, editMediaTime: editMediaTime).movie { stbl in
                sampleTables(&stbl, chunkBase: 0, large: large)
            })
        case .faststart:
            editMediaTime = compositionShift
            let movie = description(duration: totalDuration, editMediaTime: editMediaTime)
            let fileType = movie.fileType()
            let header = Self.mediaDataHeader(payload: spooled)
            // Offsets depend on the moov size, which depends on whether they need 64 bits.
            large = configuration.forceLargeChunkOffsets
            var moov: [UInt8] = []
            for _ in 0..<2 {
                let base = Int64(fileType.count) + Int64(header.count)
                moov = movie.movie { stbl in sampleTables(&stbl, chunkBase: base, large: large) }
                let lastOffset = base + Int64(moov.count) + (chunks.last?.offset ?? 0)
                if large || lastOffset <= Int64(UInt32.max) { break }
                large = true
            }
            let base = Int64(fileType.count) + Int64(moov.count) + Int64(header.count)
            moov = movie.movie { stbl in sampleTables(&stbl, chunkBase: base, large: large) }
            try write(fileType)
            try write(moov)
            try write(header)
            try copySpool()
            mediaDataBoxes = 1
        }
        return MP4WriterSummary(samples: sizes.count, syncSamples: syncSamples.count, duration: totalDuration, bytes: position,
                                mediaDataBoxes: mediaDataBoxes, largeChunkOffsets: large, editMediaTime: editMediaTime)
    }

    /// What `ctts` version 0 adds to every offset so none is negative (0 with signed offsets).
    private var offsetShift: Int64 { configuration.negativeCompositionOffsets ? 0 : -minimumOffset }

    /// The edit list's `media_time` for progressive layouts: the earliest presentation time in
    /// the media timeline as written, so playback starts with the first picture at time 0;
    /// `nil` (no edit list) when that is 0 already. A given edit list's first non-empty entry wins.
    private var compositionShift: Int64? {
        if let editList = configuration.editList { return editList.first { $0.mediaTime >= 0 }?.mediaTime }
        let earliest = (earliestPresentation ?? 0) + offsetShift
        return earliest != 0 ? earliest : nil
    }

    private func copySpool() throws {
        guard let spool else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < spooled {
            let want = Int(min(Int64(buffer.count), spooled - offset))
            try buffer.withUnsafeMutableBytes { bytes in
                try spool.readExactly(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<want]), field: "spool")
            }
            try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
            position += Int64(want)
            offset += Int64(want)
        }
    }

    /// `stts` (8.6.1.2), `ctts` (8.6.1.3), `stss` (8.6.2), `stsc` (8.7.4), `stsz` (8.7.3),
    /// `stco`/`co64` (8.7.5) for the samples written; chunk offsets plus `chunkBase`.
    private func sampleTables(_ stbl: inout BoxBuilder, chunkBase: Int64, large: Bool) {
        stbl.fullBox(.stts) { box in
            box.u32(UInt32(durations.count))
            for entry in durations {
                box.u32(entry.count)
                box.u32(entry.delta)
            }
        }
        if offsets.count > 1 || minimumOffset != 0 || (offsets.first?.offset ?? 0) != 0 {
            let signed = configuration.negativeCompositionOffsets
            let shift = offsetShift
            stbl.fullBox(.ctts, version: signed ? 1 : 0) { box in
                box.u32(UInt32(offsets.count))
                for entry in offsets {
                    box.u32(entry.count)
                    box.u32(UInt32(truncatingIfNeeded: entry.offset + shift))
                }
            }
        }
        if syncSamples.count != sizes.count {
            stbl.fullBox(.stss) { box in
                box.u32(UInt32(syncSamples.count))
                for number in syncSamples { box.u32(number) }
            }
        }
        stbl.fullBox(.stsc) { box in
            var runs: [(first: UInt32, samples: UInt32, description: UInt32)] = []
            for (index, chunk) in chunks.enumerated()
            where runs.last?.samples != chunk.samples || runs.last?.description != chunk.description {
                runs.append((UInt32(index + 1), chunk.samples, chunk.description))
            }
            box.u32(UInt32(runs.count))
            for run in runs {
                box.u32(run.first)
                box.u32(run.samples)
                box.u32(run.description)
            }
        }
        stbl.fullBox(.stsz) { box in
            if let first = sizes.first, sizes.allSatisfy({ $0 == first }) {
                box.u32(first)
                box.u32(UInt32(sizes.count))
            } else {
                box.u32(0)
                box.u32(UInt32(sizes.count))
                for size in sizes { box.u32(size) }
            }
        }
        stbl.fullBox(large ? .co64 : .stco) { box in
            box.u32(UInt32(chunks.count))
            for chunk in chunks {
                let offset = UInt64(chunk.offset + chunkBase)
                if large { box.u64(offset) } else { box.u32(UInt32(truncatingIfNeeded: offset)) }
            }
        }
    }

    /// The empty sample tables of a fragmented file's `moov` (8.8.1: samples are in fragments).
    private static func emptyTables(_ stbl: inout BoxBuilder) {
        for type: FourCC in [.stts, .stsc, .stco] { stbl.fullBox(type) { box in box.u32(0) } }
        stbl.fullBox(.stsz) { box in box.u32(0); box.u32(0) }
    }
}
