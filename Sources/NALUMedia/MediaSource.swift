public import NALU
import NALUIO
public import NALUMP4
public import NALUTS

/// How an input is framed or contained.
public enum MediaContainer: Hashable, Sendable, CustomStringConvertible {
    /// An Annex-B byte stream (start codes, ITU-T H.264/H.265 Annex B).
    case annexB
    /// Length-prefixed NAL units (ISO/IEC 14496-15 AVCC/HVCC framing) with `lengthSize`-byte lengths.
    case lengthPrefixed(lengthSize: Int)
    /// The first H.264/H.265 video track of an ISO BMFF file; `quickTime` for a MOV (`qt  ` brand).
    case mp4(quickTime: Bool)
    /// The first H.264/H.265 stream (or the `--pid` one) of an MPEG-2 transport stream
    /// (ISO/IEC 13818-1) of 188-byte packets, or 192-byte M2TS packets.
    case transportStream(packetSize: Int)

    public var description: String {
        switch self {
        case .annexB: StreamFormat.annexB.rawValue
        case .lengthPrefixed: StreamFormat.lengthPrefixed.rawValue
        case .mp4(let quickTime): quickTime ? "QuickTime" : "MP4"
        case .transportStream(let size): size == TransportStream.timestampedPacketSize ? "MPEG-TS (M2TS)" : "MPEG-TS"
        }
    }

    /// The framing of the NAL units: an MP4 track's samples are length-prefixed, a transport
    /// stream's PES payload is Annex-B.
    public var framing: StreamFormat {
        switch self {
        case .annexB, .transportStream: .annexB
        case .lengthPrefixed, .mp4: .lengthPrefixed
        }
    }

    /// Whether this is an MPEG-2 transport stream.
    public var isTransportStream: Bool {
        if case .transportStream = self { return true }
        return false
    }

    /// Whether this is an MP4/MOV file.
    public var isMP4: Bool {
        if case .mp4 = self { return true }
        return false
    }
}

/// What the caller knows about an input beforehand (command-line options).
public struct MediaSourceOptions: Sendable {
    /// The codec, or `nil` to detect it (NAL headers, then the file name's extension).
    public var codec: Codec?
    /// Length-prefixed input with this length size (raw streams only).
    public var lengthSize: Int?
    /// An avcC/hvcC record holding a length-prefixed input's parameter sets (implies that
    /// framing; its length size and codec apply unless given).
    public var record: DecoderConfigurationRecord?
    /// Where an MP4 read from a pipe is spooled (default `$TMPDIR` or `/tmp`).
    public var spoolDirectory: String?
    /// Whether a raw stream whose NAL headers do not tell the codec takes it from the file name's
    /// extension (``ContainerDetection/codec(fromExtension:)``).
    public var codecFromFileName: Bool
    /// The PID of the video stream of a transport stream (`--pid`), or `nil` for the first
    /// H.264/H.265 stream of the PMT.
    public var pid: UInt16?
    /// Told of the damage a transport stream's demultiplexer steps over (the first
    /// ``MediaSource/reportedWarningLimit``; the counts have them all).
    public var onTransportStreamWarning: (@Sendable (TransportStreamWarning) -> Void)?
    /// Whether a raw stream (Annex-B or length-prefixed) or a transport stream is read on a
    /// second thread ahead of the parser, which for Annex-B also finds the start codes (the
    /// default; only when a second CPU is likely free, ``NALUIO/ReadAhead/hasSecondCPU``). Wall
    /// time drops by 5–25%; CPU time rises by 10–40% (the bytes cross between cores). An
    /// Annex-B stream muxed to MP4 is instead read and split into access units on the second
    /// thread (``MP4FileSink``). `false` keeps every read on the caller's thread.
    public var readsAhead = true
    /// The largest NAL unit a raw or transport stream may hold (``AccessUnitLimit/defaultMaxBytes``,
    /// 64 MiB, unless given: the command line's `--max-access-unit-size`). A larger one is
    /// ``NALUError/Code/tooLarge`` before it is buffered, so one absurd unit is a clean error,
    /// never an allocation of up to the readers' 1 GiB cap that a memory limit aborts.
    public var maxNALUnitSize = AccessUnitLimit.defaultMaxBytes

