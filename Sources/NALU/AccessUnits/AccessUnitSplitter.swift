/// Groups NAL units into access units by the specs' rules and classifies each one.
///
/// - H.264 (ITU-T H.264 7.4.1.2.3): after the last VCL NAL unit of a primary picture, an access
///   unit delimiter, SPS, PPS, SEI or a NAL unit of type 14–18 starts a new access unit, and so
///   does the first VCL NAL unit of a new primary picture, found by comparing slice headers as in
///   7.4.1.2.4 (not by `first_mb_in_slice == 0`, which fails on arbitrary slice order).
/// - H.265 (ITU-T H.265 7.4.2.4.4): after the last VCL NAL unit of a picture, an AUD, VPS, SPS,
///   PPS, prefix SEI or a NAL unit of type 41–44 or 48–55 starts a new access unit, and so does a
///   VCL NAL unit with `first_slice_segment_in_pic_flag` = 1, in the base layer.
///
/// Parameter sets are stored as they pass (``parameterSets``) so slice headers can be parsed.
public struct AccessUnitSplitter: Sendable {
    /// What one NAL unit turned out to be.
    public struct Step: Sendable {
        /// The NAL unit's header.
        public var header: NALUnitHeader
        /// The access unit completed by this NAL unit starting a new one.
        public var completed: AccessUnitSummary?
        /// Whether this NAL unit is the first of a new access unit.
        public var startsAccessUnit: Bool
        /// Whether this is the first VCL NAL unit of its access unit (the access unit's keyframe
        /// class and picture type are known from here on, in ``AccessUnitSplitter/current``).
        public var isFirstVCL: Bool
        /// This NAL unit's H.265 slice segment header (7.3.6.1), as the splitter parsed it, when
        /// it is a slice of a defined VCL type; handed on so nothing downstream parses it again.
        /// (H.264 slices are read in place for the few fields the splitter needs; their picture
        /// order count comes from ``AccessUnitSplitter/avcPictureOrderCount(_:)``.)
        public var hevcSliceSegmentHeader: HEVCSliceSegmentHeader? = nil
    }

    public let codec: Codec
    /// Parameter sets seen so far.
    public private(set) var parameterSets: ParameterSetStore
    /// The access unit being assembled.
    public private(set) var current: AccessUnitSummary?
    /// Access units completed so far.
    public private(set) var completedCount = 0
    /// SEI NAL units not read for a recovery point because they hold more than
    /// ``SEIMessage/defaultMessageLimit`` messages (their bytes pass through unchanged).
    public private(set) var skippedSEINALUnits = 0

    private var previousAVCSlice: AVCSliceFields?
    /// The fields of the last H.264 slice pushed (for ``avcPictureOrderCount(_:)``).
    private var lastAVCSlice: AVCSliceFields?
    private var pendingRecovery: Int?
    /// The facts of the PPS the last H.264 slice named and of that PPS's SPS, as plain values (no
    /// table is retained per slice); dropped whenever a parameter set arrives. Streams rarely
    /// switch PPS, so this is almost always the one needed.
    private var avcFacts: (pps: AVCSlicePPSFacts, sps: AVCSliceSPSFacts)?
    private var currentHasVCL = false
    /// ``finish()`` was called: the next NAL unit or parameter set starts a new stream.
    private var finished = false

    public init(codec: Codec) {
        self.codec = codec
        self.parameterSets = ParameterSetStore(codec: codec)
    }

    /// Stores a parameter set that arrived out of band (from an avcC/hvcC record), so slices that
    /// refer to it can be parsed.
    public mutating func addParameterSet(_ nalUnit: [UInt8]) throws(NALUError) {
        if finished { startNewStream() }
        avcFacts = nil
        try parameterSets.add(nalUnit)
    }

    /// Feeds the next NAL unit (escaped, header included) found at `offset` after a prefix of
    /// `prefixLength` bytes. Errors carry the stream offset.
    public mutating func push(_ nalUnit: UnsafeRawBufferPointer, offset: Int64, prefixLength: Int) throws(NALUError) -> Step {
        try push(NALUnitView(offset: offset, bytes: nalUnit, prefixLength: prefixLength))
    }

    /// Feeds a NAL unit handed out by a reader.
    public mutating func push(_ unit: NALUnitView) throws(NALUError) -> Step {
        if finished { startNewStream() }
        do {
            return try pushUnlocated(unit.bytes, offset: unit.offset, prefixLength: unit.prefixLength)
        } catch {
            throw error.offset(by: unit.offset)
        }
    }

    /// Ends the stream: returns the last access unit, if any.
    ///
    /// The splitter can then be used for another stream: the next ``push(_:)`` or
    /// ``addParameterSet(_:)`` starts from the state of a new splitter (indexes from 0, no
    /// parameter sets, no slice kept for comparison). Until then ``parameterSets`` and
    /// ``completedCount`` still describe the stream that ended.
    public mutating func finish() -> AccessUnitSummary? {
        defer { current = nil }
        finished = true
        if current != nil { completedCount += 1 }
        return current
    }

    /// Everything as ``init(codec:)`` leaves it.
    private mutating func startNewStream() {
        self = AccessUnitSplitter(codec: codec)
    }

