public import NALU
public import NALUMP4

/// Everything `nalu info` reports about a stream, gathered in one pass over a ``MediaSource``.
public struct StreamSummary: Sendable {
    public var codec: Codec
    /// The first SPS's description (with its VPS/PPS), if the stream has one.
    public var description: StreamDescription?
    public var nalUnits = 0
    /// NAL units by nal_unit_type (0…63).
    public var nalTypeCounts = [Int](repeating: 0, count: 64)
    public var accessUnits = 0
    public var keyframes = 0
    /// Keyframes by class name (`idr`, `cra`, `bla`, `recovery`); classes not seen are absent.
    public var keyframeClasses: [String: Int] {
        Self.named(zip([KeyframeClass.idr, .cra, .bla, .recoveryPoint(count: 0)].map(\.name), keyframeClassCounts))
    }
    /// Access units by picture type (`I`, `P`, `B`); types not seen are absent.
    public var pictureTypes: [String: Int] {
        Self.named(zip([PictureType.i, .p, .b].map(\.rawValue), pictureTypeCounts))
    }
    /// Per access unit the summary only bumps these fixed counters (no hashing per access unit).
    private var keyframeClassCounts = [0, 0, 0, 0]
    private var pictureTypeCounts = [0, 0, 0]
    /// The input's size as read: the end of the last NAL unit, or an MP4 file's size.
    public var bytes: Int64 = 0
    public var leadingGarbageBytes: Int64 = 0
    /// The container's facts, for MP4/MOV input.
    public var container: ContainerSummary?
    /// The demultiplexer's findings, for transport stream input.
    public var transportStream: TransportStreamSummary?
    /// The smallest and largest PTS of the access units (transport stream input; 90 kHz).
    public var presentationTimeRange: ClosedRange<Int64>?
    /// What the VUI of the SPS that ``description`` describes says about colour, aspect,
    /// timing, reordering and the HRD.
    public var signal: VideoSignalSummary?
    /// The SEI messages that matter for display and start-up.
    public var sei = SEISummary()
    /// ffprobe's `field_order` for H.264 (``FieldOrder``); `nil` for H.265 and when unknown.
    public var fieldOrder: String?

    public init(codec: Codec) { self.codec = codec }

    /// Reads `source` to the end.
    public static func scan(_ source: MediaSource) throws(NALUError) -> StreamSummary {
        return try NALUError.typed(field: "stream") {
            var summary = StreamSummary(codec: source.codec)
            var fieldOrder = FieldOrder(codec: source.codec)
            for unit in source.outOfBandParameterSets { fieldOrder.add(unit[...]) }
            let parameterSets = try source.forEachAccessUnit(nalUnit: { unit, header in
                summary.nalUnits += 1
                summary.nalTypeCounts[min(Int(header.typeNumber), 63)] += 1
                summary.bytes = unit.offset + Int64(unit.count)
                let type = header.typeNumber
                if source.codec == .h264 ? type == 6 : (type == 39 || type == 40) {
                    let bytes = unit.array[...]
                    summary.sei.add(bytes, codec: source.codec, offset: unit.offset)
                    if !fieldOrder.isDone { fieldOrder.add(bytes) }
                } else if !fieldOrder.isDone {
                    fieldOrder.add(unit.array[...])
                }
            }) { unit in
                summary.count(unit.summary)
                if let pts = unit.timestamps?.presentation {
                    let range = summary.presentationTimeRange
                    summary.presentationTimeRange = min(range?.lowerBound ?? pts, pts)...max(range?.upperBound ?? pts, pts)
                }
            }
            summary.description = parameterSets.streamDescription
            summary.fieldOrder = fieldOrder.name
            if let id = parameterSets.lastSPSId {
                switch source.codec {
                case .h264: summary.signal = parameterSets.avcSPS[id].map { VideoSignalSummary($0.parsed) }
                case .hevc: summary.signal = parameterSets.hevcSPS[id].map { VideoSignalSummary($0.parsed) }
                }
            }
            summary.leadingGarbageBytes = source.leadingGarbageBytes
            if let transportStream = source.transportStream {
                summary.transportStream = transportStream
                summary.bytes = transportStream.bytes
            }
            if let mp4 = source.mp4 {
                summary.bytes = mp4.source.size
                let totals = try MP4SampleTotals.of(mp4)
                var container = ContainerSummary(reader: mp4, samples: totals.samples, sampleDuration: totals.duration)
                container.frameDurations = try FrameDurations.of(mp4)
                container.notes = ContainerSummary.disagreements(colour: container.colour, pixelAspectRatio: container.pixelAspectRatio,
                                                                 signal: summary.signal)
                summary.container = container
            }
            return summary
        }
    }