    public init(codec: Codec? = nil, lengthSize: Int? = nil, record: DecoderConfigurationRecord? = nil, spoolDirectory: String? = nil,
                codecFromFileName: Bool = true, pid: UInt16? = nil) {
        self.pid = pid
        self.codec = codec
        self.lengthSize = lengthSize
        self.record = record
        self.spoolDirectory = spoolDirectory
        self.codecFromFileName = codecFromFileName
    }
}

/// One input, whatever its container: a path or standard input, opened once; the container is
/// told from the first bytes read (``ContainerDetection``), so a FIFO or pipe works.
///
/// It yields the codec, the out-of-band parameter sets (an MP4 sample entry's record, or
/// ``MediaSourceOptions/record``), the timing where the container has it, and the NAL units in
/// decoding order (``forEachNALUnit(sampleStarts:_:)``) or the access units with their keyframe
/// class and picture type (``forEachAccessUnit(_:)``). An MP4 on a non-seekable input is copied
/// to an unlinked temporary file (NALUIO's `SpoolFile`) that disappears with the process.
public final class MediaSource {
    /// How many bytes are read before deciding the container.
    public static var sniffLength: Int { 1 << 16 }

    /// The path given, or `"-"`.
    public let path: String
    public let codec: Codec
    public let container: MediaContainer
    /// Parameter sets from outside the stream: the MP4 sample entry's or the given record's.
    public let outOfBandParameterSets: [[UInt8]]
    /// Prefix SEI NAL units an hvcC record carries (MP4 input).
    public let declarativeSEI: [[UInt8]]
    /// The MP4 track reader, for MP4/MOV input.
    public let mp4: MP4VideoTrackReader<AnyRandomAccessSource>?
    /// Tracks of an MP4/MOV input other than the video track read (audio, subtitles, …).
    public let otherTracks: [MP4OtherTrack]
    /// Whether an MP4 input came through a pipe and was spooled.
    public let spooled: Bool
    private var elementary: ElementaryStreamReader<ReplaySource<InputFile>>?
    /// The input file, for a raw elementary stream (``prepareToReadOnOneThread()``).
    private var elementaryInput: InputFile?
    /// ``MediaSourceOptions/readsAhead``.
    private var readsAhead = true
    /// The demultiplexer of a transport stream input, and the reader of its video payload.
    private let transportReader: TransportStreamReader<ReplaySource<InputFile>>?
    private var transportElementary: ElementaryStreamReader<ReplaySource<TransportStreamReader<ReplaySource<InputFile>>>>?
    /// The first elementary-stream bytes of a transport stream (read at once, so the first time
    /// stamps are known), replayed before the rest.
    private var transportPrefix: [UInt8] = []
    /// Warnings of a transport stream passed to ``MediaSourceOptions/onTransportStreamWarning``
    /// at most; the rest are counted only.
    public static let reportedWarningLimit = 20

