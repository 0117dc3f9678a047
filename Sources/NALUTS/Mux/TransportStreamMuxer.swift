public import NALU

/// Options of a ``TransportStreamMuxer``.
public struct TransportStreamMuxerOptions: Sendable {
    /// Frames per second; `nil` takes the SPS's VUI timing, and without one
    /// ``defaultFrameRate`` (``TransportStreamMuxerSummary/frameRateAssumed``).
    public var frameRate: Rational?
    /// Where parameter sets are written in band: before every keyframe by default, so a player
    /// can join at any random access point (``ParameterSetInsertion``).
    public var parameterSets: ParameterSetInsertion = .keyframes
    /// Where inserted parameter sets go (``ParameterSetPlacement``).
    public var placement: ParameterSetPlacement = .accessUnitStart
    /// PTS of the first picture in presentation order, in 90 kHz ticks (1.4 s: FFmpeg's start),
    /// raised where the reorder delay needs more so that no DTS or PCR falls below 0.
    public var firstPresentationTime: Int64 = 126_000
    /// Bytes of one access unit held in memory before the muxer gives up (``AccessUnitLimit``).
    public var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes
    /// The program layout (PIDs, PSI and PCR intervals); its stream types are set by the muxer.
    public var writer = TransportStreamWriterConfiguration(videoStreamType: .h264)

    /// The frame rate when neither the options nor the SPS give one.
    public static let defaultFrameRate = Rational(25, 1)

    public init(frameRate: Rational? = nil, parameterSets: ParameterSetInsertion = .keyframes) {
        self.frameRate = frameRate
        self.parameterSets = parameterSets
    }
}

/// What a ``TransportStreamMuxer`` wrote.
public struct TransportStreamMuxerSummary: Sendable, Hashable {
    public var writer: TransportStreamWriterSummary
    public var frameRate: Rational
    /// Whether ``frameRate`` is ``TransportStreamMuxerOptions/defaultFrameRate`` because neither
    /// the options nor the SPS gave one.
    public var frameRateAssumed: Bool
    /// PTS of the first picture in presentation order and DTS of the first in decoding order.
    public var firstPTS: Int64
    public var firstDTS: Int64
    /// The converter's counts: delimiters and parameter sets inserted.
    public var statistics: ConversionStatistics
    /// Non-picture NAL units after the last picture, which belong to no access unit and were dropped.
    public var trailingNALUnitsDropped: Int
}

/// Muxes an H.264/H.265 elementary stream into an MPEG-2 transport stream: NAL units in (from
/// an Annex-B reader, an MP4 track, any framing), 188-byte packets out through a
/// ``TransportStreamWriter``.
///
/// - The stream is written as Annex-B by ``LengthPrefixedToAnnexB`` with
///   ``AccessUnitDelimiterPolicy/insert`` (every access unit starts with a delimiter, H.264 7.4.1.2.3,
///   H.265 7.4.2.4.4; HLS wants them) and parameter sets in band before keyframes
///   (``TransportStreamMuxerOptions/parameterSets``), so MP4 and length-prefixed input, whose
///   sets are out of band, comes out decodable. One access unit is one PES packet.
/// - Timing is constant-frame-rate, as ``MP4Muxer`` does it: the access unit `d` in decoding
///   order decodes at `d` frame durations; its presentation index `p` comes from its picture
///   order count (``PictureOrderCounter``, ``PresentationOrderer``). With `R` the reorder limit
///   of the sequences so far (the most pictures the orderer lets wait), `d − p ≤ R`, so
///   PTS = origin + (p + R)·duration ≥ DTS = origin + d·duration. The origin puts the first PTS at
///   ``TransportStreamMuxerOptions/firstPresentationTime`` (more when `R` frames and the PCR
///   delay need it). Open GOPs come out right: the RASL pictures after a CRA present before it.
///   Timestamps are whole 90 kHz ticks of `index · 90000 / rate`, so 23.976 fps does not drift.
public final class TransportStreamMuxer<Sink: ByteSink> {
    public let codec: Codec
    public let options: TransportStreamMuxerOptions
    private var sink: Sink?
    private var writer: TransportStreamWriter<Sink>?
    private var audioStreams: [TransportStreamAudioStream] = []
    private var converter: LengthPrefixedToAnnexB
    /// Access units written by the converter, in decoding order, from `head`; those before were written.
    private var pending = PendingBytes()
    private var counter = PictureOrderCounter()
    private var currentPOC: PictureOrderCount?
    private var currentReorderLimit: Int?