    private mutating func count(_ unit: AccessUnitSummary) {
        accessUnits += 1
        if let keyframe = unit.keyframe {
            keyframes += 1
            switch keyframe {
            case .idr: keyframeClassCounts[0] += 1
            case .cra: keyframeClassCounts[1] += 1
            case .bla: keyframeClassCounts[2] += 1
            case .recoveryPoint: keyframeClassCounts[3] += 1
            }
        }
        switch unit.pictureType {
        case .i: pictureTypeCounts[0] += 1
        case .p: pictureTypeCounts[1] += 1
        case .b: pictureTypeCounts[2] += 1
        case nil: break
        }
    }

    private static func named(_ counts: some Sequence<(String, Int)>) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counts.filter { $0.1 > 0 })
    }

    /// The presentation duration of a transport stream input in 90 kHz ticks: the PTS span plus
    /// one frame period.
    public var transportStreamDuration: Int64? {
        guard let range = presentationTimeRange else { return nil }
        return range.upperBound - range.lowerBound + (transportStream?.frameDuration ?? 0)
    }

    /// The name of NAL unit type `type` in this codec.
    public func typeName(_ type: Int) -> String {
        let raw = UInt8(truncatingIfNeeded: type)
        return codec == .h264 ? AVCNALUnitType(rawValue: raw).name : HEVCNALUnitType(rawValue: raw).name
    }
}

/// What an MP4/MOV file's container and video track say.
public struct ContainerSummary: Sendable {
    /// "MP4" or "QuickTime".
    public var name: String
    public var brand: String?
    public var trackID: UInt32
    public var sampleEntry: String
    public var timescale: UInt32
    /// In `timescale` units; a fragmented file's is the sum of its samples' durations, `nil`
    /// when that sum passes 2^64 (checked arithmetic: hostile `trun` durations cannot trap).
    public var duration: UInt64?
    public var samples: Int
    public var fragmented: Bool
    public var editList: [MP4EditListEntry]
    public var movieTimescale: UInt32
    /// The sample entry's `colr` box, if any.
    public var colour: MP4ColourInformation?
    /// The sample entry's `pasp` box, if any.
    public var pixelAspectRatio: MP4PixelAspectRatio?
    /// Where `colr`/`pasp` disagree with the VUI of the stream (``disagreements(colour:pixelAspectRatio:signal:)``).
    public var notes: [String] = []
    /// The spread of the samples' durations (``FrameDurations``): whether the frame rate varies.
    public var frameDurations: FrameDurations?

    public init(reader: MP4VideoTrackReader<some RandomAccessByteSource>, samples: Int, sampleDuration: UInt64?) {
        let track = reader.track
        name = reader.fileType?.isQuickTime == true ? "QuickTime" : "MP4"
        brand = reader.fileType.map { "\($0.majorBrand)" }
        trackID = track.trackID
        sampleEntry = track.sampleEntryType.rawValue
        timescale = track.timescale
        duration = track.duration > 0 ? track.duration : sampleDuration
        self.samples = samples
        fragmented = track.isFragmented
        editList = track.editList
        movieTimescale = track.movieTimescale
        colour = track.sampleDescription.colour
        pixelAspectRatio = track.sampleDescription.pixelAspectRatio
    }

