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
    /// The video track's edit list (ISO/IEC 14496-12 8.6.6), written verbatim as its `elst`
    /// when non-nil (in every layout) instead of the edit that shifts the first picture to time
    /// 0: `segmentDuration` in the movie timescale, `mediaTime` in the media timescale
    /// (``timescale``). The track header's duration is then the sum of the segment durations.
    public var editList: [MP4EditListEntry]? = nil
    /// Whether ``editList``'s `media_time` values are times of the samples as given (decoding
    /// time plus the composition offsets passed in), so that when `ctts` version 0 shifts every
    /// offset up to make them non-negative (``negativeCompositionOffsets`` `false`), the
    /// non-empty edits move by the same shift and still show the same pictures. An empty
    /// ``editList`` then writes no edit list at all (the media timeline is the presentation).
    public var editListFollowsSampleTimes = false
    /// An empty edit (ISO/IEC 14496-12 8.6.6, `media_time` −1) of this many movie-timescale
    /// ticks before the video's own edit: the video starts that late in the movie (a copy of an
    /// input whose video starts after its audio). Ignored when ``editList`` is set.
    public var videoStartDelay: UInt64 = 0
    /// Tracks written beside the video track (track_IDs 2, 3, … in this order), their samples
    /// given to ``MP4Writer/append(_:track:duration:compositionOffset:isSync:sampleDescription:)``.
    public var passthroughTracks: [MP4PassthroughTrack] = []
    /// Ticks per second of the movie timeline (`mvhd`, `tkhd` and edit list durations); `nil`
    /// is the video's ``timescale``. Give the input's to copy its edit lists unchanged.
    public var movieTimescale: UInt32? = nil
    /// Write a `colr` (`nclx`) box from the SPS VUI's video signal type and a `pasp` box from
    /// its sample aspect ratio after each record (ISO/IEC 14496-12 12.1.5, 12.1.4), as FFmpeg's
    /// muxer does.
    public var colourBoxes: Bool = false
    /// The movie's and the video track's times, matrices, handler name, language and user data
    /// (``MP4MovieMetadata``), copied from an input; `nil` writes zero times, identity matrices,
    /// "und" and no `udta`. Its ``MP4MovieMetadata/quickTime`` brands the file `qt  `.
    public var metadata: MP4MovieMetadata? = nil

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
    /// `media_time` of the edit list written, if one was (the first non-empty entry's, for an
    /// explicit ``MP4WriterConfiguration/editList``).
    public var editMediaTime: Int64?
}

/// Writes one H.264 or H.265 video track as MP4 (ISO/IEC 14496-12, ISO/IEC 14496-15):
/// samples in, file out, with the sample tables (`stts`, `ctts`, `stss`, `stsc`, `stsz`,
/// `stco`/`co64`) or track fragments (`tfdt`, `trun`) built from what each sample says.
///
/// Samples are access units as length-prefixed NAL units (the record's length size), in
/// decoding order, with a duration, a composition offset (presentation time − decoding time,
/// may be negative) and a sync flag. Memory holds the sample tables (about 4 bytes a sample)
/// plus one chunk (`moovAtEnd`; none when an ``MP4Muxer`` streams samples to an
/// ``MP4OverwritableSink``, whose `mdat` sizes are filled in afterwards) or one fragment
/// (`fragmented`); `faststart` parks media data in the spool it is given.
public final class MP4Writer<Sink: ByteSink> {
    // The properties touched for every sample are `@exclusivity(unchecked)`: no method holds one
    // of them across a call that can reach back into this writer (the sink and spool are
    // other objects), so the run-time check per access finds nothing.
    @exclusivity(unchecked) public internal(set) var configuration: MP4WriterConfiguration
    let spool: (any ByteSink & RandomAccessByteSource)?
    @exclusivity(unchecked) var position: Int64 = 0
    @exclusivity(unchecked) private var started = false
    @exclusivity(unchecked) private(set) var finished = false

    // Sample tables.
    @exclusivity(unchecked) var tables = SampleTableState()
    /// Chunks with their sample count and 1-based sample description index (8.7.4).
    @exclusivity(unchecked) var chunks: [(offset: Int64, samples: UInt32, description: UInt32)] = []
    /// Sample entries after the first, from ``startSampleDescription(record:width:height:)``.
    @exclusivity(unchecked) private var laterEntries: [MP4SampleDescriptionEntry] = []
    private var totalDuration: UInt64 { tables.totalDuration }
    private var minimumOffset: Int64 { tables.minimumOffset }
    /// The smallest presentation time (decoding time + composition offset) so far.
    private var earliestPresentation: Int64? { tables.earliestPresentation }

