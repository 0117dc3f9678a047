import NALU
import NALUMP4
import NALUMedia

/// What `--open-gop` does with an H.265 CRA picture that starts a segment and is followed by
/// RASL pictures (H.265 7.4.2.2, 8.1.3), which need the pictures before the CRA and so the
/// previous segment.
public enum OpenGOPPolicy: String, Sendable, CaseIterable {
    /// The CRA stays; it is not a sync sample (ISO/IEC 14496-15 8.4.1: a sync sample's RASL
    /// pictures, if any, are decodable) but the first sample of a `rap ` sample group (ISO/IEC
    /// 14496-12 10.4) with its number of leading samples: a SAP of type 3 (ISO/IEC 14496-12
    /// Annex I), DASH `startWithSAP="3"`, and no HLS `EXT-X-INDEPENDENT-SEGMENTS`.
    case keep
    /// The CRA is rewritten as a BLA picture (BLA_W_RADL when RADL pictures follow, else
    /// BLA_N_LP; H.265 Table 7-1) and its RASL pictures are dropped (they would not be output
    /// after a BLA, 8.1.3): the segment starts with an independent picture.
    case bla
}

/// Where a ``VideoSampleFilter`` sends its samples: a ``FragmentSegmenter`` (CMAF segments) or
/// ``TransportStreamSegmenter`` (MPEG-TS segments). `flush()` ends the open segment.
protocol VideoSampleOutput: AnyObject {
    /// Adds a sample (length-prefixed NAL units) to the open segment, opening one if none is;
    /// `randomAccessLeadingSamples` is given for a segment-starting CRA kept as a SAP of type 3.
    func append(_ bytes: UnsafeRawBufferPointer, timing: SampleTiming, isSync: Bool, randomAccessLeadingSamples: Int?) throws
    /// Ends the open segment, if any.
    func flush() throws
}

extension FragmentSegmenter: VideoSampleOutput {}

/// The video samples on their way into a ``FragmentSegmenter`` or ``TransportStreamSegmenter``:
/// parameter sets put in band (`avc3`/`hev1`, MPEG-TS: at the start of each segment and where
/// the sample description changes), and
/// H.265 CRA pictures that start a segment handled as ``OpenGOPPolicy`` says. A CRA that starts a
/// segment is held with its leading pictures (the run of RADL/RASL pictures after it in decoding
/// order, H.265 7.4.3.2: leading pictures precede all trailing pictures) until the first trailing
/// picture tells whether any is RASL.
final class VideoSampleFilter {
    struct Sample {
        var bytes: [UInt8]
        var timing: SampleTiming
        var isSync: Bool
        var type: UInt8?
    }

    let codec: Codec
    let lengthSize: Int
    let policy: OpenGOPPolicy
    /// Each sample description's parameter sets (1-based index − 1), when they go in band.
    let inBandParameterSets: [[[UInt8]]]?
    /// Whether the in-band parameter sets also go before every sync sample (MPEG-TS: a
    /// receiver may tune in at any random access point).
    var parameterSetsAtEverySyncSample = false
    private var pending: [Sample] = []
    private var lastDescription = 0
    /// RASL pictures dropped (`bla`), CRA pictures rewritten as BLA, CRA pictures kept as
    /// segment starts of SAP type 3 (`keep`).
    private(set) var droppedRASL = 0
    private(set) var rewrittenCRA = 0
    private(set) var openGOPStarts = 0

    init(codec: Codec, lengthSize: Int, policy: OpenGOPPolicy, inBandParameterSets: [[[UInt8]]]?) {
        self.codec = codec
        self.lengthSize = lengthSize
        self.policy = policy
        self.inBandParameterSets = inBandParameterSets
    }

    /// Takes the next sample in decoding order (`description`: its 1-based sample description);
    /// `startsSegment` flushes the open segment first.
    func push(_ bytes: UnsafeRawBufferPointer, timing: SampleTiming, isSync: Bool, description: Int, startsSegment: Bool,
              into segmenter: any VideoSampleOutput) throws {
        var prefix: [UInt8] = []
        if let sets = inBandParameterSets, startsSegment || description != lastDescription || (parameterSetsAtEverySyncSample && isSync),
           description >= 1, description <= sets.count {
            for unit in sets[description - 1] {
                var length = unit.count
                var field = [UInt8](repeating: 0, count: lengthSize)
                for index in stride(from: lengthSize - 1, through: 0, by: -1) {
                    field[index] = UInt8(truncatingIfNeeded: length)
                    length >>= 8
                }
                prefix += field + unit
            }
        }
        lastDescription = description
        // Parameter sets are no VCL NAL units: the sample's own bytes tell its picture type.
        let type = codec == .hevc ? firstPictureType(bytes) : nil
        let leading = type.map { (6...9).contains($0) } ?? false
        if !pending.isEmpty, !leading { try resolve(into: segmenter) }
        if startsSegment { try segmenter.flush() }
        if !pending.isEmpty || (startsSegment && type == 21) {
            pending.append(Sample(bytes: prefix + Array(bytes), timing: timing, isSync: isSync, type: type))
        } else if prefix.isEmpty {
            try segmenter.append(bytes, timing: timing, isSync: isSync, randomAccessLeadingSamples: nil)
        } else {
            try emit(Sample(bytes: prefix + Array(bytes), timing: timing, isSync: isSync, type: type), into: segmenter)
        }
    }