    /// (Inlined into ``push(_:)``, its one caller, so the large ``Step`` is built in the caller's
    /// result instead of being copied out of a nested call once per NAL unit.)
    @inline(__always)
    private mutating func pushUnlocated(_ nalUnit: UnsafeRawBufferPointer, offset: Int64, prefixLength: Int) throws(NALUError) -> Step {
        lastAVCSlice = nil
        let header = try NALUnitHeader(nalUnit, codec: codec)
        var startsNew = false
        var sliceType: PictureType?
        var keyframe: KeyframeClass?
        var hevcSliceSegmentHeader: HEVCSliceSegmentHeader?
        let isVCL: Bool
        let isDelimiter: Bool

        switch header {
        case .avc(let avc):
            let type = avc.nalUnitType
            isVCL = type.isVCL
            isDelimiter = type == .accessUnitDelimiter
            if isVCL {
                if type == .sliceDataPartitionB || type == .sliceDataPartitionC {
                    // Data partitions B and C carry no slice header: same picture as partition A.
                } else {
                    let slice = try parseAVCSlice(nalUnit)
                    lastAVCSlice = slice
                    if let previous = previousAVCSlice, currentHasVCL, slice.redundantPicCnt == 0,
                       slice.isFirstSliceOfNewPicture(comparedTo: previous) {
                        startsNew = true
                    }
                    if slice.redundantPicCnt == 0 { previousAVCSlice = slice }
                    sliceType = switch slice.pictureType {
                    case .i, .si: .i
                    case .p, .sp: .p
                    case .b: .b
                    }
                }
                keyframe = KeyframeClass(nalUnitType: type)
            } else {
                // 7.4.1.2.3: SEI, SPS, PPS, AUD, and types 14–18 (prefix NAL, subset SPS, DPS, reserved).
                let startsUnit = type == .sei || type == .sps || type == .pps || type == .accessUnitDelimiter
                    || (AVCNALUnitType.prefixNAL.rawValue...18).contains(type.rawValue)
                if currentHasVCL && startsUnit { startsNew = true }
                if type == .sps || type == .pps {
                    avcFacts = nil
                    try parameterSets.add(Array(nalUnit))
                }
                if type == .sei && (!currentHasVCL || startsNew) {
                    if let count = try recoveryPoint(in: nalUnit) { pendingRecovery = count }
                }
            }
        case .hevc(let hevc):
            let type = hevc.nalUnitType
            isVCL = type.isVCL
            isDelimiter = type == .accessUnitDelimiter
            let baseLayer = hevc.nuhLayerId == 0
            if isVCL {
                let firstSliceSegment = nalUnit.count > 2 && nalUnit[2] & 0x80 != 0
                if firstSliceSegment && currentHasVCL && baseLayer { startsNew = true }
                // A slice of another layer has that layer's parameter sets and syntax (Annex F):
                // the base layer's sets do not describe it, and it decides nothing here.
                let slice = baseLayer ? try parseHEVCSlice(nalUnit) : nil
                hevcSliceSegmentHeader = slice
                if let type = slice?.pictureType {
                    sliceType = switch type {
                    case .i: .i
                    case .p: .p
                    case .b: .b
                    }
                }
                keyframe = KeyframeClass(nalUnitType: type)
            } else {
                // 7.4.2.4.4: VPS, SPS, PPS, AUD, prefix SEI, and types 41–44 and 48–55 (reserved, unspecified).
                let startsUnit = type == .vps || type == .sps || type == .pps || type == .accessUnitDelimiter || type == .prefixSEI
                    || (41...44).contains(type.rawValue) || (48...55).contains(type.rawValue)
                if currentHasVCL && baseLayer && startsUnit { startsNew = true }
                if header.isParameterSet { try parameterSets.add(Array(nalUnit)) }
                if type == .prefixSEI && (!currentHasVCL || startsNew) {
                    if let count = try recoveryPoint(in: nalUnit) { pendingRecovery = count }
                }
            }
        }

        var completed: AccessUnitSummary?
        if startsNew || current == nil {
            if startsNew {
                completed = current
                completedCount += 1
            }
            let start = offset - Int64(prefixLength)
            current = AccessUnitSummary(index: completedCount, offset: start, size: 0)
            currentHasVCL = false
            if startsNew && isVCL { pendingRecovery = nil }
        }
        guard var unit = current else {
            return Step(header: header, completed: completed, startsAccessUnit: startsNew, isFirstVCL: false, hevcSliceSegmentHeader: hevcSliceSegmentHeader)
        }
        let firstVCL = isVCL && !currentHasVCL
        unit.nalUnitCount += 1
        unit.size = offset + Int64(nalUnit.count) - unit.offset
        if header.isParameterSet { unit.hasParameterSets = true }
        if unit.nalUnitCount == 1 && isDelimiter {
            unit.hasAccessUnitDelimiter = true
        }
        if isVCL {
            unit.vclNALUnitCount += 1
            if firstVCL {
                unit.keyframe = keyframe ?? pendingRecovery.map { .recoveryPoint(count: $0) }
                pendingRecovery = nil
            }
            if let sliceType { unit.pictureType = unit.pictureType.map { $0.merged(with: sliceType) } ?? sliceType }
            currentHasVCL = true
        }
        current = unit
        let startsAccessUnit = unit.nalUnitCount == 1
        return Step(header: header, completed: completed, startsAccessUnit: startsAccessUnit, isFirstVCL: firstVCL, hevcSliceSegmentHeader: hevcSliceSegmentHeader)
    }