    private var queue = ReorderQueue<QueuedAccessUnit>()
    /// The most pictures the orderer has let wait so far (the reorder shift, R).
    private var shift = 0
    private var trailingDropped = 0
    private var timing: Timing?
    /// Audio frames that came before the first picture gave the timing.
    private var earlyAudio: [(frame: [UInt8], time: Int64, timescale: Int64, stream: Int)] = []
    private var earlyAudioBytes = 0

    /// The source's times (``useSourceTiming(timescale:presentationOrigin:lookup:)``).
    private var sourceTiming: (timescale: UInt32, origin: Int64?, lookup: SampleTimingLookup)?
    /// Source-timed: the source time that presents at ``Timing/firstPTS``.
    private var sourceOrigin: Int64 = 0
    /// Source-timed: the offset of the first VCL NAL unit of the access unit being assembled.
    private var currentVCLOffset: Int64?
    /// Source-timed: the first and last decoding times written and the pictures between.
    private var timedSpan: (first: Int64, last: Int64, count: Int64)?

    private struct Timing {
        var rate: Rational
        var assumed: Bool
        /// DTS of the access unit with decode index 0 (90 kHz).
        var origin: Int64
        var firstPTS: Int64
    }

    /// - Parameters:
    ///   - outOfBandParameterSets: the parameter sets of an avcC/hvcC record (MP4 or
    ///     length-prefixed input), written in band before keyframes.
    ///   - declarativeSEI: an hvcC's prefix SEI NAL units, written after them.
    public init(codec: Codec, sink: Sink, options: TransportStreamMuxerOptions = TransportStreamMuxerOptions(),
                outOfBandParameterSets: [[UInt8]] = [], declarativeSEI: [[UInt8]] = []) throws(NALUError) {
        if let rate = options.frameRate { try Self.check(rate, fromVUI: false) }
        self.codec = codec
        self.options = options
        self.sink = sink
        let conversion = LengthPrefixedToAnnexB.Options(parameterSets: options.parameterSets, accessUnitDelimiters: .insert,
                                                        placement: options.placement, maxAccessUnitSize: options.maxAccessUnitSize)
        converter = try LengthPrefixedToAnnexB(codec: codec, options: conversion, outOfBandParameterSets: outOfBandParameterSets,
                                               declarativeSEI: declarativeSEI)
    }

    /// Called before each access unit is written with its DTS minus the first picture's PTS
    /// (90 kHz ticks; negative for the pictures decoded before it), and once with `nil` after
    /// the last: where a caller interleaves audio (``pushAudio(_:time:timescale:stream:)``) by time.
    /// Its error (a ``NALU/NALUError``: a closure that calls throwing code says
    /// `(time) throws(NALUError) in`) stops the push that called it and reaches that push's caller
    /// unchanged.
    public var willWriteVideo: ((_ decodeTimeFromStart: Int64?) throws(NALUError) -> Void)?

    /// Adds `feed` to ``willWriteVideo``: called after what was there (one feeder per audio stream).
    public func alsoBeforeVideo(_ feed: @escaping (_ decodeTimeFromStart: Int64?) throws(NALUError) -> Void) {
        let previous = willWriteVideo
        willWriteVideo = { (time) throws(NALUError) in
            try previous?(time)
            try feed(time)
        }
    }

    /// The writer's sink, once created (after the first access unit).
    public var output: Sink? { writer?.sink ?? sink }

