public import NALU
public import NALUEncoder
import NALUIO
import NALUMP4
public import NALUMedia
import NALUTS

/// MPEG-TS output of a transcode (``ExportSession``, `nalu encode -o out.ts`; ISO/IEC 13818-1): the encoder's
/// access units as one PES packet each through ``NALUTS/TransportStreamMuxer``.
///
/// From a compressed input every picture keeps its source pts (variable frame rates included:
/// ``NALUTS/TransportStreamMuxer/useSourceTiming(timescale:presentationOrigin:lookup:)``), and
/// every audio stream of the input is carried in sync, as `nalu convert` (and ffmpeg's
/// `-map 0 -c:a copy -f mpegts`) carries it, each with its coding, `stream_type` and language
/// (ISO 639 descriptor): an MP4/MOV input's AAC, AC-3 and MPEG audio tracks
/// (``NALUMedia/MediaSource/transportStreamAudioTracks()``, ``NALUMedia/TransportStreamAudioFeeder``),
/// a transport stream input's AAC, AC-3 and MPEG audio streams at their own PTS
/// (``NALUMedia/TransportStreamToTransportStreamAudioFeeder``), all cut to `--start/--end`. Raw, Y4M and test-pattern input (or `-r`) is timed at the frame rate.
public final class TimedTransportStreamOutput {
    private let file: FileSink
    private let muxer: TransportStreamMuxer<FileSink>
    /// The packets' NAL units into the muxer, their times (source timing only) kept until it
    /// looks them up.
    private let packets = TimedPacketFeed()
    private let timescale: UInt32?
    /// Each audio stream's frames pushed so far (for the summary and tests), read at the end.
    private var counts: [() -> Int] = []

    /// The tracks carried (for ``NALUMedia/MediaSource/tracksLeftOut(carried:noAudio:to:)``).
    public private(set) var carried: Set<UInt32> = []

    /// - Parameters:
    ///   - timestamped: 192-byte packets with arrival time stamps (M2TS).
    ///   - frameRate: the constant rate of uncompressed input (or `-r`); ignored with `timeBase`.
    ///   - timeBase: the packets' time base (1/timescale of an MP4 track, 1/90000 for TS): the
    ///     source's times kept; `nil` for a constant rate.
    ///   - source: the compressed input whose audio is carried.
    ///   - keptRange: the source pts kept (`--start/--end`), ticks of `timeBase`.
    ///   - copyAudio: whether the input's audio is carried.
    /// - Throws: ``NALU/NALUError`` from creating the output or reading the input's audio.
    public init(path: String, codec: Codec, timestamped: Bool, maxAccessUnitSize: Int, frameRate: Rational,
         timeBase: Rational?, source: MediaSource?, keptRange: Range<Int64>?, copyAudio: Bool) throws(NALUError) {
        do {
            var options = TransportStreamMuxerOptions(frameRate: timeBase == nil ? frameRate : nil)
            options.maxAccessUnitSize = maxAccessUnitSize
            options.writer.timestampedPackets = timestamped
            file = try FileSink(path: path)
            muxer = try TransportStreamMuxer(codec: codec, sink: file, options: options)
            guard let timeBase, let source else {
                timescale = nil
                return
            }
            guard timeBase.numerator == 1, timeBase.denominator > 0, timeBase.denominator <= Int64(UInt32.max) else {
                throw NALUError(.invalidValue, field: "timeBase", detail: "\(timeBase): not 1/N with N in 32 bits")
            }
            let scale = UInt32(timeBase.denominator)
            timescale = scale
            // Time 0 of the audio: where the video's first picture presents (the range's start, an
            // MP4's first edit, a transport stream's first picture).
            let videoOrigin = source.mp4 == nil ? nil : try source.videoMediaOrigin()
            let origin: Int64? = keptRange?.lowerBound ?? videoOrigin ?? source.transportStreamVideoStart
            try muxer.useSourceTiming(timescale: scale, presentationOrigin: origin,
                                      lookup: { [weak self] offset in self?.packets.timing(at: offset) })
            guard copyAudio else { return }
            if let video = source.mp4 {
                // Every sound track of an MP4/MOV input a transport stream carries, each its own stream.
                for track in try source.transportStreamAudioTracks() {
                    let stream = try muxer.addAudio(track.stream)
                    let feeder: TransportStreamAudioFeeder
                    if let keptRange {
                        // The samples overlapping the range, timed from its start.
                        let audioScale = Int64(track.reader.track.timescale)
                        let audioOrigin = track.reader.track.presentationStart.mediaTime
                        let aligned = try source.videoTime(alignedWith: track.reader.track)
                        let low = rescale(keptRange.lowerBound &- aligned, from: Int64(scale), to: audioScale) &+ audioOrigin
                        let cut = try TimedMP4Output.cut(track.reader, presented: keptRange, videoTimescale: scale, videoOrigin: aligned,
                                                         movieTimescale: video.track.movieTimescale)
                        feeder = TransportStreamAudioFeeder(reader: track.reader, movieTimescale: video.track.movieTimescale, videoDelay: 0,
                                                            decodeTimes: cut?.range ?? 0..<0, origin: low, stream: stream)
                    } else {
                        feeder = TransportStreamAudioFeeder(reader: track.reader, movieTimescale: video.track.movieTimescale,
                                                            videoDelay: editListStart(video.track.editList).delay, stream: stream)
                    }
                    feeder.attach(to: muxer)
                    counts.append { feeder.pushedFrames }
                    carried.insert(track.reader.track.trackID)
                }
            } else {
                // Every audio stream of a transport stream input at its own PTS, against the same origin as the video.
                for audio in try source.transportStreamAudioStreams() {
                    let stream = try muxer.addAudio(try audio.transportStreamStream())
                    let feeder = TransportStreamToTransportStreamAudioFeeder(reader: audio, origin: origin ?? audio.origin(in: source), range: keptRange,
                                                                             stream: stream)
                    feeder.attach(to: muxer)
                    counts.append { feeder.pushedFrames }
                    carried.insert(UInt32(audio.pid) | 0x1_0000)
                }
            }
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Writes one encoded access unit (Annex-B) with its times.
    /// - Throws: ``NALU/NALUError`` from muxing or writing.
    public func write(_ packet: EncodedPacket) throws(NALUError) {
        do {
            try packets.feed(packet, timescale: timescale) { try muxer.push($0) }
        } catch {
            throw NALUError.converting(error, field: file.path)
        }
    }

    /// Writes what is left and renames the file into place; the audio frames carried (all
    /// streams). `beforeCommit` runs once everything is written, before the rename (a cancellation).
    /// - Throws: the muxer's `NALUError`, or what `beforeCommit` throws as thrown (untyped for it, as
    ///   ``EncodePipeline/encode(_:)`` is).
    @discardableResult
    public func finish(beforeCommit: () throws -> Void = {}) throws -> Int {
        try muxer.finish()
        try beforeCommit()
        try file.commit()
        return audioFrames.reduce(0, +)
    }

    /// The frames pushed so far into each audio stream, in stream order.
    public var audioFrames: [Int] { counts.map { $0() } }

    /// Abandons the output: the temporary file is removed, nothing is renamed into place.
    public func discard() { file.discard() }
}
