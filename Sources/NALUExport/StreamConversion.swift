public import NALU
public import NALUIO
public import NALUMP4
public import NALUMedia
import NALUTS

/// The output framing of a ``StreamConversion``.
public enum ConversionFormat: String, Sendable, CaseIterable {
    /// Annex-B byte stream.
    case annexb
    /// Length-prefixed NAL units (AVCC/HVCC), the record written apart.
    case avcc
    /// MP4/MOV.
    case mp4
    /// MPEG-2 transport stream, 188-byte packets.
    case ts
    /// MPEG-2 transport stream, 192-byte packets with arrival time stamps (Blu-ray/AVCHD).
    case m2ts

    /// Whether this is a transport stream.
    public var isTransportStream: Bool { self == .ts || self == .m2ts }
}

/// How ``StreamConversion`` writes: the choices of `nalu convert`.
public struct ConversionSettings: Sendable {
    /// The output framing.
    public var format: ConversionFormat
    /// Access unit delimiters: keep, strip, or (Annex-B) insert where missing.
    public var accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep
    /// Where parameter sets are written in band (Annex-B, MPEG-TS).
    public var parameterSets: ParameterSetInsertion = .keyframes
    /// Bytes per NAL length of `.avcc` output (default 4).
    public var lengthSize: Int?
    /// `.avcc`: keep the parameter sets in band as well as in the record (avc3/hev1 use).
    public var keepsParameterSets = false
    /// `.avcc`: the record is wanted apart (``ConversionResult/record``); without it the sets
    /// stay in band, with a note.
    public var writesRecord = false
    /// MP4 output: the muxer's options (sample entry, layout, access unit size limit); the
    /// frame rate and the movie metadata are set from ``frameRate`` and the source.
    public var mp4: MP4MuxerOptions = MP4MuxerOptions()
    /// MP4 and MPEG-TS output: frames per second (`nil`: the input's own times, else the
    /// container's or the SPS VUI's rate).
    public var frameRate: Rational?
    /// The largest access unit held in memory.
    public var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes
    /// Whether the audio tracks go along (MP4 and MPEG-TS output).
    public var carriesAudio = true

    /// Settings for `format` output with the defaults of `nalu convert`.
    public init(format: ConversionFormat) { self.format = format }
}

/// What a ``StreamConversion`` did.
public struct ConversionResult {
    /// The sink's report (statistics, the MP4 or MPEG-TS summary, the record, notes).
    public var report: MediaSinkReport
    /// Notes to show before the sink's (`report.notes`): what the settings left in band.
    public var notes: [String]
    /// Lines saying what was done (`nalu convert --verbose`), without the `nalu: ` prefix.
    public var summary: [String]
}

/// One input converted to another framing or container, streaming: Annex-B ⇄ length-prefixed
/// ⇄ MP4, and to MPEG-TS, with the other tracks an output can hold (``carriedTrackIDs``). What
/// `nalu convert` does; ``run(output:)`` writes, the caller commits the output.
///
/// ```swift
/// let source = try MediaSource(path: "in.mp4")
/// let conversion = try StreamConversion(source: source, outputPath: "out.ts", settings: ConversionSettings(format: .ts))
/// let output = try FileSink(path: "out.ts")
/// _ = try conversion.run(output: output)
/// try output.commit()
/// ```
public final class StreamConversion {
    private let source: MediaSource
    private let outputPath: String
    private let settings: ConversionSettings
    private var passthrough: [MP4TrackReader<AnyRandomAccessSource>] = []
    private var movieTimescale: UInt32?
    private let tsAudio: [TransportStreamAudioTrack]
    private let tsInputAudio: [TransportStreamAudioReader]
    /// The tracks of the input the output carries beside the video (MP4 track IDs; a
    /// transport stream's PIDs plus 0x1_0000), for ``NALUExport/CarriedTracks``'s accounting
    /// of what is left out.
    public let carriedTrackIDs: Set<UInt32>