    // The chunk (moovAtEnd) or fragment (fragmented) being assembled.
    @exclusivity(unchecked) var pending: [UInt8] = []
    @exclusivity(unchecked) var pendingSamples: [(size: UInt32, duration: UInt32, offset: Int64, sync: Bool)] = []
    @exclusivity(unchecked) var spooled: Int64 = 0
    @exclusivity(unchecked) var chunkBytes = 0
    private var fragmentSequence: UInt32 = 0
    private var fragmentStartTime: UInt64 = 0
    private var mediaDataBoxes = 0
    /// ``append(_:)`` of timed access units (MP4Writer+TimedAccessUnits.swift).
    var timedState = TimedAppendState()
    /// Samples streamed in by the muxer (MP4Writer+StreamedSamples.swift).
    @exclusivity(unchecked) var streamed = StreamedSampleState()
    /// The passthrough tracks' tables, chunks and fragment data.
    private var passthrough: [PassthroughTrackState] = []
    /// The track of the chunk being assembled: 0 the video track, 1… the passthrough tracks.
    @exclusivity(unchecked) var chunkTrack = 0
    /// Bytes of passthrough data in the fragment being assembled.
    private var passthroughFragmentBytes = 0
    /// The output. (The one stored property whose size depends on the generic parameter,
    /// declared last: the properties before it then sit at offsets fixed at compile time,
    /// instead of offsets read from the type's metadata at every access in this unspecialized
    /// generic code.)
    @exclusivity(unchecked) var sink: Sink

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
        guard configuration.movieTimescale != 0 else {
            throw NALUError(.invalidValue, field: "movieTimescale", detail: "0; must be positive")
        }
        for (index, track) in configuration.passthroughTracks.enumerated() {
            guard track.timescale > 0 else {
                throw NALUError(.invalidValue, field: "passthroughTracks[\(index)].timescale", detail: "0; must be positive")
            }
            guard !track.sampleEntries.isEmpty, track.sampleEntries.count <= Int(UInt16.max) else {
                throw NALUError(.invalidValue, field: "passthroughTracks[\(index)].sampleEntries", detail: "\(track.sampleEntries.count) entries; 1 to 65535")
            }
        }
        guard configuration.passthroughTracks.count < 0xFFFF else {
            throw NALUError(.tooLarge, field: "passthroughTracks", detail: "\(configuration.passthroughTracks.count) tracks")
        }
        passthrough = configuration.passthroughTracks.map { _ in PassthroughTrackState() }
        self.sink = sink
        self.configuration = configuration
        self.spool = spool
        // The chunk or fragment buffer, sized once so it does not grow by doubling.
        switch configuration.layout {
        case .moovAtEnd: pending.reserveCapacity(min(max(0, configuration.chunkSize), 64 << 20) * 2)
        // Fragmented: a quarter more, for streamed samples that arrive while a complete fragment
        // waits for its last entries.
        case .fragmented: pending.reserveCapacity(min(max(0, configuration.maxFragmentSize), 256 << 20) / 4 * 5)
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
    private(set) var currentDescription: UInt32 = 1

    /// Sample entries so far (the first and those ``startSampleDescription(record:width:height:)`` added).
    public var sampleDescriptionCount: Int { laterEntries.count + 1 }

    /// The 1-based index of the sample entry with exactly `record` and this size, if there is one.
    public func sampleDescriptionIndex(record: [UInt8], width: Int, height: Int) -> Int? {
        if record == configuration.decoderConfigurationRecord && width == configuration.width && height == configuration.height { return 1 }
        return laterEntries.firstIndex { $0.record == record && $0.width == width && $0.height == height }.map { $0 + 2 }
    }

    /// Makes every sample entry `avc3`/`hev1` (parameter sets in band as well, ISO/IEC 14496-15
    /// 5.4.2, 8.4.1), their `hvcC` arrays with `array_completeness` 0: for a stream whose
    /// parameter sets change more often than sample entries are added (``MP4Muxer``).
    /// Possible until `moov` is written (``canStartSampleDescription``).
    public func useInBandParameterSetEntries() throws(NALUError) {
        try NALUError.typed(field: "sample description") {
            guard canStartSampleDescription else {
                throw NALUError(.unsupported, field: "sample description", detail: "moov is already written")
            }
            let codec = configuration.sampleEntry.codec
            configuration.sampleEntry = MP4SampleEntryType(codec: codec, inBandParameterSets: true)
            guard codec == .hevc else { return }
            configuration.decoderConfigurationRecord = Self.clearingArrayCompleteness(configuration.decoderConfigurationRecord)
            for index in laterEntries.indices { laterEntries[index].record = Self.clearingArrayCompleteness(laterEntries[index].record) }
        }
    }

    /// An `hvcC` record (ISO/IEC 14496-15 8.3.3.1) with every `array_completeness` bit 0; a
    /// record that does not parse that far is returned as it is.
    static func clearingArrayCompleteness(_ record: [UInt8]) -> [UInt8] {
        var bytes = record
        guard bytes.count > 22 else { return record }
        var position = 23
        for _ in 0..<Int(bytes[22]) {
            guard position + 3 <= bytes.count else { return record }
            bytes[position] &= 0x7F
            let count = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            position += 3
            for _ in 0..<count {
                guard position + 2 <= bytes.count else { return record }
                position += 2 + (Int(bytes[position]) << 8 | Int(bytes[position + 1]))
            }
        }
        return position <= bytes.count ? bytes : record
    }

    /// Whether ``startSampleDescription(record:width:height:)`` is possible: the sample tables
    /// are still to be written (not the fragmented layout, whose `moov` goes out first).
    public var canStartSampleDescription: Bool { configuration.layout != .fragmented && !finished }

    /// Starts a new sample entry (ISO/IEC 14496-12 8.5.2) with `record`: the samples appended
    /// from now on refer to it, in chunks of their own (8.7.4: a chunk has one sample
    /// description). For a stream whose parameter sets change (resolution, profile, a set
    /// re-sent with new content), so that every sample decodes with the sets it was coded with.
    /// An entry with the same record and size is reused instead of added again
    /// (``sampleDescriptionIndex(record:width:height:)``).
    public func startSampleDescription(record: [UInt8], width: Int, height: Int) throws(NALUError) {
        try NALUError.typed(field: "sample description") {
            guard canStartSampleDescription else {
                throw NALUError(.unsupported, field: "sample description", detail: "moov is already written")
            }
            if let index = sampleDescriptionIndex(record: record, width: width, height: height) {
                guard UInt32(index) != currentDescription else { return }
                try startChunkForDescription()
                currentDescription = UInt32(index)
                return
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
            try startChunkForDescription()
            laterEntries.append(MP4SampleDescriptionEntry(record: record, width: width, height: height))
            currentDescription = UInt32(truncatingIfNeeded: laterEntries.count + 1)
        }
    }

    /// Ends the chunk in progress: the next sample, of another sample entry, starts one.
    private func startChunkForDescription() throws(NALUError) {
        switch configuration.layout {
        case .moovAtEnd: try flushChunk()
        case .faststart: chunkBytes = 0
        case .fragmented: break
        }
    }

    /// The sink, for example to commit a file after ``finish()``.
    public var output: Sink { sink }

    /// Appends one sample.
    /// - Parameters:
    ///   - sample: the access unit, length-prefixed.
    ///   - duration: its duration in the timescale.
    ///   - compositionOffset: presentation time minus decoding time.
    ///   - isSync: whether decoding can start here (`stss`; `sample_is_non_sync_sample` 0).
    public func append(_ sample: UnsafeRawBufferPointer, duration: UInt32, compositionOffset: Int64, isSync: Bool) throws(NALUError) {
        do {
            try appendVideoSample(sample, duration: duration, compositionOffset: compositionOffset, isSync: isSync)
        } catch {
            throw NALUError.converting(error, field: "sample")
        }
    }

    /// ``append(_:duration:compositionOffset:isSync:)``'s work.
    private func appendVideoSample(_ sample: UnsafeRawBufferPointer, duration: UInt32, compositionOffset: Int64, isSync: Bool) throws(NALUError) {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        guard sample.count <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_size", detail: "\(sample.count) bytes")
        }
        guard compositionOffset >= Int64(Int32.min), compositionOffset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset \(compositionOffset) does not fit 32 bits")
        }
        // Keeps counts within the 32-bit table fields and the total duration within 64 bits.
        guard tables.count + pendingSamples.count < Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_count", detail: "more than \(UInt32.max) samples")
        }
        let size = UInt32(sample.count)
        switch configuration.layout {
        case .fragmented:
            if isSync && !pendingSamples.isEmpty
                || pending.count + passthroughFragmentBytes + sample.count > configuration.maxFragmentSize && !pendingSamples.isEmpty {
                try flushFragment()
            }
            pending.append(contentsOf: sample)
            pendingSamples.append((size, duration, compositionOffset, isSync))
        case .moovAtEnd:
            try startIfNeeded()
            if chunkTrack != 0 {
                try flushChunk()
                chunkTrack = 0
            }
            pending.append(contentsOf: sample)
            recordSample(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
            if chunkBytes == 0 { chunks.append((0, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { try flushChunk() }
        case .faststart:
            guard var spool else { return }
            if chunkTrack != 0 {
                chunkBytes = 0
                chunkTrack = 0
            }
            try spool.write(sample)
            if chunkBytes == 0 { chunks.append((spooled, 0, currentDescription)) }
            chunks[chunks.count - 1].samples += 1
            spooled += Int64(sample.count)
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { chunkBytes = 0 }
            recordSample(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
        }
    }

    /// Appends one sample of passthrough track `track` (an index into
    /// ``MP4WriterConfiguration/passthroughTracks``; its track_ID is `track + 2`), copied unchanged.
    ///
    /// Append the samples of all tracks in decoding-time order (each track's in its decoding
    /// order): a chunk (or, fragmented, a track's part of a fragment) holds consecutive samples of
    /// one track, so the order of the appends is the interleaving of the file. About half a
    /// second of one track before switching to the next is what FFmpeg writes.
    /// - Parameters:
    ///   - duration: in the track's timescale.
    ///   - compositionOffset: presentation minus decoding time (0 for audio).
    ///   - isSync: `stss` (all sync: no `stss`).
    ///   - sampleDescription: 1-based index into the track's sample entries.
    public func append(_ sample: UnsafeRawBufferPointer, track: Int, duration: UInt32, compositionOffset: Int64 = 0, isSync: Bool = true,
                       sampleDescription: Int = 1) throws(NALUError) {
        do {
            try appendPassthroughSample(sample, track: track, duration: duration, compositionOffset: compositionOffset, isSync: isSync,
                                        sampleDescription: sampleDescription)
        } catch {
            throw NALUError.converting(error, field: "sample")
        }
    }

    /// ``append(_:track:duration:compositionOffset:isSync:sampleDescription:)``'s work.
    private func appendPassthroughSample(_ sample: UnsafeRawBufferPointer, track: Int, duration: UInt32, compositionOffset: Int64, isSync: Bool,
                                         sampleDescription: Int) throws(NALUError) {
        guard !finished else { throw NALUError(.unsupported, field: "sample", detail: "the writer is finished") }
        guard track >= 0, track < passthrough.count else {
            throw NALUError(.invalidValue, field: "track", detail: "\(track); the writer has \(passthrough.count) passthrough tracks")
        }
        let entries = configuration.passthroughTracks[track].sampleEntries.count
        guard sampleDescription >= 1, sampleDescription <= entries else {
            throw NALUError(.invalidValue, field: "sample_description_index", detail: "\(sampleDescription); the track has \(entries) sample entries")
        }
        guard sample.count <= Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_size", detail: "\(sample.count) bytes")
        }
        guard compositionOffset >= Int64(Int32.min), compositionOffset <= Int64(Int32.max) else {
            throw NALUError(.doesNotFit, field: "sample_offset", detail: "composition offset \(compositionOffset) does not fit 32 bits")
        }
        guard passthrough[track].tables.count + passthrough[track].fragmentSamples.count < Int(UInt32.max) else {
            throw NALUError(.doesNotFit, field: "sample_count", detail: "more than \(UInt32.max) samples in track \(track + 2)")
        }
        let size = UInt32(sample.count)
        let description = UInt32(sampleDescription)
        let key = track + 1
        switch configuration.layout {
        case .fragmented:
            // A track fragment has one sample description.
            if !passthrough[track].fragmentSamples.isEmpty && passthrough[track].fragmentDescription != description
                || pending.count + passthroughFragmentBytes + sample.count > configuration.maxFragmentSize {
                try flushFragment()
            }
            passthrough[track].fragmentDescription = description
            passthrough[track].fragmentData.append(contentsOf: sample)
            passthrough[track].fragmentSamples.append((size, duration, compositionOffset, isSync))
            passthroughFragmentBytes += sample.count
        case .moovAtEnd:
            try startIfNeeded()
            if chunkTrack != key || passthrough[track].chunks.last?.description != description {
                try flushChunk()
                chunkTrack = key
            }
            pending.append(contentsOf: sample)
            passthrough[track].tables.record(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
            if chunkBytes == 0 { passthrough[track].chunks.append((0, 0, description)) }
            passthrough[track].chunks[passthrough[track].chunks.count - 1].samples += 1
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { try flushChunk() }
        case .faststart:
            guard var spool else { return }
            if chunkTrack != key || passthrough[track].chunks.last?.description != description {
                chunkBytes = 0
                chunkTrack = key
            }
            try spool.write(sample)
            if chunkBytes == 0 { passthrough[track].chunks.append((spooled, 0, description)) }
            passthrough[track].chunks[passthrough[track].chunks.count - 1].samples += 1
            spooled += Int64(sample.count)
            chunkBytes += sample.count
            if chunkBytes >= configuration.chunkSize { chunkBytes = 0 }
            passthrough[track].tables.record(size: size, duration: duration, offset: compositionOffset, isSync: isSync)
        }
    }

    /// Appends one sample of a passthrough track held in an array.
    public func append(_ sample: [UInt8], track: Int, duration: UInt32, compositionOffset: Int64 = 0, isSync: Bool = true,
                       sampleDescription: Int = 1) throws(NALUError) {
        do {
            try sample.withUnsafeBytes {
                try appendPassthroughSample($0, track: track, duration: duration, compositionOffset: compositionOffset, isSync: isSync,
                                            sampleDescription: sampleDescription)
            }
        } catch {
            throw NALUError.converting(error, field: "sample")
        }
    }

    /// What was written of each passthrough track: samples and media duration (its timescale).
    public var passthroughTotals: [(samples: Int, duration: UInt64)] {
        passthrough.map { ($0.tables.count + $0.fragmentSamples.count, $0.tables.totalDuration) }
    }

    /// Appends one sample held in an array.
    public func append(_ sample: [UInt8], duration: UInt32, compositionOffset: Int64, isSync: Bool) throws(NALUError) {
        do {
            try sample.withUnsafeBytes { try appendVideoSample($0, duration: duration, compositionOffset: compositionOffset, isSync: isSync) }
        } catch {
            throw NALUError.converting(error, field: "sample")
        }
    }

    @inline(__always)
    func recordSample(size: UInt32, duration: UInt32, offset: Int64, isSync: Bool) {
        tables.record(size: size, duration: duration, offset: offset, isSync: isSync)
    }

    func write(_ bytes: [UInt8]) throws(NALUError) {
        try sink.write(bytes)
        position += Int64(bytes.count)
    }

    private func description(duration: UInt64, editMediaTime: Int64?) -> MovieDescription {
        // The movie timescale is the media's unless given, so movie and edit durations are exact.
        MovieDescription(sampleEntry: configuration.sampleEntry, record: configuration.decoderConfigurationRecord,
                         width: configuration.width, height: configuration.height, laterEntries: laterEntries,
                         timescale: configuration.timescale,
                         movieTimescale: configuration.movieTimescale ?? configuration.timescale,
                         duration: duration, editMediaTime: editMediaTime, editList: shiftedEditList,
                         startDelay: configuration.videoStartDelay,
                         fragmented: configuration.layout == .fragmented,
                         passthrough: zip(configuration.passthroughTracks, passthrough).map { ($0, $1.tables.totalDuration) },
                         colourBoxes: configuration.colourBoxes, metadata: configuration.metadata,
                         presentationEnd: tables.latestPresentationEnd.map { $0 &+ (configuration.editListFollowsSampleTimes ? offsetShift : 0) },
                         passthroughPresentationEnds: passthrough.map(\.tables.latestPresentationEnd))
    }

    /// Writes what precedes the first sample, once. (The check is inlined into the per-sample
    /// callers; the work is not.)
    @inline(__always)
    func startIfNeeded() throws(NALUError) {
        if !started { try start() }
    }

    private func start() throws(NALUError) {
        started = true
        switch configuration.layout {
        case .moovAtEnd:
            try write(description(duration: 0, editMediaTime: nil).fileType())
        case .fragmented:
            let movie = description(duration: 0, editMediaTime: nil)
            try write(movie.fileType())
            try write(movie.movie { stbl, _ in Self.emptyTables(&stbl) })
        case .faststart:
            break
        }
    }

    /// An `mdat` header for `payload` bytes: 32-bit size, or `largesize` past 4 GiB.
    static func mediaDataHeader(payload: Int64) -> [UInt8] {
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

    func flushChunk() throws(NALUError) {
        guard chunkBytes > 0 else { return }
        if writesChunksThrough {
            // Its header and bytes are written; the header gets its size.
            try closeDirectChunk()
            chunkBytes = 0
            mediaDataBoxes += 1
            return
        }
        let header = Self.mediaDataHeader(payload: Int64(pending.count))
        try write(header)
        if chunkTrack == 0 {
            chunks[chunks.count - 1].offset = position
        } else {
            passthrough[chunkTrack - 1].setLastChunkOffset(position)
        }
        try write(pending)
        pending.removeAll(keepingCapacity: true)
        chunkBytes = 0
        mediaDataBoxes += 1
    }

    /// 8.8.4 Movie Fragment Box + 8.1.1 Media Data Box for the pending GOP: a `traf` for the
    /// video track and one for each passthrough track with samples, their data one after the
    /// other in the `mdat`.
    ///
    /// Streamed samples (``commitSample(size:duration:compositionOffset:isSync:)``): only the
    /// first `samples` entries and `bytes` bytes, a fragment whose successors' bytes are in already.
    func flushFragment(samples: Int? = nil, bytes: Int? = nil) throws(NALUError) {
        guard !pendingSamples.isEmpty || passthroughFragmentBytes > 0 || passthrough.contains(where: { !$0.fragmentSamples.isEmpty }) else { return }
        let sampleCount = min(samples ?? pendingSamples.count, pendingSamples.count)
        let byteCount = min(bytes ?? pending.count, pending.count)
        let fragmentSamples = sampleCount == pendingSamples.count ? pendingSamples : Array(pendingSamples[0..<sampleCount])
        try startIfNeeded()
        fragmentSequence += 1
        var builder = BoxBuilder(capacity: 64 + 16 * fragmentSamples.count)
        // Where each run's data_offset goes in the moof, and its data's place in the mdat payload.
        var patches: [(position: Int, dataStart: Int)] = []
        builder.box(.moof) { moof in
            moof.fullBox(.mfhd) { box in box.u32(fragmentSequence) }
            var dataStart = 0
            if !fragmentSamples.isEmpty {
                patches.append((Self.trackFragment(&moof, trackID: 1, startTime: fragmentStartTime, samples: fragmentSamples), dataStart))
                dataStart += byteCount
            }
            for (index, track) in passthrough.enumerated() where !track.fragmentSamples.isEmpty {
                patches.append((Self.trackFragment(&moof, trackID: UInt32(truncatingIfNeeded: index + 2), startTime: track.fragmentStartTime,
                                                   samples: track.fragmentSamples, description: track.fragmentDescription), dataStart))
                dataStart += track.fragmentData.count
            }
        }
        var moof = builder.bytes
        let payload = Int64(byteCount) + Int64(passthroughFragmentBytes)
        let header = Self.mediaDataHeader(payload: payload)
        for patch in patches {
            let dataOffset = UInt32(truncatingIfNeeded: moof.count + header.count + patch.dataStart)
            moof.replaceSubrange(patch.position..<(patch.position + 4),
                                 with: [UInt8(dataOffset >> 24), UInt8((dataOffset >> 16) & 0xFF), UInt8((dataOffset >> 8) & 0xFF), UInt8(dataOffset & 0xFF)])
        }
        try write(moof)
        try write(header)
        for sample in fragmentSamples {
            recordSample(size: sample.size, duration: sample.duration, offset: sample.offset, isSync: sample.sync)
            fragmentStartTime += UInt64(sample.duration)
        }
        if byteCount == pending.count {
            try write(pending)
            pending.removeAll(keepingCapacity: true)
        } else {
            try pending.withBytes { (bytes) throws(NALUError) in try sink.write(UnsafeRawBufferPointer(rebasing: bytes[0..<byteCount])) }
            position += Int64(byteCount)
            pending.removeSubrange(0..<byteCount)
        }
        pendingSamples.removeSubrange(0..<sampleCount)
        for index in passthrough.indices where !passthrough[index].fragmentSamples.isEmpty {
            try write(passthrough[index].fragmentData)
            passthrough[index].endFragment()
        }
        passthroughFragmentBytes = 0
        mediaDataBoxes += 1
    }

    /// One `traf` (8.8.6): `tfhd` with default-base-is-moof (data offsets count from the moof),
    /// `tfdt` (8.8.12), and a `trun` (8.8.8, version 1: signed composition offsets) with every
    /// field per sample. Returns where its `data_offset` is, to patch.
    static func trackFragment(_ moof: inout BoxBuilder, trackID: UInt32, startTime: UInt64,
                                      samples: [(size: UInt32, duration: UInt32, offset: Int64, sync: Bool)], description: UInt32 = 0) -> Int {
        var dataOffsetPosition = 0
        moof.box(.traf) { traf in
            // sample-description-index-present when not the trex default (1).
            traf.fullBox(.tfhd, flags: 0x02_0000 | (description > 1 ? 0x02 : 0)) { box in
                box.u32(trackID)
                if description > 1 { box.u32(description) }
            }
            traf.fullBox(.tfdt, version: 1) { box in box.u64(startTime) }
            // data-offset, sample-duration, -size, -flags, -composition-time-offset.
            traf.fullBox(.trun, version: 1, flags: 0x0001 | 0x0100 | 0x0200 | 0x0400 | 0x0800) { box in
                box.u32(UInt32(truncatingIfNeeded: samples.count))
                dataOffsetPosition = box.bytes.count
                box.u32(0)
                for sample in samples {
                    box.u32(sample.duration)
                    box.u32(sample.size)
                    // sample_depends_on 2 (independent) for sync samples; 1 + is_non_sync otherwise.
                    box.u32(sample.sync ? 0x0200_0000 : 0x0101_0000)
                    box.i32(Int32(truncatingIfNeeded: sample.offset))
                }
            }
        }
        return dataOffsetPosition
    }

    /// Writes what is pending and the movie box. The writer takes no more samples after.
    /// - Throws: ``NALUError`` (typed): the output's write error (`.io` naming the path) or a value that does not fit its field.
    @discardableResult
    public func finish() throws(NALUError) -> MP4WriterSummary {
        guard !finished else { throw NALUError(.unsupported, field: "finish", detail: "already finished") }
        try flushHeldAccessUnit()
        guard streamedSamplesCommitted else {
            throw NALUError(.missing, field: "sample", detail: "\(streamed.ended - tables.count) streamed samples have no table entry")
        }
        finished = true
        var editMediaTime: Int64?
        var large = false
        switch configuration.layout {
        case .fragmented:
            try startIfNeeded()
            try flushStreamedFragments(closing: true)
            try flushFragment()
            // A given edit list is in the moov of fragments too.
            if configuration.editList != nil { editMediaTime = compositionShift }
        case .moovAtEnd:
            try startIfNeeded()
            try flushChunk()
            editMediaTime = compositionShift
            large = configuration.forceLargeChunkOffsets || lastChunkOffset > Int64(UInt32.max)
            try write(description(duration: totalDuration, editMediaTime: editMediaTime).movie(tableBytes: sampleTableBytes) { stbl, track in
                sampleTables(&stbl, track: track, chunkBase: 0, large: large)
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
                moov = movie.movie(tableBytes: sampleTableBytes) { stbl, track in sampleTables(&stbl, track: track, chunkBase: base, large: large) }
                let lastOffset = base + Int64(moov.count) + lastChunkOffset
                if large || lastOffset <= Int64(UInt32.max) { break }
                large = true
            }
            let base = Int64(fileType.count) + Int64(moov.count) + Int64(header.count)
            moov = movie.movie(tableBytes: sampleTableBytes) { stbl, track in sampleTables(&stbl, track: track, chunkBase: base, large: large) }
            try write(fileType)
            try write(moov)
            try write(header)
            try copySpool()
            mediaDataBoxes = 1
        }
        return MP4WriterSummary(samples: tables.count, syncSamples: tables.syncCount, duration: totalDuration, bytes: position,
                                mediaDataBoxes: mediaDataBoxes, largeChunkOffsets: large, editMediaTime: editMediaTime)
    }

    /// ``MP4WriterConfiguration/editList``, its non-empty edits moved by the `ctts` shift when
    /// ``MP4WriterConfiguration/editListFollowsSampleTimes`` (progressive layouts).
    private var shiftedEditList: [MP4EditListEntry]? {
        guard let editList = configuration.editList, configuration.editListFollowsSampleTimes else { return configuration.editList }
        let shift = configuration.layout == .fragmented ? 0 : offsetShift
        return editList.map { edit in
            var edit = edit
            if edit.mediaTime >= 0 { edit.mediaTime &+= shift }
            return edit
        }
    }

    /// What `ctts` version 0 adds to every offset so none is negative (0 with signed offsets).
    private var offsetShift: Int64 { configuration.negativeCompositionOffsets ? 0 : -minimumOffset }

    /// The edit list's `media_time` for progressive layouts: the earliest presentation time in
    /// the media timeline as written, so playback starts with the first picture at time 0;
    /// `nil` (no edit list) when that is 0 already. A given edit list's first non-empty entry wins.
    private var compositionShift: Int64? {
        if let editList = shiftedEditList { return editList.first { $0.mediaTime >= 0 }?.mediaTime }
        let earliest = (earliestPresentation ?? 0) + offsetShift
        return earliest != 0 ? earliest : nil
    }

    /// About the bytes of every track's sample tables (at most what ``sampleTables(_:track:chunkBase:large:)``
    /// writes for them, without the box headers): the capacity of the movie box being built.
    private var sampleTableBytes: Int {
        func bytes(_ tables: SampleTableState, chunks: Int) -> Int {
            tables.sizes.count * 4 + tables.offsetRunCount * 8 + tables.durationRunCount * 8 + tables.syncSamples.count * 4 + chunks * 20
        }
        var total = bytes(tables, chunks: chunks.count)
        for track in passthrough { total += bytes(track.tables, chunks: track.chunks.count) }
        return total
    }

    /// The largest chunk offset of any track (relative to the media data).
    private var lastChunkOffset: Int64 {
        var last = chunks.last?.offset ?? 0
        for track in passthrough { last = max(last, track.chunks.last?.offset ?? 0) }
        return last
    }

    private func copySpool() throws(NALUError) {
        guard let spool else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < spooled {
            let want = Int(min(Int64(buffer.count), spooled - offset))
            try buffer.withMutableBytes { (bytes) throws(NALUError) in
                try spool.readExactly(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<want]), field: "spool")
            }
            try buffer.withBytes { (bytes) throws(NALUError) in try sink.write(UnsafeRawBufferPointer(rebasing: bytes[0..<want])) }
            position += Int64(want)
            offset += Int64(want)
        }
    }

    /// `stts` (8.6.1.2), `ctts` (8.6.1.3), `stss` (8.6.2), `stsc` (8.7.4), `stsz` (8.7.3),
    /// `stco`/`co64` (8.7.5) for the samples written; chunk offsets plus `chunkBase`.
    private func sampleTables(_ stbl: inout BoxBuilder, track: Int, chunkBase: Int64, large: Bool) {
        if track == 0 {
            Self.sampleTables(&stbl, tables: tables, chunks: chunks, signed: configuration.negativeCompositionOffsets, shift: offsetShift,
                              chunkBase: chunkBase, large: large)
        } else if track <= passthrough.count {
            // Passthrough offsets are written as given: signed (version 1) only when one is negative.
            let state = passthrough[track - 1]
            Self.sampleTables(&stbl, tables: state.tables, chunks: state.chunks, signed: state.tables.minimumOffset < 0, shift: 0,
                              chunkBase: chunkBase, large: large)
        }
    }

    /// The sample table boxes of one track: `tables` with composition offsets plus `shift`
    /// (version 1 `ctts` when `signed`), `chunks` at their offsets plus `chunkBase`.
    private static func sampleTables(_ stbl: inout BoxBuilder, tables: SampleTableState,
                                     chunks: [(offset: Int64, samples: UInt32, description: UInt32)],
                                     signed: Bool, shift: Int64, chunkBase: Int64, large: Bool) {
        let durationRuns = tables.durationRunCount
        let offsetRuns = tables.offsetRunCount
        let minimumOffset = tables.minimumOffset
        stbl.fullBox(.stts) { box in
            box.u32(UInt32(durationRuns))
            box.u32s(count: durationRuns * 2) { index in
                let entry = tables.durationRun(index >> 1)
                return index & 1 == 0 ? entry.count : entry.delta
            }
        }
        if offsetRuns > 1 || minimumOffset != 0 || (offsetRuns > 0 && tables.offsetRun(0).offset != 0) {
            stbl.fullBox(.ctts, version: signed ? 1 : 0) { box in
                box.u32(UInt32(offsetRuns))
                box.u32s(count: offsetRuns * 2) { index in
                    let entry = tables.offsetRun(index >> 1)
                    return index & 1 == 0 ? entry.count : UInt32(truncatingIfNeeded: Int64(entry.offset) + shift)
                }
            }
        }
        if !tables.allSync {
            stbl.fullBox(.stss) { box in
                let numbers = tables.syncSamples
                box.u32(UInt32(numbers.count))
                box.u32s(count: numbers.count) { numbers[$0] }
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
            if let uniform = tables.uniformSize, tables.sizes.isEmpty {
                box.u32(uniform)
                box.u32(UInt32(tables.count))
            } else {
                box.u32(0)
                box.u32(UInt32(tables.count))
                let sizes = tables.sizes
                box.u32s(count: sizes.count) { sizes[$0] }
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
    static func emptyTables(_ stbl: inout BoxBuilder) {
        for type: FourCC in [.stts, .stsc, .stco] { stbl.fullBox(type) { box in box.u32(0) } }
        stbl.fullBox(.stsz) { box in box.u32(0); box.u32(0) }
    }
}
