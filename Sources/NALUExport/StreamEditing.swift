public import NALU
public import NALUIO
public import NALUMP4
public import NALUMedia
import NALUTS

extension ConversionFormat {
    /// What this output carries beside the video.
    public var carriageTarget: CarriageTarget {
        switch self {
        case .mp4: .mp4
        case .ts, .m2ts: .transportStream
        case .annexb, .avcc: .elementaryStream
        }
    }
}

/// What a ``StreamEditing`` did.
public struct StreamEditResult {
    /// The sink's report (statistics, the record, notes).
    public var report: MediaSinkReport
    /// The editor's counts.
    public var statistics: StreamEditStatistics
    /// Warnings, each naming its option (`--level: …`, `--sei: …`).
    public var warnings: [String]
    /// One line saying what was done (`nalu edit --verbose`), without the `nalu: ` prefix.
    public var summary: String
}

/// One input's metadata edited without re-encoding, streaming: every SPS (and H.265 VPS)
/// rewritten in band and in the record (colour, range, SAR, frame rate, level, cropping),
/// delimiters, SEI and filler removed, the pictures untouched; written as Annex-B,
/// length-prefixed, MP4 or MPEG-TS with the other tracks the output holds
/// (``NALUExport/CarriedTracks``). What `nalu edit` does: FFmpeg's `h264_metadata` /
/// `hevc_metadata` bitstream filters.
///
/// ```swift
/// var edits = ParameterSetEdits()
/// edits.colourPrimaries = 1
/// let editing = try StreamEditing(source: source, outputPath: "out.mp4", format: .mp4,
///                                 options: StreamEditOptions(parameterSets: edits, sei: .keepAll, stripFiller: false))
/// let output = try FileSink(path: "out.mp4")
/// _ = try editing.run(output: output)
/// try output.commit()
/// ```
public final class StreamEditing {
    private let source: MediaSource
    private let outputPath: String
    private let format: ConversionFormat
    private let options: StreamEditOptions
    /// The tracks beside the video the output carries.
    public let carried: CarriedTracks
    /// Access unit delimiters: `.keep`, `.insert` (Annex-B, MPEG-TS) or `.strip`.
    public var accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep
    /// `.avcc`: the record is wanted apart (``MediaSinkReport/record``); without it the sets stay in band.
    public var writesRecord = false
    /// MP4 output: the muxer's options (sample entry, layout, access unit size limit).
    public var mp4 = MP4MuxerOptions()
    /// The largest access unit held in memory.
    public var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes

    /// Chooses what `format` carries of `source` (the audio unless `carriesAudio` is false).
    /// - Throws: ``NALUError`` reading the input's tracks.
    public init(source: MediaSource, outputPath: String, format: ConversionFormat, options: StreamEditOptions, carriesAudio: Bool = true) throws(NALUError) {
        do {
            self.source = source
            self.outputPath = outputPath
            self.format = format
            self.options = options
            carried = try source.carriedTracks(to: format.carriageTarget, noAudio: !carriesAudio)
        } catch {
            throw NALUError.converting(error, field: outputPath)
        }
    }

    /// Writes the edited stream to `output` (not committed).
    /// - Throws: ``NALUError``; an edit that cannot be coded names its option as the field
    ///   (`--level`, `--crop`, …).
    public func run(output file: FileSink) throws(NALUError) -> StreamEditResult {
        do {
            var editor = StreamEditor(codec: source.codec, options: options)
            let outOfBand = try editor.edit(nalUnits: source.outOfBandParameterSets)
            let declarativeSEI = try editor.edit(nalUnits: source.declarativeSEI)
            let frameRate = try options.parameterSets.frameRate ?? (source.sampleClock() != nil ? nil : source.containerFrameRate())
            let sink = try makeSink(output: file, outOfBand: outOfBand, declarativeSEI: declarativeSEI, frameRate: frameRate)
            let editing = EditingSink(editor: editor, next: sink)
            let report = try editing.write(source)
            var warnings = editing.editor.warnings.map { "--level: \($0)" }
            let tooLarge = editing.editor.statistics.seiNALUnitsTooLarge
            if tooLarge > 0 {
                warnings.append("--sei: \(tooLarge) SEI NAL unit\(tooLarge == 1 ? "" : "s") with more than \(SEIMessage.defaultMessageLimit) messages kept unedited")
            }
            return StreamEditResult(report: report, statistics: editing.editor.statistics, warnings: warnings,
                                    summary: Self.summary(editing.editor.statistics, report: report, to: format))
        } catch {
            throw NALUError.converting(error, field: file.path)
        }
    }