    /// What a player may show differently depending on whether it trusts the container or the
    /// bitstream: each `colr` code point that differs from the VUI's (a VUI without a colour
    /// description counts as 2, unspecified), an `nclx` range that differs from
    /// `video_full_range_flag`, and a `pasp` ratio that differs from the VUI's sample aspect
    /// ratio (1:1 when the VUI has none).
    public static func disagreements(colour: MP4ColourInformation?, pixelAspectRatio: MP4PixelAspectRatio?,
                                     signal: VideoSignalSummary?) -> [String] {
        let signal = signal ?? VideoSignalSummary()
        var notes: [String] = []
        if let colour {
            let pairs: [(String, Int?, Int, (Int) -> String?)] = [
                ("colour_primaries", colour.colourPrimaries, signal.colourPrimaries, ColourNames.primaries),
                ("transfer_characteristics", colour.transferCharacteristics, signal.transferCharacteristics, ColourNames.transfer),
                ("matrix_coefficients", colour.matrixCoefficients, signal.matrixCoefficients, ColourNames.space),
            ]
            for (field, box, vui, name) in pairs {
                guard let box, box != vui else { continue }
                notes.append("colr \(field) \(box) (\(name(box) ?? "reserved")) differs from the VUI's \(vui) (\(name(vui) ?? "reserved"))")
            }
            if let full = colour.fullRange, signal.videoSignalTypePresent, full != signal.videoFullRange {
                notes.append("colr full_range_flag \(full ? 1 : 0) differs from the VUI's video_full_range_flag \(signal.videoFullRange ? 1 : 0)")
            }
        }
        if let pasp = pixelAspectRatio, pasp.hSpacing > 0, pasp.vSpacing > 0 {
            let box = Rational(Int64(pasp.hSpacing), Int64(pasp.vSpacing)).reduced
            let vui = (signal.sampleAspectRatio ?? Rational(1, 1)).reduced
            if box != vui {
                notes.append("pasp \(box.numerator):\(box.denominator) differs from the VUI's sample aspect ratio \(vui.numerator):\(vui.denominator)")
            }
        }
        return notes
    }

    /// The duration in seconds (for display; `nil` when unknown).
    public var seconds: Double? { duration.map { Double($0) / Double(max(1, timescale)) } }
}

/// How long an MP4 track's samples last (`stts`, `trun`; ISO/IEC 14496-12 8.6.1.2): the
/// shortest and the longest, and the average rate. The last sample is left out of the spread
/// (muxers often give it a duration of their own). Different durations mean a variable frame
/// rate: no single rate describes the track, and a remux keeps each sample's time.
public struct FrameDurations: Hashable, Sendable {
    /// Ticks of the track's timescale.
    public var minimum: UInt32
    public var maximum: UInt32
    public var timescale: UInt32
    /// Samples counted and the sum of their durations.
    public var samples: Int
    public var total: UInt64

    /// Whether the durations differ.
    public var isVariable: Bool { minimum != maximum }

    /// Samples per second on average, or `nil` without a duration.
    public var averageRate: Rational? {
        guard total > 0, total <= UInt64(Int64.max), samples > 0 else { return nil }
        let (numerator, overflow) = Int64(samples).multipliedReportingOverflow(by: Int64(timescale))
        return overflow ? nil : Rational(numerator, Int64(total)).reduced
    }

    /// The durations of `reader`'s video samples, or `nil` for a track of fewer than 2.
    /// - Throws: ``NALU/NALUError`` (typed): a malformed sample table, naming the field and its byte offset.
    public static func of<Source: RandomAccessByteSource>(_ reader: MP4VideoTrackReader<Source>) throws(NALUError) -> FrameDurations? {
        var spread: (UInt32, UInt32)?
        var previous: UInt32?
        var samples = 0
        var total: UInt64 = 0
        try NALUError.typed(field: "samples") { try reader.forEachSample { sample in
            if let previous { spread = (min(spread?.0 ?? previous, previous), max(spread?.1 ?? previous, previous)) }
            previous = sample.duration
            samples += 1
            total &+= UInt64(sample.duration)
        } }
        guard let spread else { return nil }
        return FrameDurations(minimum: spread.0, maximum: spread.1, timescale: reader.track.timescale, samples: samples, total: total)
    }
}