    /// Chooses the tracks `settings.format` carries from `source`: MP4 to MP4 every other track
    /// but other video (and the audio unless ``ConversionSettings/carriesAudio`` is false); to
    /// MPEG-TS every AAC, AC-3 and MPEG audio track; an MPEG-TS input's audio streams to MP4 and
    /// MPEG-TS.
    /// - Throws: ``NALUError`` reading the input's tracks.
    public init(source: MediaSource, outputPath: String, settings: ConversionSettings) throws(NALUError) {
        do {
            self.source = source
            self.outputPath = outputPath
            self.settings = settings
            let to = settings.format
            if to == .mp4, let copied = try source.passthroughTracks(audio: settings.carriesAudio) {
                passthrough = copied.tracks
                // Without other tracks the movie keeps the video's timescale, as before.
                movieTimescale = copied.tracks.isEmpty ? nil : copied.movieTimescale
            }
            tsAudio = to.isTransportStream && settings.carriesAudio ? try source.transportStreamAudioTracks() : []
            // Each read by a pass of its own.
            tsInputAudio = (to == .mp4 || to.isTransportStream) && settings.carriesAudio ? try source.transportStreamAudioStreams() : []
            var carried = Set(passthrough.map(\.track.trackID) + tsAudio.map(\.reader.track.trackID))
            for audio in tsInputAudio { carried.insert(UInt32(audio.pid) | 0x1_0000) }
            carriedTrackIDs = carried
        } catch {
            throw NALUError.converting(error, field: outputPath)
        }
    }

    /// Writes the output to `output` (not committed).
    /// - Throws: ``NALUError`` from reading and writing.
    public func run(output file: FileSink) throws(NALUError) -> ConversionResult {
        do {
            let to = settings.format
            var notes: [String] = []
            // Without a record wanted apart, the record has nowhere to go: the sets stay in band.
            let keepInBand = settings.keepsParameterSets || (to == .avcc && !settings.writesRecord)
            if to == .avcc && !settings.keepsParameterSets && !settings.writesRecord {
                notes.append("the parameter sets stay in band (no --extradata-out); give --extradata-out FILE to move them to an avcC/hvcC record")
            }
            let from = source.container.isMP4 ? "\(source.container) \(source.mp4?.track.sampleEntryType.rawValue ?? "")" : "\(source.container) \(source.codec)"
            // MPEG-TS → Annex-B with the default policies: the PES payload as it is (ffmpeg's -c copy).
            if to == .annexb && settings.accessUnitDelimiters == .keep && settings.parameterSets == .keyframes && source.container.isTransportStream {
                var sink = file
                let bytes = try source.copyElementaryStream(to: &sink) ?? 0
                return ConversionResult(report: MediaSinkReport(), notes: notes,
                                        summary: ["\(source.container) \(source.codec) → annexb, \(bytes) bytes of PES payload copied"])
            }
            let delimiters: AccessUnitDelimiterPolicy = settings.accessUnitDelimiters == .strip ? .strip : .keep
            let sink: any MediaSink = switch to {
            case .annexb:
                try AnnexBSink(for: source, output: file, parameterSets: settings.parameterSets, accessUnitDelimiters: settings.accessUnitDelimiters,
                               maxAccessUnitSize: settings.maxAccessUnitSize)
            case .avcc:
                try {
                    let sink = try LengthPrefixedSink(codec: source.codec, output: file,
                                                      options: .init(lengthSize: settings.lengthSize ?? 4, keepParameterSets: keepInBand,
                                                                     accessUnitDelimiters: delimiters),
                                                      outOfBandParameterSets: source.outOfBandParameterSets)
                    // Sets kept in band must be in the stream: an MP4's or --extradata's go first.
                    if keepInBand { try sink.writeInBand(source.outOfBandParameterSets) }
                    return sink
                }()
            case .mp4:
                try {
                    var options = settings.mp4
                    options.frameRate = try frameRate()
                    options.accessUnitDelimiters = delimiters
                    options.metadata = try outputMetadata(from: source, output: outputPath)
                    if !tsInputAudio.isEmpty {
                        return try MP4FileSink(for: source, output: file, options: options, transportStreamAudio: tsInputAudio)
                    }
                    return try MP4FileSink(for: source, output: file, options: options, passthrough: passthrough, movieTimescale: movieTimescale)
                }()
            case .ts, .m2ts:
                try {
                    var options = TransportStreamMuxerOptions(frameRate: try frameRate(), parameterSets: settings.parameterSets)
                    options.maxAccessUnitSize = settings.maxAccessUnitSize
                    options.writer.timestampedPackets = to == .m2ts
                    let sink = try TransportStreamSink(for: source, output: file, options: options)
                    try sink.carry(tsAudio, of: source)
                    for audio in tsInputAudio { try sink.carry(audio, of: source) }
                    return sink
                }()
            }
            let result = try sink.write(source)
            var summary: [String] = []
            if let mp4 = result.mp4 {
                summary.append(Self.summary(mp4, from: from, layout: settings.mp4.layout,
                                       copied: zip(passthrough, (sink as? MP4FileSink)?.passthrough?.appendedSamples ?? []).map {
                    "track \($0.track.trackID) (\($0.track.handler), \($0.track.sampleEntryType?.description ?? "?")): \($1) samples copied"
                }))
            }
            if let transportStream = result.transportStream {
                let tsSink = sink as? TransportStreamSink<FileSink>
                let frames = (tsSink?.mp4Audio.map(\.pushedFrames) ?? []) + (tsSink?.carriedAudio.map(\.pushedFrames) ?? [])
                let audio = frames.isEmpty ? nil : frames.map { "\($0) audio frames" }.joined(separator: ", ")
                summary.append(Self.summary(transportStream, from: from, m2ts: to == .m2ts, audio: audio))
            } else if let statistics = result.statistics {
                summary.append(Self.summary(statistics, from: from, to: to))
            }
            return ConversionResult(report: result, notes: notes, summary: summary)
        } catch {
            throw NALUError.converting(error, field: file.path)
        }
    }