    /// As ``push(_:timing:isSync:description:startsSegment:into:)`` for `sample` of `reader`'s
    /// file, read through `bytes`' window (one `pread` per run of samples, no copy).
    func push(_ sample: MP4Sample, timing: SampleTiming, startsSegment: Bool, reader: MP4VideoTrackReader<AnyRandomAccessSource>,
              bytes: inout MP4SampleReader, into segmenter: any VideoSampleOutput) throws {
        try bytes.withBytes(of: sample, in: reader) { raw in
            try push(raw, timing: timing, isSync: sample.isSync, description: sample.sampleDescriptionIndex, startsSegment: startsSegment,
                     into: segmenter)
        }
    }

    /// Emits what is held.
    func finish(into segmenter: any VideoSampleOutput) throws {
        if !pending.isEmpty { try resolve(into: segmenter) }
    }

    private func emit(_ sample: Sample, into segmenter: any VideoSampleOutput, leadingSamples: Int? = nil) throws {
        try sample.bytes.withUnsafeBytes { raw in
            try segmenter.append(raw, timing: sample.timing, isSync: sample.isSync, randomAccessLeadingSamples: leadingSamples)
        }
    }

    /// A CRA that starts a segment and the leading pictures after it.
    private func resolve(into segmenter: any VideoSampleOutput) throws {
        let held = pending
        pending = []
        guard var cra = held.first else { return }
        let leading = held.dropFirst()
        guard leading.contains(where: { $0.type == 8 || $0.type == 9 }) else {
            for sample in held { try emit(sample, into: segmenter) }
            return
        }
        switch policy {
        case .keep:
            cra.isSync = false
            openGOPStarts += 1
            try emit(cra, into: segmenter, leadingSamples: leading.count)
            for sample in leading { try emit(sample, into: segmenter) }
        case .bla:
            // BLA_W_RADL (17) when RADL pictures stay, else BLA_N_LP (18).
            let type: UInt8 = leading.contains { $0.type == 6 || $0.type == 7 } ? 17 : 18
            rewriteCRA(&cra.bytes, as: type)
            cra.isSync = true
            rewrittenCRA += 1
            var kept = [cra]
            for sample in leading {
                if sample.type == 8 || sample.type == 9 {
                    // Its decoding time span goes to the sample before it, so the times after stay.
                    kept[kept.count - 1].timing.duration &+= sample.timing.duration
                    droppedRASL += 1
                } else {
                    kept.append(sample)
                }
            }
            for sample in kept { try emit(sample, into: segmenter) }
        }
    }

    /// The `nal_unit_type` of the first VCL NAL unit (type < 32) of a length-prefixed H.265
    /// sample (H.265 7.3.1.2), or `nil`.
    func firstPictureType(_ bytes: UnsafeRawBufferPointer) -> UInt8? {
        var position = 0
        while position + lengthSize < bytes.count {
            var length = 0
            for index in 0..<lengthSize { length = length << 8 | Int(bytes[position + index]) }
            let header = position + lengthSize
            let type = HEVCNALUnitType(rawValue: bytes[header] >> 1)
            if type.isVCL { return type.rawValue }
            position = header + length
        }
        return nil
    }

    /// Gives every CRA_NUT (21) NAL unit of the sample the type `type`, keeping the header's
    /// other bits (forbidden_zero_bit, nuh_layer_id's high bit).
    func rewriteCRA(_ bytes: inout [UInt8], as type: UInt8) {
        var position = 0
        while position + lengthSize < bytes.count {
            var length = 0
            for index in 0..<lengthSize { length = length << 8 | Int(bytes[position + index]) }
            let header = position + lengthSize
            if HEVCNALUnitType(rawValue: bytes[header] >> 1) == .cra {
                // nal_unit_type is bits 1–6 of the first header byte (H.265 7.3.1.2).
                bytes[header] = (bytes[header] & 0x81) | (HEVCNALUnitType(rawValue: type).rawValue << 1)
            }
            position = header + length
        }
    }
}
