public import NALU
public import NALUIO
public import NALUMP4
public import NALUTS

/// The container a cut, a join or a composition writes, with its muxer's options: what
/// `nalu trim`'s and `nalu concat`'s `--to` names (issue 39 item 5: the command line only
/// chooses one of these).
public enum CutOutputFormat: Sendable {
    /// MP4/MOV (ISO/IEC 14496-12, -15): the options' frame rate and edit list are set by the writer
    /// when it has its own times.
    case mp4(MP4MuxerOptions)
    /// An H.264/H.265 Annex B byte stream; access units larger than `maxAccessUnitSize` are refused.
    case annexB(maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes)
    /// ISO/IEC 14496-15 length-prefixed NAL units (4-byte lengths), the parameter sets in band.
    case lengthPrefixed
    /// One MPEG-TS program (ISO/IEC 13818-1).
    case transportStream(TransportStreamMuxerOptions)

    /// Whether the output holds only the video (Annex-B, length-prefixed).
    public var isElementary: Bool {
        switch self {
        case .annexB, .lengthPrefixed: true
        case .mp4, .transportStream: false
        }
    }
}

extension Trimmer {
    /// Writes `plan` in `format` (``writeMP4(_:output:options:audio:)``,
    /// ``writeAnnexB(_:output:options:)``, ``writeLengthPrefixed(_:output:lengthSize:)``,
    /// ``writeTransportStream(_:output:options:audio:)``), the output timed at the plan's frame
    /// rate where it has none of its own; Annex-B parameter sets go where an MP4 input's
    /// samples would have them (before the first slice), else at the access unit's start.
    public func write(_ plan: TrimPlan, output: FileSink, format: CutOutputFormat, audio: Bool) throws(NALUError) -> MediaSinkReport {
        return try NALUError.typed(field: "trim") {
            switch format {
            case .mp4(var options):
                options.frameRate = options.frameRate ?? plan.frameRate
                return try writeMP4(plan, output: output, options: options, audio: audio)
            case .annexB(let maxAccessUnitSize):
                return try writeAnnexB(plan, output: output, options: .init(placement: source.container.isMP4 ? .beforeFirstSlice : .accessUnitStart,
                                                                            maxAccessUnitSize: maxAccessUnitSize))
            case .lengthPrefixed:
                return try writeLengthPrefixed(plan, output: output)
            case .transportStream(var options):
                options.frameRate = options.frameRate ?? plan.frameRate
                return try writeTransportStream(plan, output: output, options: options, audio: audio)
            }
        }
    }

    /// What a reader of `plan` written in `format` should know: the lead-in pictures an
    /// elementary stream shows (no edit list hides them), and the edit list of a fragmented MP4.
    public func notes(_ plan: TrimPlan, format: CutOutputFormat) -> [String] {
        var notes: [String] = []
        if case .mp4(let options) = format, options.layout == .fragmented, plan.leadInPictures + plan.trailingPictures > 0 {
            notes.append("fragmented MP4: the edit list that hides \(plan.leadInPictures) lead-in and \(plan.trailingPictures) trailing pictures is written, but players differ on edit lists in fragmented files (ffmpeg shows them)")
        }
        if case .mp4 = format {} else if plan.leadInPictures > 0 {
            let pictures = plan.leadInPictures == 1 ? "1 extra picture" : "\(plan.leadInPictures) extra pictures"
            notes.append("\(pictures) before --start lead in (from the \(plan.keyframe) keyframe; elementary streams have no edit list)")
        }
        return notes
    }
}

extension TrimPlan {
    /// One line saying what the cut kept (`nalu trim --verbose`), with the MP4 edit list `report` wrote.
    public func summary(_ report: MediaSinkReport) -> String {
        let (from, to) = presentedSeconds
        var parts = ["kept access units \(firstAccessUnit)–\(lastAccessUnit) from the \(keyframe) keyframe",
                     "\(presentedPictures) pictures shown (\(Self.secondsText(from))–\(Self.secondsText(to)) s)",
                     "\(leadInPictures) lead-in", "\(trailingPictures) after --end",
                     "\(droppedAccessUnits.count) leading pictures dropped"]
        if let summary = report.mp4, let edit = summary.writer.editMediaTime {
            parts.append("edit list media_time \(edit), timescale \(summary.timescale)")
        }
        return parts.joined(separator: ", ")
    }

    /// `1.5` → `"1.500"`: seconds with three decimals, no Foundation.
    static func secondsText(_ seconds: Double) -> String {
        let scaled = (seconds * 1000).rounded()
        guard scaled.isFinite, scaled >= 0, scaled < 9e18 else { return "0" }
        let value = Int64(scaled)
        return "\(value / 1000).\(String(value % 1000 + 1000).dropFirst())"
    }
}