    /// The frame rate MP4 and MPEG-TS output are timed at: the setting, else none for an input
    /// with its own times (MP4/MOV, MPEG-TS: they are kept, ``NALUMedia/SampleClock``), else the
    /// container's or (`nil`) the SPS VUI's.
    private func frameRate() throws -> Rational? {
        if let rate = settings.frameRate { return rate }
        return source.sampleClock() == nil ? try source.containerFrameRate() : nil
    }

    private static func summary(_ summary: MP4MuxerSummary, from: String, layout: MP4Layout, copied: [String]) -> String {
        var parts = ["\(from) → MP4 \(summary.sampleEntry) (\(layout.rawValue))",
                     "\(summary.writer.samples) samples, \(summary.writer.syncSamples) sync",
                     "\(summary.frameRate) fps, timescale \(summary.timescale)"]
        if let shift = summary.writer.editMediaTime { parts.append("edit list media_time \(shift)") }
        if summary.parameterSetsKeptInBand > 0 { parts.append("\(summary.parameterSetsKeptInBand) parameter sets kept in band") }
        if summary.sampleDescriptions > 1 { parts.append("\(summary.sampleDescriptions) sample entries (the parameter sets change)") }
        parts += copied
        return parts.joined(separator: ", ")
    }

    private static func summary(_ summary: TransportStreamMuxerSummary, from: String, m2ts: Bool, audio: String?) -> String {
        var parts = ["\(from) → MPEG-TS\(m2ts ? " (M2TS)" : "")",
                     "\(summary.writer.videoAccessUnits) access units, \(summary.writer.randomAccessPoints) random access",
                     "\(summary.frameRate) fps\(summary.frameRateAssumed ? " (assumed)" : "")",
                     "first PTS \(summary.firstPTS), DTS \(summary.firstDTS)",
                     "\(summary.writer.packets) packets, \(summary.writer.programTables) PAT/PMT"]
        if summary.statistics.delimitersInserted > 0 { parts.append("\(summary.statistics.delimitersInserted) AUDs inserted") }
        if summary.statistics.parameterSetsInserted > 0 { parts.append("\(summary.statistics.parameterSetsInserted) parameter sets inserted") }
        if let audio { parts.append(audio) }
        return parts.joined(separator: ", ")
    }