    /// Reads the slice header in place (``AVCSliceFields``); anything unusual goes through
    /// ``AVCSliceHeader``, which gives the same values or the exact error.
    private mutating func parseAVCSlice(_ nalUnit: UnsafeRawBufferPointer) throws(NALUError) -> AVCSliceFields {
        if let start = AVCSliceFields.Start(nalUnit) {
            if avcFacts?.pps.picParameterSetId != start.picParameterSetId { avcFacts = facts(ofAVCPPS: start.picParameterSetId) }
            if let facts = avcFacts, let fields = AVCSliceFields(start, pps: facts.pps, sps: facts.sps) {
                return fields
            }
        }
        let prefix = Array(nalUnit.prefix(AVCSliceHeader.maxParsedPrefix + 8))
        let store = parameterSets
        let header = try AVCSliceHeader(nalUnit: prefix[...], sps: { store.avcSPS[$0]?.parsed }, pps: { store.avcPPS[$0]?.parsed })
        return AVCSliceFields(header, seqParameterSetId: store.avcPPS[header.picParameterSetId]?.parsed.seqParameterSetId ?? 0)
    }

    /// The slice-header facts of PPS `id` and of its SPS, when both are stored.
    private func facts(ofAVCPPS id: Int) -> (pps: AVCSlicePPSFacts, sps: AVCSliceSPSFacts)? {
        guard id >= 0, id < parameterSets.avcPPSFacts.count else { return nil }
        let pps = parameterSets.avcPPSFacts[id]
        guard pps.present, pps.seqParameterSetId >= 0, pps.seqParameterSetId < parameterSets.avcSPSFacts.count else { return nil }
        let sps = parameterSets.avcSPSFacts[pps.seqParameterSetId]
        guard sps.present else { return nil }
        return (pps, sps)
    }

    /// The picture order count of the H.264 picture whose first slice was the NAL unit just
    /// pushed (call when ``Step/isFirstVCL``), from the fields the splitter already read, and
    /// how many pictures its SPS lets the stream reorder; `nil` when that NAL unit was no slice.
    /// (`mutating` only so that a caller holding the splitter in a class property calls it in
    /// place rather than on a copy; it changes nothing.)
    package mutating func avcPictureOrderCount(_ counter: inout PictureOrderCounter) throws(NALUError) -> (PictureOrderCount, reorderLimit: Int)? {
        guard codec == .h264, let slice = lastAVCSlice,
              slice.seqParameterSetId < parameterSets.avcSPSFacts.count else { return nil }
        let facts = parameterSets.avcSPSFacts[slice.seqParameterSetId]
        guard facts.present else { return nil }
        let count = try counter.pictureOrderCount(slice, facts: facts, sps: { parameterSets.avcSPS[slice.seqParameterSetId]?.parsed })
        return (count, facts.reorderLimit)
    }

    private func parseHEVCSlice(_ nalUnit: UnsafeRawBufferPointer) throws(NALUError) -> HEVCSliceSegmentHeader? {
        let type = HEVCNALUnitType(rawValue: nalUnit[0] >> 1)
        // Reserved VCL types (10–15, 22–31) have no slice syntax defined to parse.
        guard type.rawValue <= HEVCNALUnitType.raslR.rawValue
            || (HEVCNALUnitType.blaWLP.rawValue...HEVCNALUnitType.cra.rawValue).contains(type.rawValue) else { return nil }
        let prefix = Array(nalUnit.prefix(HEVCSliceSegmentHeader.prefixLength + 8))
        let store = parameterSets
        return try HEVCSliceSegmentHeader(nalUnit: prefix[...], sps: { store.hevcSPS[$0]?.parsed }, pps: { store.hevcPPS[$0]?.parsed })
    }

    /// The recovery count of a recovery point SEI message in `nalUnit`, if it has one. An SEI
    /// NAL unit with more than ``SEIMessage/defaultMessageLimit`` messages is not read (issue 32
    /// item 12: it rejected the whole stream): it counts in ``skippedSEINALUnits``.
    private mutating func recoveryPoint(in nalUnit: UnsafeRawBufferPointer) throws(NALUError) -> Int? {
        let messages: [SEIMessage]
        do {
            messages = try SEIMessage.messages(inNALUnit: Array(nalUnit)[...], codec: codec)
        } catch where error.code == .tooLarge {
            skippedSEINALUnits += 1
            return nil
        }
        for message in messages where message.payloadType == 6 {
            switch codec {
            case .h264: return try AVCRecoveryPoint(message).recoveryFrameCnt
            case .hevc: return try HEVCRecoveryPoint(message).recoveryPocCnt
            }
        }
        return nil
    }
}