    /// Adds an AAC stream (ADTS, stream type 0x0F) described by its AudioSpecificConfig (an MP4
    /// `esds` DecoderSpecificInfo). Call before the first NAL unit.
    /// - Returns: the stream's index for ``pushAudio(_:time:timescale:stream:)``.
    @discardableResult
    public func addAudio(audioSpecificConfig: [UInt8], language: String? = nil) throws(NALUError) -> Int {
        try addAudio(.aac(try ADTSHeader(audioSpecificConfig: audioSpecificConfig), language: language))
    }

    /// Adds an audio stream (AAC, AC-3, MPEG audio; its PID follows the previous one's). Call
    /// before the first NAL unit.
    /// - Returns: the stream's index for ``pushAudio(_:time:timescale:stream:)``.
    @discardableResult
    public func addAudio(_ stream: TransportStreamAudioStream) throws(NALUError) -> Int {
        guard sink != nil, queue.decodeCount == 0 else {
            throw NALUError(.invalidValue, field: "audio stream", detail: "added after the first picture")
        }
        guard audioStreams.count < TransportStreamWriterConfiguration.maxAudioStreams else {
            throw NALUError(.tooLarge, field: "audio streams", detail: "more than \(TransportStreamWriterConfiguration.maxAudioStreams)")
        }
        audioStreams.append(stream)
        return audioStreams.count - 1
    }

    /// The audio streams added.
    public var audio: [TransportStreamAudioStream] { audioStreams }

    /// Times every access unit from its source instead of a frame rate: `lookup` gives the
    /// ``NALU/SampleTiming`` (ticks of `1/timescale` s) of the access unit whose first NAL unit
    /// has the given offset. PTS and DTS are those times converted to 90 kHz (each rounded
    /// down on its own, so nothing drifts), shifted so that source time `presentationOrigin`
    /// presents at ``TransportStreamMuxerSummary/firstPTS`` (the time 0 of
    /// ``pushAudio(_:time:timescale:stream:)``: an MP4 input's edit `media_time`); `nil` takes the first
    /// access unit's presentation time. Pictures before the origin (an edit list hid them) keep
    /// their earlier times. Call before the first NAL unit. An access unit without times is refused.
    public func useSourceTiming(timescale: UInt32, presentationOrigin: Int64?, lookup: @escaping SampleTimingLookup) throws(NALUError) {
        guard timescale > 0 else { throw NALUError(.invalidValue, field: "timescale", detail: "0; must be positive") }
        guard writer == nil else { throw NALUError(.invalidValue, field: "timescale", detail: "source timing set after the first picture") }
        sourceTiming = (timescale, presentationOrigin, lookup)
    }

    /// Feeds the next NAL unit (escaped, header included) in decoding order.
    public func push(_ unit: NALUnitView) throws(NALUError) {
        let before = pending.bytes.count
        let step = try converter.push(unit, to: &pending)
        if let completed = step.completed { try complete(completed, from: before) }
        if step.isFirstVCL && sourceTiming != nil { currentVCLOffset = unit.offset }
        if step.isFirstVCL, let (poc, limit) = try converter.pictureOrderCount(after: step, counter: &counter, offset: unit.offset) {
            currentPOC = poc
            currentReorderLimit = limit
        }
        if codec.isEndOfSequence(firstByte: unit.firstByte) { counter.endOfSequence() }
    }

    /// Feeds a NAL unit held in an array.
    public func push(nalUnit: [UInt8]) throws(NALUError) {
        try NALUnitView.withNALUnit(nalUnit) { (unit) throws(NALUError) in try push(unit) }
    }

