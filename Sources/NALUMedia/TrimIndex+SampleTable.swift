public import NALU
import NALUMP4

extension TrimIndex {
    /// The index of an MP4/MOV input from its sample table alone (ISO/IEC 14496-12 8.6: `stts`,
    /// `ctts`, `stss`, or the movie fragments' runs), without reading the pictures: one entry per
    /// sample (a sample is one access unit, ISO/IEC 14496-15 4.3.2), times as
    /// ``init(source:frameRate:)`` gives them. Only the sync samples are read, to name their
    /// keyframe class from the first VCL NAL unit's type: IDR (H.264 5, H.265 19–20), CRA (21),
    /// BLA (16–18); another sync picture counts as a recovery point (an open GOP's I picture).
    /// Pictures that are keyframes without being sync samples are not found: a smart cut then
    /// decodes from an earlier one. What a smart cut of one minute of a long file needs, fast.
    /// - Returns: `nil` when `source` is no MP4/MOV input.
    /// - Throws: ``NALUError`` as ``init(source:frameRate:)``.
    public static func fromSampleTable(_ source: MediaSource, frameRate: Rational? = nil) throws(NALUError) -> TrimIndex? {
        return try NALUError.typed(field: "sample table") {
            guard let mp4 = source.mp4 else { return nil }
            return try TrimIndex(sampleTable: mp4, source: source, frameRate: frameRate)
        }
    }

    private init(sampleTable mp4: MP4VideoTrackReader<AnyRandomAccessSource>, source: MediaSource, frameRate: Rational?) throws(NALUError) {
        codec = source.codec
        let track = mp4.track
        let editShift = try source.videoMediaOrigin()
        var store = ParameterSetStore(codec: codec)
        for description in track.sampleDescriptions {
            for unit in description.record.parameterSets { _ = try? store.add(unit) }
        }
        var entries: [Entry] = []
        var lastEnd: Int64?
        var buffer: [UInt8] = []
        var iterator = mp4.samples()
        let descriptions = track.sampleDescriptions
        while let sample = try iterator.next() {
            guard entries.count < Self.maxAccessUnits else {
                throw NALUError(.tooLarge, field: "access units", detail: "more than \(Self.maxAccessUnits) to index")
            }
            let (time, overflow) = sample.pts.subtractingReportingOverflow(editShift)
            guard !overflow else {
                throw NALUError(.doesNotFit, field: "sample time", byteOffset: sample.offset,
                                detail: "composition time \(sample.pts) less edit media_time \(editShift)")
            }
            let (end, endOverflow) = time.addingReportingOverflow(Int64(sample.duration))
            if !endOverflow { lastEnd = max(lastEnd ?? end, end) }
            var entry = Entry(presentationTime: time, keyframe: nil, pictureType: nil)
            entry.decodeTime = sample.dts
            if sample.isSync, sample.sampleDescriptionIndex >= 1, sample.sampleDescriptionIndex <= descriptions.count {
                try mp4.read(sample, into: &buffer)
                entry.keyframe = try Self.keyframeClass(buffer, lengthSize: descriptions[sample.sampleDescriptionIndex - 1].record.lengthSize,
                                                        codec: codec, offset: sample.offset)
            }
            entries.append(entry)
        }
        parameterSets = store
        hasSourceTimes = true
        let timescale = track.timescale
        var chosenRate = frameRate
        if chosenRate == nil { chosenRate = try source.containerFrameRate() }
        guard let rate = chosenRate ?? store.streamDescription?.frameRate?.reduced else {
            throw NALUError(.missing, field: "frame rate", detail: "the track has no sample duration; give a frame rate (--fps)")
        }
        self.frameRate = rate
        (timeBase, presentationOrigin, firstPictureTime, presentationEnd, frameDuration) =
            try Self.sourceTimes(&entries, timescale: timescale, rate: rate, editShift: editShift, lastEnd: lastEnd)
        timelineStart = try PresentationTimeline(source: source).videoStart(firstPicture: firstPictureTime)
        self.entries = entries
    }

    /// The keyframe class of a sync sample: its first VCL NAL unit's type.
    private static func keyframeClass(_ bytes: [UInt8], lengthSize: Int, codec: Codec, offset: Int64) throws(NALUError) -> KeyframeClass? {
        var position = 0
        while position + lengthSize < bytes.count {
            var length = 0
            for byte in bytes[position..<position + lengthSize] { length = length << 8 | Int(byte) }
            let start = position + lengthSize
            guard length > 0, start < bytes.count else {
                position = start + length
                continue
            }
            let header = bytes[start]
            if codec == .h264 {
                let type = AVCNALUnitType(rawValue: header)
                if type == .idrSlice { return .idr }
                if (AVCNALUnitType.nonIDRSlice.rawValue...AVCNALUnitType.sliceDataPartitionC.rawValue).contains(type.rawValue) {
                    return .recoveryPoint(count: 0)
                }
            } else {
                let type = HEVCNALUnitType(rawValue: header >> 1)
                if type.isIDR { return .idr }
                if type == .cra { return .cra }
                if type.isBLA { return .bla }
                // Non-IRAP VCL types (0–15): a sync sample that is no IRAP picture (GDR).
                if type.isVCL && !type.isIRAP { return .recoveryPoint(count: 0) }
            }
            position = start + length
        }
        return nil
    }
}