    /// Opens `path` (`"-"`: standard input) and detects what `options` leave open.
    /// - Throws: ``NALUError``: `.io` when the path cannot be opened or read, `.unrecognisedFormat`
    ///   when the content is no stream nalu reads, `.invalidValue` with the option as its field
    ///   (`--codec`, `--extradata`) when `options` contradict an MP4 input (another codec, a
    ///   record or length size for a file that has its own).
    public convenience init(path: String, options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) {
        do {
            try self.init(opening: path, options: options)
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// ``init(path:options:)``'s work.
    private init(opening path: String, options: MediaSourceOptions) throws {
        self.path = path
        readsAhead = options.readsAhead
        let input = try InputFile(path: path)
        var prefix = [UInt8](repeating: 0, count: Self.sniffLength)
        let filled = try prefix.withUnsafeMutableBytes { try input.readFully(into: $0) }
        prefix.removeSubrange(filled...)

        if ContainerDetection.looksLikeMP4(prefix) || (filled == 0 && ContainerDetection.hasMP4Extension(path)) {
            guard options.record == nil, options.lengthSize == nil else {
                throw NALUError(.invalidValue, field: "--extradata", detail: "\(path) is MP4/MOV: it carries its own record, so --extradata and an input length size do not apply")
            }
            if let pid = options.pid {
                throw NALUError(.invalidValue, field: "--pid", detail: "\(pid) was given; \(path) is MP4/MOV, not an MPEG transport stream")
            }
            let random: any RandomAccessByteSource
            if input.isRegularFile {
                random = input
                spooled = false
            } else {
                var spool = try SpoolFile(directory: options.spoolDirectory)
                try spool.write(prefix)
                var chunk = [UInt8](repeating: 0, count: 1 << 20)
                while true {
                    let count = try chunk.withUnsafeMutableBytes { try input.read(into: $0) }
                    if count <= 0 { break }
                    try chunk.withUnsafeBytes { try spool.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                }
                random = spool
                spooled = true
            }
            let reader = try MP4VideoTrackReader(AnyRandomAccessSource(random))
            let track = reader.track
            if let codec = options.codec, codec != track.codec {
                throw NALUError(.invalidValue, field: "--codec", detail: "\(codec) was given; the \(track.sampleEntryType) track of \(path) is \(track.codec)")
            }
            mp4 = reader
            codec = track.codec
            container = .mp4(quickTime: reader.fileType?.isQuickTime == true)
            outOfBandParameterSets = track.decoderConfiguration.parameterSets
            if case .hevc(let record) = track.decoderConfiguration {
                declarativeSEI = record.declarativeSEI
            } else {
                declarativeSEI = []
            }
            otherTracks = MP4OtherTrack.list(in: reader)
            elementary = nil
            transportReader = nil
            transportElementary = nil
            return
        }

        if let packetSize = ContainerDetection.transportStreamPacketSize(prefix, path: path) {
            guard options.record == nil, options.lengthSize == nil else {
                throw NALUError(.invalidValue, field: "--extradata", detail: "\(path) is an MPEG transport stream: its video is Annex-B, so --extradata and an input length size do not apply")
            }
            if options.readsAhead { input.readAheadFromNextRead(findingStartCodes: false) }
            let reader = TransportStreamReader(ReplaySource(prefix: prefix, source: input), packetSize: packetSize, pid: options.pid)
            if let handler = options.onTransportStreamWarning {
                let limit = Self.reportedWarningLimit
                var reported = 0
                reader.demuxer.onWarning = { warning in
                    reported += 1
                    if reported <= limit {
                        handler(warning)
                    } else if reported == limit + 1 {
                        handler(TransportStreamWarning(kind: warning.kind, pid: nil, byteOffset: warning.byteOffset,
                                                       detail: "more damage; further warnings are not shown (info --json counts them all)"))
                    }
                }
            }
            try reader.readProgram()
            let video = reader.demuxer.video
            let streamCodec: Codec = video?.streamType == TransportStreamType.hevc.rawValue ? .hevc : .h264
            if let codec = options.codec, codec != streamCodec {
                throw NALUError(.invalidValue, field: "--codec", detail: "\(codec) was given; \(video.map(\.description) ?? "the video stream") of \(path) is \(streamCodec)")
            }
            transportReader = reader
            var head = [UInt8](repeating: 0, count: ElementaryStreamReader<InputFile>.sniffLength)
            var count = 0
            while count < head.count {
                let got = try head.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
                if got <= 0 { break }
                count += got
            }
            head.removeSubrange(count...)
            guard count > 0 else {
                throw NALUError(.missing, field: "PES_packet", byteOffset: reader.bytesRead,
                                detail: "no payload on \(video.map(\.description) ?? "the video PID") in the \(reader.bytesRead)-byte transport stream")
            }
            transportPrefix = head
            var payload = try ElementaryStreamReader(ReplaySource(prefix: head, source: reader), format: .annexB, codec: streamCodec)
            payload.maxNALUnitSize = options.maxNALUnitSize
            transportElementary = payload
            codec = streamCodec
            container = .transportStream(packetSize: reader.packetSize)
            mp4 = nil
            otherTracks = []
            declarativeSEI = []
            spooled = false
            outOfBandParameterSets = []
            elementary = nil
            return
        }
        if let pid = options.pid {
            throw NALUError(.invalidValue, field: "--pid", detail: "\(pid) was given; \(path) is no MPEG transport stream (no sync byte 0x47 every 188 or 192 bytes)")
        }
        transportReader = nil
        transportElementary = nil

        mp4 = nil
        otherTracks = []
        declarativeSEI = []
        spooled = false
        let record = options.record
        let format: StreamFormat? = options.lengthSize != nil || record != nil ? .lengthPrefixed : nil
        let lengthSize = options.lengthSize ?? record?.lengthSize
        let knownCodec = options.codec ?? record?.codec
        var reader: ElementaryStreamReader<ReplaySource<InputFile>>
        do {
            reader = try ElementaryStreamReader(ReplaySource(prefix: prefix, source: input), format: format, lengthSize: lengthSize, codec: knownCodec)
        } catch {
            // No codec in the headers: the reader took exactly the bytes of `prefix` (or the
            // input ended): replay them with the file name's codec.
            guard error.code == .unrecognisedFormat, error.field == "codec", options.codecFromFileName,
                  let hinted = ContainerDetection.codec(fromExtension: path) else { throw error }
            reader = try ElementaryStreamReader(ReplaySource(prefix: prefix, source: input), format: format, lengthSize: lengthSize, codec: hinted)
        }
        reader.maxNALUnitSize = options.maxNALUnitSize
        if options.readsAhead {
            // Read (and search for start codes) on a second thread; the reader replays the
            // bytes it read to detect the format first.
            input.readAheadFromNextRead(findingStartCodes: reader.format == .annexB,
                                        lengthSize: reader.format == .lengthPrefixed ? reader.lengthSize : nil)
        }
        elementary = reader
        elementaryInput = input
        codec = reader.codec
        container = reader.format == .annexB ? .annexB : .lengthPrefixed(lengthSize: reader.lengthSize ?? 4)
        outOfBandParameterSets = record?.parameterSets ?? []
    }

    /// The length size of length-prefixed or MP4 input.
    public var lengthSize: Int? {
        switch container {
        case .annexB: nil
        case .lengthPrefixed(let size): size
        case .mp4: mp4?.track.lengthSize
        case .transportStream: nil
        }
    }

    /// Non-zero bytes before the first start code (Annex-B), after reading.
    public var leadingGarbageBytes: Int64 { elementary?.leadingGarbageBytes ?? transportElementary?.leadingGarbageBytes ?? 0 }

    /// What the transport stream's demultiplexer found so far (transport stream input).
    public var transportStream: TransportStreamSummary? {
        transportReader.map { TransportStreamSummary(reader: $0) }
    }

    /// The tracks or streams of the input that are not read: an MP4's other tracks, a transport
    /// stream's other elementary streams ("PID 0x101 (stream_type 0x0F, AAC audio)").
    public var otherTrackDescriptions: [String] {
        if let transportStream { return transportStream.otherStreams.map(\.description) }
        return otherTracks.map(\.description)
    }

    /// Frames per second the container's timing implies (an MP4 track's timescale over its
    /// first sample's duration), or `nil` (raw streams: see the SPS VUI).
    public func containerFrameRate() throws(NALUError) -> Rational? {
        return try NALUError.typed(field: "frame rate") {
            if let transportStream { return transportStream.frameRate }
            guard let mp4 else { return nil }
            var iterator = mp4.samples()
            guard let first = try iterator.next(), first.duration > 0 else { return nil }
            return Rational(Int64(mp4.track.timescale), Int64(first.duration)).reduced
        }
    }

    /// Calls `body` with every NAL unit in decoding order, once: offsets are the input's (for
    /// MP4, the file's). `sampleStarts` sees each MP4 sample before its NAL units.
    public func forEachNALUnit(sampleStarts: (MP4Sample) throws -> Void = { _ in },
                               _ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(sampleStarts: sampleStarts, beforeReuse: nil, body)
    }

    /// As ``forEachNALUnit(sampleStarts:_:)``; with a `beforeReuse` hook the views are lendable
    /// (``NALUnitView/isLendable``): the hook runs before the memory holding them is reused or
    /// freed, also when this throws.
    ///
    /// `damagedSample`: an MP4 sample whose NAL unit length field runs past its end goes there
    /// (the rest of the sample from that field, and the error) and the walk goes on with the
    /// next sample; `nil` ends the walk with the error.
    package func forEachNALUnit(sampleStarts: (MP4Sample) throws -> Void = { _ in }, beforeReuse: (() throws -> Void)?,
                                damagedSample: ((NALUnitView, NALUError) throws -> Void)? = nil,
                                _ body: (NALUnitView) throws -> Void) throws {
        if let mp4 {
            try mp4.forEachNALUnit(sampleStarts: sampleStarts, beforeReuse: beforeReuse, damagedSample: damagedSample, body)
        } else if var reader = elementary {
            elementary = nil
            defer { elementary = reader }
            try reader.forEachNALUnit(beforeReuse: beforeReuse, body)
        } else if var reader = transportElementary {
            transportElementary = nil
            defer { transportElementary = reader }
            try reader.forEachNALUnit(beforeReuse: beforeReuse, body)
        }
    }

    /// Readies the source to be read by one other thread with a ``NALU/BufferRetirement``
    /// (``forEachNALUnit(beforeReuse:retirement:_:)``), and says whether it can be: a raw
    /// Annex-B stream without out-of-band
    /// parameter sets, opened with ``MediaSourceOptions/readsAhead``, from a regular file (a
    /// read never waits for more bytes, so the thread always comes back: a caller that fails
    /// waits for it) whose input is not read ahead yet (its idle read-ahead is dropped: only the
    /// thread reading the NAL units reads the file).
    package func prepareToReadOnOneThread() -> Bool {
        guard readsAhead, let elementary, elementary.format == .annexB, outOfBandParameterSets.isEmpty,
              let elementaryInput, elementaryInput.isRegularFile else { return false }
        return elementaryInput.dropIdleReadAhead()
    }

    /// As ``forEachNALUnit(sampleStarts:beforeReuse:_:)`` for a source that
    /// ``prepareToReadOnOneThread()``: the reader's buffers go to `retirement`.
    package func forEachNALUnit(beforeReuse: @escaping () throws -> Void, retirement: any BufferRetirement,
                                _ body: (NALUnitView) throws -> Void) throws {
        guard var reader = elementary else { return }
        elementary = nil
        defer { elementary = reader }
        try reader.forEachNALUnit(beforeReuse: beforeReuse, retirement: retirement, body)
    }

    /// An access unit as ``forEachAccessUnit(_:)`` yields it.
    public struct AccessUnit: Sendable {
        /// Index, offset, size, keyframe class, picture type (``AccessUnitSplitter``).
        public var summary: AccessUnitSummary
        /// The MP4 sample that starts where the access unit does, if any.
        public var sample: MP4Sample?
        /// The PTS/DTS of the PES packet the access unit starts in (transport stream input;
        /// ISO/IEC 13818-1 2.4.3.7: the first access unit starting in a PES packet takes its time stamps).
        public var timestamps: PESTimestamps?
        /// The access unit's times in its track's timescale (``NALU/SampleTiming``): an MP4
        /// sample's, or a transport stream's PES time stamps unwrapped across 2^33 (90 kHz; the
        /// duration is the distance from the previous access unit's decoding time, which the
        /// next one's is not known yet). `nil` for an elementary stream (no times in it) and
        /// for an access unit the container gives no time.
        public var timing: SampleTiming?
    }

    /// Splits the stream into access units (H.264 7.4.1.2.3, H.265 7.4.2.4.4), the splitter
    /// knowing the out-of-band parameter sets. Memory is bounded: the last few MP4 sample starts
    /// are kept to match access units to samples.
    ///
    /// The calls come in stream order, grouped as the access units are: `nalUnit` sees each NAL
    /// unit, and `body` each access unit right after its last NAL unit's `nalUnit` call, before
    /// the next access unit's first (an access unit ends when the next one starts: `body` runs
    /// when that NAL unit arrives, before `nalUnit` sees it). So the NAL units `nalUnit` saw
    /// since the previous `body` call are exactly those of the access unit `body` gets:
    /// ``forEachCodedAccessUnit(maxAccessUnitBytes:damaged:_:)`` groups them so, with their
    /// bytes copied.
    ///
    /// - Parameter damaged: a NAL unit the splitter rejects (a header with `forbidden_zero_bit`
    ///   set, a slice header or parameter set that does not parse) comes here with the
    ///   splitter's error and the index of the access unit it was in. So does, for MP4 input,
    ///   the rest of a sample from a NAL unit length field that runs past the sample's end
    ///   (ISO/IEC 14496-15 5.3.2: the view starts at that field, with no prefix). The default
    ///   throws the error (the walk ends); a handler that returns leaves the unit out (neither
    ///   `nalUnit` nor an access unit sees it) and the walk goes on (with the next MP4 sample):
    ///   the splitter's state is that before the NAL unit (it rejects a unit before changing
    ///   anything), so the next units are split as if it were absent.
    /// - Returns: the parameter sets in force at the end.
    @discardableResult
    public func forEachAccessUnit(nalUnit: (NALUnitView, NALUnitHeader) throws -> Void = { _, _ in },
                                  damaged: (NALUnitView, NALUError, _ accessUnitIndex: Int) throws -> Void = { _, error, _ in throw error },
                                  _ body: (AccessUnit) throws -> Void) throws -> ParameterSetStore {
        var splitter = try splitter()
        var recent = SampleRing()
        let timescale = mp4?.track.timescale ?? 90_000
        var last: (decode: Int64, distance: Int64)?
        func accessUnit(_ summary: AccessUnitSummary) -> AccessUnit {
            let sample = recent.sample(at: summary.offset)
            let stamps = timestamps(at: summary.offset)
            var timing: SampleTiming?
            if let sample {
                timing = SampleTiming(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration), timescale: timescale)
            } else if let decodeRaw = stamps?.effectiveDecoding, let presentationRaw = stamps?.presentation ?? stamps?.effectiveDecoding {
                let decode = SampleClock.unwrap(decodeRaw, near: last?.decode ?? decodeRaw)
                let distance = last.map { decode &- $0.decode } ?? 0
                last = (decode, distance > 0 ? distance : last?.distance ?? 0)
                timing = SampleTiming(decode: decode, presentation: SampleClock.unwrap(presentationRaw, near: decode),
                                      duration: last?.distance ?? 0, timescale: timescale)
            }
            return AccessUnit(summary: summary, sample: sample, timestamps: stamps, timing: timing)
        }
        try withoutActuallyEscaping(damaged) { damaged in
            try forEachNALUnit(sampleStarts: { recent.add($0) }, beforeReuse: nil, damagedSample: { unit, error in
                try damaged(unit, error, splitter.current?.index ?? splitter.completedCount)
            }) { unit in
                let step: AccessUnitSplitter.Step
                do throws(NALUError) {
                    step = try splitter.push(unit)
                } catch {
                    try damaged(unit, error, splitter.current?.index ?? splitter.completedCount)
                    return
                }
                if let completed = step.completed { try body(accessUnit(completed)) }
                try nalUnit(unit, step.header)
            }
        }
        if let last = splitter.finish() { try body(accessUnit(last)) }
        return splitter.parameterSets
    }

    /// Copies a transport stream's video elementary stream — the PES payload of its PID, byte for
    /// byte, as `ffmpeg -i in.ts -map 0:v -c copy -f h264|hevc` writes it — to `sink`, once,
    /// instead of ``forEachNALUnit(sampleStarts:_:)``.
    /// - Returns: the bytes copied, or `nil` when the input is no transport stream.
    public func copyElementaryStream(to sink: inout some ByteSink) throws(NALUError) -> Int64? {
        return try NALUError.typed(field: "elementary stream") {
            guard let reader = transportReader, transportElementary != nil else { return nil }
            transportElementary = nil
            var source = ReplaySource(prefix: transportPrefix, source: reader)
            transportPrefix = []
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { chunk.deallocate() }
            var total: Int64 = 0
            while true {
                let count = try source.read(into: chunk)
                if count <= 0 { return total }
                try sink.write(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                total += Int64(count)
            }
        }
    }

    /// The time stamps of a transport stream's access unit at elementary-stream offset `offset`.
    /// The access unit's offset is that of its first start code, which may take a zero byte
    /// from the end of the previous PES packet (a 4-byte start code split 1 + 3): a PES packet
    /// starting up to 4 bytes after it is still the access unit's. No other access unit can start
    /// in those bytes (a start code and a NAL unit header are at least 5).
    private func timestamps(at offset: Int64) -> PESTimestamps? {
        transportReader?.demuxer.timestamps(forAccessUnitAt: offset + 4)
    }

    /// ``timestamps(at:)`` for a ``SampleClock``.
    func pesTimestamps(at offset: Int64) -> PESTimestamps? { timestamps(at: offset) }

    /// A splitter that knows the out-of-band parameter sets.
    public func splitter() throws(NALUError) -> AccessUnitSplitter {
        return try NALUError.typed(field: "access unit splitter") {
            var splitter = AccessUnitSplitter(codec: codec)
            for unit in outOfBandParameterSets { try splitter.addParameterSet(unit) }
            return splitter
        }
    }
}

/// The last few MP4 sample starts, in a fixed ring: an access unit completes when the next one
/// starts, so its sample is among the last two.
struct SampleRing {
    private var slots: [MP4Sample?] = Array(repeating: nil, count: 8)
    private var next = 0

    mutating func add(_ sample: MP4Sample) {
        slots[next] = sample
        next = (next + 1) % slots.count
    }

    func sample(at offset: Int64) -> MP4Sample? {
        slots.first { $0?.offset == offset } ?? nil
    }
}