    /// Feeds one frame of audio stream `stream` (a raw AAC frame, no ADTS header; an AC-3 or
    /// MPEG audio frame whole) presented at `time` / `timescale` seconds from
    /// the start of the video (its first picture in presentation order). Frames come in time
    /// order, interleaved with the video by the caller (an MP4 reader's sample order). `time`
    /// may be negative (AAC priming before the first picture) down to the first PTS.
    /// - Throws: ``NALUError`` (typed): no such stream, a time out of range, a frame over the
    ///   access unit limit, the sink's error.
    public func pushAudio(_ rawFrame: UnsafeRawBufferPointer, time: Int64, timescale: Int64, stream: Int = 0) throws(NALUError) {
        guard audioStreams.indices.contains(stream) else { throw NALUError(.missing, field: "audio stream", detail: "\(stream): addAudio first") }
        guard timescale > 0, time > Int64.min else { throw NALUError(.invalidValue, field: "audio time", detail: "\(time)/\(timescale)") }
        guard let writer, let timing else {
            guard rawFrame.count <= options.maxAccessUnitSize - earlyAudioBytes else {
                throw AccessUnitLimit.error(limit: options.maxAccessUnitSize, at: 0)
            }
            earlyAudio.append((Array(rawFrame), time, timescale, stream))
            earlyAudioBytes += rawFrame.count
            return
        }
        let offset = try Self.ticks(abs(time), numerator: 90_000, denominator: timescale)
        let pts = time >= 0 ? timing.firstPTS + offset : timing.firstPTS - offset
        guard pts >= 0 else { throw NALUError(.invalidValue, field: "audio time", detail: "\(time)/\(timescale) is before the stream's start") }
        try writer.writeAudio(rawFrame, pts: pts, stream: stream)
    }

    /// Writes what is left.
    @discardableResult
    public func finish() throws(NALUError) -> TransportStreamMuxerSummary {
        let before = pending.bytes.count
        if let last = try converter.finish(to: &pending) { try complete(last, from: before) }
        queue.flush()
        try drain()
        if writer != nil { try willWriteVideo?(nil) }
        guard let writer, let timing else {
            throw NALUError(.missing, field: "access unit", detail: "the stream has no picture")
        }
        let summary = try writer.finish()
        var rate = timing.rate
        if let span = timedSpan, let sourceTiming, span.count > 1, span.last > span.first {
            // The average rate of the source's times.
            let (ticks, overflow) = (span.count - 1).multipliedReportingOverflow(by: Int64(sourceTiming.timescale))
            if !overflow { rate = Rational(ticks, span.last - span.first).reduced }
        }
        return TransportStreamMuxerSummary(writer: summary, frameRate: rate, frameRateAssumed: timing.assumed,
                                           firstPTS: timing.firstPTS, firstDTS: timing.origin, statistics: converter.statistics,
                                           trailingNALUnitsDropped: trailingDropped)
    }

    // MARK: - Access units

    /// The access unit `summary`, written to `pending` from `start` on, is complete.
    private func complete(_ summary: AccessUnitSummary, from start: Int) throws(NALUError) {
        defer {
            currentPOC = nil
            currentReorderLimit = nil
            currentVCLOffset = nil
        }
        guard summary.vclNALUnitCount > 0 else {
            // Non-picture NAL units at the end of the stream (the splitter starts an access
            // unit only after a picture): nothing to carry them.
            trailingDropped += summary.nalUnitCount
            pending.bytes.removeSubrange(start...)
            return
        }
        let size = pending.bytes.count - start
        if let sourceTiming {
            guard let times = sourceTiming.lookup(currentVCLOffset ?? summary.offset) else {
                throw NALUError(.missing, field: "sample time", byteOffset: summary.offset,
                                detail: "access unit \(summary.index) has no time in the source")
            }
            if writer == nil { try createWriter(firstTimes: times) }
            return try writeTimed(size: size, times: times, randomAccess: summary.keyframe != nil)
        }
        if writer == nil { try createWriter() }
        queue.append(QueuedAccessUnit(randomAccess: summary.keyframe != nil, shift: shift), size: size, poc: currentPOC,
                     reorderLimit: currentReorderLimit, maxBytes: options.maxAccessUnitSize)
        // The reorder shift when this picture was decoded: the most the orderer has let wait so far.
        shift = max(shift, queue.window)
        queue.updateLast { $0.shift = shift }
        try drain()
    }