    private static func summary(_ statistics: ConversionStatistics, from: String, to: ConversionFormat) -> String {
        var parts = ["\(from) → \(to.rawValue)",
                     "\(statistics.nalUnitsIn) NAL units in, \(statistics.nalUnitsOut) out"]
        if statistics.accessUnits > 0 { parts.append("\(statistics.accessUnits) access units") }
        if statistics.parameterSetsRemoved > 0 { parts.append("\(statistics.parameterSetsRemoved) parameter sets moved to the record") }
        if statistics.parameterSetsInserted > 0 { parts.append("\(statistics.parameterSetsInserted) parameter sets inserted") }
        if statistics.parameterSetUpdates > 0 { parts.append("\(statistics.parameterSetUpdates) parameter set updates kept in band") }
        if statistics.delimitersStripped > 0 { parts.append("\(statistics.delimitersStripped) AUDs stripped") }
        if statistics.delimitersInserted > 0 { parts.append("\(statistics.delimitersInserted) AUDs inserted") }
        return parts.joined(separator: ", ")
    }
}

extension ConversionSettings {
    /// Refuses settings that do not go together for ``format`` (what `nalu convert` refuses
    /// before reading): a record or in-band copies of the parameter sets for Annex-B, delimiter
    /// insertion or parameter set placement for length-prefixed output, MP4 layout or sample
    /// entry choices and a frame rate for elementary output, and the choices MPEG-TS and MP4
    /// make themselves (a delimiter per access unit, in-band sets, their own NAL lengths).
    /// - Throws: ``NALU/NALUError/Code/invalidValue``, the field naming the first option
    ///   concerned and the detail the whole sentence, in the command line's option names.
    public func validate() throws(NALUError) {
        func refuse(_ field: String, _ sentence: String) -> NALUError { NALUError(.invalidValue, field: field, detail: sentence) }
        let mp4Chosen = mp4.layout != MP4MuxerOptions().layout || mp4.sampleEntry != nil
        if format == .annexb && writesRecord { throw refuse("--extradata-out", "--extradata-out goes with --to avcc.") }
        if format == .avcc && accessUnitDelimiters == .insert { throw refuse("--aud", "--aud insert goes with --to annexb.") }
        if format == .avcc && parameterSets != .keyframes { throw refuse("--parameter-sets", "--parameter-sets goes with --to annexb.") }
        if format == .annexb && keepsParameterSets { throw refuse("--keep-parameter-sets", "--keep-parameter-sets goes with --to avcc.") }
        if format != .mp4 && (mp4Chosen || (frameRate != nil && !format.isTransportStream)) {
            throw refuse("--fps", "--fps, --faststart, --fragmented and --sample-entry go with --to mp4 (--fps also with --to ts).")
        }
        if format.isTransportStream && (keepsParameterSets || writesRecord || accessUnitDelimiters == .strip || lengthSize != nil) {
            throw refuse("--to", "--to ts writes an access unit delimiter in every access unit and parameter sets in band (--parameter-sets); not --aud strip, --keep-parameter-sets, --extradata-out, --length-size.")
        }
        if format == .mp4 && (keepsParameterSets || writesRecord || parameterSets != .keyframes || accessUnitDelimiters == .insert || lengthSize != nil) {
            throw refuse("--to", "--to mp4 takes --sample-entry avc3/hev1 for in-band parameter sets and --aud keep|strip; not --keep-parameter-sets, --extradata-out, --parameter-sets, --length-size.")
        }
    }
}