    /// The sink for the output framing, made from the edited out-of-band sets.
    private func makeSink(output file: FileSink, outOfBand: [[UInt8]], declarativeSEI: [[UInt8]], frameRate: Rational?) throws -> any MediaSink {
        let delimiters = accessUnitDelimiters
        switch format {
        case .annexb:
            let options = LengthPrefixedToAnnexB.Options(parameterSets: .keyframes, accessUnitDelimiters: delimiters,
                                                         placement: source.container.isMP4 ? .beforeFirstSlice : .accessUnitStart,
                                                         maxAccessUnitSize: maxAccessUnitSize)
            return try AnnexBSink(codec: source.codec, output: file, options: options,
                                  outOfBandParameterSets: outOfBand, declarativeSEI: declarativeSEI)
        case .avcc:
            let keepInBand = !writesRecord
            let sink = try LengthPrefixedSink(codec: source.codec, output: file,
                                              options: .init(lengthSize: source.lengthSize ?? 4, keepParameterSets: keepInBand,
                                                             accessUnitDelimiters: delimiters),
                                              outOfBandParameterSets: outOfBand)
            if keepInBand { try sink.writeInBand(outOfBand) }
            return sink
        case .mp4:
            var options = mp4
            options.frameRate = frameRate
            options.accessUnitDelimiters = delimiters
            options.colourBoxes = true
            options.metadata = try outputMetadata(from: source, output: outputPath)
            if !carried.transportStreamInput.isEmpty {
                // An MPEG-TS input keeps its times (no --fps edit).
                return try MP4FileSink(for: source, output: file, options: options, transportStreamAudio: carried.transportStreamInput,
                                       parameterSets: outOfBand)
            }
            // An MP4/MOV or MPEG-TS input keeps its times (no --fps edit).
            return try MP4FileSink(for: source, output: file, options: options, passthrough: carried.mp4,
                                   movieTimescale: carried.mp4.isEmpty ? nil : carried.movieTimescale, parameterSets: outOfBand)
        case .ts, .m2ts:
            // Every access unit gets a delimiter in MPEG-TS output (what HLS wants).
            var options = TransportStreamMuxerOptions(frameRate: frameRate)
            options.maxAccessUnitSize = maxAccessUnitSize
            options.writer.timestampedPackets = format == .m2ts
            if source.container.isMP4 { options.placement = .beforeFirstSlice }
            let sink = try TransportStreamSink(codec: source.codec, output: file, options: options,
                                               outOfBandParameterSets: outOfBand, declarativeSEI: declarativeSEI)
            if frameRate == nil { try sink.keepTimes(of: source) }
            try sink.carry(carried.transportStream, of: source)
            for audio in carried.transportStreamInput { try sink.carry(audio, of: source) }
            return sink
        }
    }

    private static func summary(_ statistics: StreamEditStatistics, report: MediaSinkReport, to: ConversionFormat) -> String {
        var parts = ["→ \(to.rawValue)", "\(statistics.parameterSetsRewritten) parameter sets rewritten"]
        if statistics.seiMessagesRemoved > 0 {
            parts.append("\(statistics.seiMessagesRemoved) SEI messages removed (\(statistics.seiNALUnitsRemoved) NAL units dropped, \(statistics.seiNALUnitsRewritten) rewritten)")
        }
        if statistics.fillerNALUnitsRemoved > 0 { parts.append("\(statistics.fillerNALUnitsRemoved) filler NAL units removed") }
        if let converter = report.statistics {
            if converter.delimitersStripped > 0 { parts.append("\(converter.delimitersStripped) AUDs stripped") }
            if converter.delimitersInserted > 0 { parts.append("\(converter.delimitersInserted) AUDs inserted") }
        }
        return "edit " + parts.joined(separator: ", ")
    }
}

extension StreamEditing {
    /// Refuses settings the `format` output cannot take (what `nalu edit` refuses before reading):
    /// delimiters inserted other than in Annex-B or MPEG-TS, delimiters stripped from MPEG-TS
    /// (every access unit there starts with one), a record apart other than for `.avcc`.
    /// - Throws: ``NALU/NALUError/Code/invalidValue`` naming the option (`--aud`, `--extradata-out`).
    public static func validate(format: ConversionFormat, accessUnitDelimiters: AccessUnitDelimiterPolicy,
                                writesRecord: Bool) throws(NALUError) {
        if accessUnitDelimiters == .insert && format != .annexb && !format.isTransportStream {
            throw NALUError(.invalidValue, field: "--aud", detail: "insert goes with Annex-B output")
        }
        if accessUnitDelimiters == .strip && format.isTransportStream {
            throw NALUError(.invalidValue, field: "--aud", detail: "MPEG-TS output starts every access unit with a delimiter")
        }
        if format != .avcc && writesRecord {
            throw NALUError(.invalidValue, field: "--extradata-out", detail: "goes with avcc output (--to avcc)")
        }
    }
}

extension StreamEditing {
    /// An example of what the option an edit error names takes, for a message beside the error
    /// (``validate(format:accessUnitDelimiters:writesRecord:)``, the value parsers of
    /// ``NALU/StreamEditOptions``: `--sar`, `--level`, `--crop`, `--sei`, `--aud`, the colour
    /// options with the names they read); `nil` when there is none to give.
    public static func hint(for error: NALUError) -> String? {
        let detail = error.detail ?? ""
        switch error.field {
        case "--sar": return "--sar 1:1, --sar 4:3, --sar 40:33"
        case "--level": return "--level 3.1, --level 4, --level 1b"
        case "--crop": return "--crop 0,0,0,8"
        case "--sei" where detail.hasPrefix("unknown"): return "a number or a name: " + SEIEdit.payloadTypeNames(first: 8).joined(separator: ", ") + ", …"
        case "--sei" where detail.hasSuffix("after \"=\""): return "--sei strip (all), or list them: --sei keep=user_data_unregistered,6"
        case "--sei": return "--sei strip=user_data_unregistered,6"
        case "--aud" where detail.hasPrefix("insert"): return "add --to annexb, or use --aud strip"
        case "--aud": return "drop --aud strip, or add --to annexb"
        case "--color-primaries", "--color-transfer", "--color-space":
            guard detail.hasPrefix("unknown value") else { return nil }
            let names = switch error.field {
            case "--color-primaries": ColourNames.knownNames(in: ColourNames.primaries)
            case "--color-transfer": ColourNames.knownNames(in: ColourNames.transfer)
            default: ColourNames.knownNames(in: ColourNames.space)
            }
            return "a number 0...255 or one of " + names.joined(separator: ", ")
        default: return nil
        }
    }
}