    /// Source-timed: writes the access unit just completed (the only one pending).
    private func writeTimed(size: Int, times: SampleTiming, randomAccess: Bool) throws(NALUError) {
        guard let writer, let timing else { return }
        let dts = timing.firstPTS + (try Self.ninetyKilohertz(times.decode, origin: sourceOrigin, timescale: times.timescale))
        let pts = timing.firstPTS + (try Self.ninetyKilohertz(times.presentation, origin: sourceOrigin, timescale: times.timescale))
        guard dts >= 0, pts >= dts else {
            throw NALUError(.invalidValue, field: "PTS", detail: "presentation time \(times.presentation) before decoding time \(times.decode) or before the stream's start")
        }
        try willWriteVideo?(dts - timing.firstPTS)
        let start = pending.head
        try pending.bytes.withBytes { (bytes) throws(NALUError) in
            try writer.writeVideo(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]), pts: pts, dts: dts, randomAccess: randomAccess)
        }
        timedSpan = (timedSpan?.first ?? times.decode, times.decode, (timedSpan?.count ?? 0) + 1)
        pending.head += size
        pending.compact()
    }

    /// `(time − origin) · 90000 / timescale`, rounded toward minus infinity.
    static func ninetyKilohertz(_ time: Int64, origin: Int64, timescale: UInt32) throws(NALUError) -> Int64 {
        let (difference, overflow1) = time.subtractingReportingOverflow(origin)
        let (product, overflow2) = difference.multipliedReportingOverflow(by: 90_000)
        guard !overflow1, !overflow2, timescale > 0 else {
            throw NALUError(.doesNotFit, field: "timestamp", detail: "\(time) − \(origin) at timescale \(timescale) in 90 kHz")
        }
        let scale = Int64(timescale)
        let quotient = product / scale
        return product % scale < 0 ? quotient - 1 : quotient
    }

    /// Writes the access units at the head of the queue whose presentation index is known.
    private func drain() throws(NALUError) {
        guard let writer, let timing else { return }
        var written = 0
        while let (entry, decodeIndex, presentation) = queue.ready(written) {
            let unit = entry.element
            let dts = timing.origin + (try Self.ticks(Int64(decodeIndex), numerator: 90_000 * timing.rate.denominator,
                                                      denominator: timing.rate.numerator))
            let pts = timing.origin + (try Self.ticks(Int64(presentation + unit.shift), numerator: 90_000 * timing.rate.denominator,
                                                      denominator: timing.rate.numerator))
            try willWriteVideo?(dts - timing.firstPTS)
            let start = pending.head
            try pending.bytes.withBytes { (bytes) throws(NALUError) in
                try writer.writeVideo(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + entry.size)]), pts: pts, dts: dts,
                                      randomAccess: unit.randomAccess)
            }
            pending.head += entry.size
            written += 1
        }
        queue.removeFirst(written)
        pending.compact()
    }

    /// Creates the writer at the first picture: the frame rate, the timestamp origin, and the
    /// audio that waited for them.
    private func createWriter(firstTimes: SampleTiming? = nil) throws(NALUError) {
        guard let sink else { return }
        if let sourceTiming, let firstTimes {
            // The origin presents at firstPTS; the first DTS stays at or after the PCR delay.
            sourceOrigin = sourceTiming.origin ?? firstTimes.presentation
            let lead = try Self.ninetyKilohertz(sourceOrigin, origin: firstTimes.decode, timescale: sourceTiming.timescale)
            let firstPTS = max(options.firstPresentationTime, lead + options.writer.pcrDelay)
            let duration = max(1, min(firstTimes.duration, Int64(Int32.max)))
            timing = Timing(rate: Rational(Int64(sourceTiming.timescale), duration).reduced, assumed: false, origin: firstPTS - lead, firstPTS: firstPTS)
            return try startWriter(sink)
        }
        var rate = options.frameRate
        var assumed = false
        if rate == nil, let vui = converter.parameterSets.streamDescription?.frameRate {
            try Self.check(vui, fromVUI: true)
            rate = vui
        }
        if rate == nil {
            rate = TransportStreamMuxerOptions.defaultFrameRate
            assumed = true
        }
        guard let rate = rate?.reduced else { return }
        // The first sequence's reorder limit, known from its SPS now.
        let reorder = Int64(min(16, max(0, currentReorderLimit ?? 16)))
        let shiftTicks = try Self.ticks(reorder, numerator: 90_000 * rate.denominator, denominator: rate.numerator)
        let firstPTS = max(options.firstPresentationTime, shiftTicks + options.writer.pcrDelay)
        timing = Timing(rate: rate, assumed: assumed, origin: firstPTS - shiftTicks, firstPTS: firstPTS)
        // The window the orderer starts with is this limit: the shift starts there.
        shift = Int(reorder)
        try startWriter(sink)
    }

    /// Creates the writer on `sink` and writes the audio that waited for the timing.
    private func startWriter(_ sink: Sink) throws(NALUError) {
        self.sink = nil
        var configuration = options.writer
        configuration.videoStreamType = codec == .h264 ? .h264 : .hevc
        configuration.audioStreams = audioStreams
        let writer = try TransportStreamWriter(sink: sink, configuration: configuration)
        self.writer = writer
        for item in earlyAudio {
            try item.frame.withBytes { (frame) throws(NALUError) in try pushAudio(frame, time: item.time, timescale: item.timescale, stream: item.stream) }
        }
        earlyAudio = []
        earlyAudioBytes = 0
    }

    /// `value · numerator / denominator`, rounded down (all three non-negative), or an error when
    /// the product does not fit 63 bits.
    static func ticks(_ value: Int64, numerator: Int64, denominator: Int64) throws(NALUError) -> Int64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: numerator)
        guard !overflow, value >= 0, numerator >= 0, denominator > 0 else {
            throw NALUError(.doesNotFit, field: "timestamp", detail: "\(value) × \(numerator) / \(denominator)")
        }
        return product / denominator
    }

    /// A frame rate the timestamps can take: 0.01–1000 fps, 31-bit terms.
    private static func check(_ rate: Rational, fromVUI: Bool) throws(NALUError) {
        let reduced = rate.reduced
        guard reduced.numerator > 0, reduced.denominator > 0, reduced.numerator <= Int64(Int32.max), reduced.denominator <= Int64(Int32.max),
              reduced.numerator * 100 >= reduced.denominator, reduced.numerator <= reduced.denominator * 1000 else {
            throw NALUError(.invalidValue, field: "frame rate",
                            detail: "\(rate.numerator)/\(rate.denominator)\(fromVUI ? " from the SPS VUI" : "") is outside 0.01–1000 fps; give the frame rate (--fps)")
        }
    }
}

/// What the muxer keeps of an access unit waiting in its reorder queue (its bytes, `size` of the
/// queue entry, follow the previous one's in `pending`).
private struct QueuedAccessUnit {
    var randomAccess: Bool
    /// The reorder shift when it was decoded.
    var shift: Int
}

/// The converter's output: access units back to back, the first `head` bytes already written.
private struct PendingBytes: ByteSink {
    var bytes: [UInt8] = []
    var head = 0

    init() { bytes.reserveCapacity(1 << 20) }

    mutating func write(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer.assumingMemoryBound(to: UInt8.self))
    }

    /// Drops the written bytes: all when nothing is left (no copy), else once the written part
    /// is at least as large as the live one (each byte moves about once: linear).
    mutating func compact() {
        guard head > 0 else { return }
        let live = bytes.count - head
        if live == 0 {
            bytes.removeAll(keepingCapacity: true)
        } else if head >= 64 << 10, head >= live {
            bytes.removeSubrange(0..<head)
        } else {
            return
        }
        head = 0
    }
}
