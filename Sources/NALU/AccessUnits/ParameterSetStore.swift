/// The parameter sets seen so far in a stream, keyed by id, following in-band updates.
///
/// Capacity follows the specs' id ranges: H.264 32 SPS and 256 PPS (7.4.2.1.1, 7.4.2.2);
/// H.265 16 VPS, 16 SPS and 64 PPS (7.4.3.1, 7.4.3.2.1, 7.4.3.3.1). A parameter set with an id
/// already stored replaces it (an in-band update); ``add(_:)`` says whether the bytes changed.
public struct ParameterSetStore: Sendable {
    /// A stored parameter set: its NAL unit bytes (escaped, header included) and its parsed form.
    public struct Entry<Parsed: Sendable & Hashable>: Sendable, Hashable {
        public let nalUnit: [UInt8]
        public let parsed: Parsed
    }

    /// What adding a parameter set did.
    public enum Update: Sendable, Hashable {
        /// First time this id was seen.
        case new
        /// Same id, same bytes as stored.
        case unchanged
        /// Same id, different bytes: the stored one was replaced.
        case changed
        /// An H.265 parameter set of a layer above the base (`nuh_layer_id` > 0): not stored.
        /// Pictures of the base layer never use it (7.4.2.2); it is carried like any other NAL
        /// unit (``Codec/isParameterSet(firstByte:secondByte:)``).
        case otherLayer
    }

    public let codec: Codec
    public private(set) var avcSPS: [Int: Entry<AVCSequenceParameterSet>] = [:]
    public private(set) var avcPPS: [Int: Entry<AVCPictureParameterSet>] = [:]
    public private(set) var hevcVPS: [Int: Entry<HEVCVideoParameterSet>] = [:]
    public private(set) var hevcSPS: [Int: Entry<HEVCSequenceParameterSet>] = [:]
    public private(set) var hevcPPS: [Int: Entry<HEVCPictureParameterSet>] = [:]
    /// The id of the SPS most recently added or referenced (the "active" one for summaries).
    public private(set) var lastSPSId: Int?
    /// What H.264 slice headers need from each SPS and PPS, in fixed tables indexed by id (32 and
    /// 256 entries), so a slice is read without hashing or copying a parameter set.
    private(set) var avcSPSFacts: [AVCSliceSPSFacts] = []
    private(set) var avcPPSFacts: [AVCSlicePPSFacts] = []

    public init(codec: Codec) {
        self.codec = codec
        if codec == .h264 {
            avcSPSFacts = Array(repeating: AVCSliceSPSFacts(), count: 32)
            avcPPSFacts = Array(repeating: AVCSlicePPSFacts(), count: 256)
        }
    }

    /// Parses and stores a VPS, SPS or PPS NAL unit. Errors carry offsets inside the NAL unit.
    /// An H.265 set of another layer than the base is left alone (``Update/otherLayer``).
    @discardableResult
    public mutating func add(_ nalUnit: [UInt8]) throws(NALUError) -> Update {
        guard let first = nalUnit.first else { throw NALUError.truncated("nal_unit_header", byteOffset: 0) }
        switch codec {
        case .h264:
            switch AVCNALUnitType(rawValue: first) {
            case .sps:
                if let id = Self.storedID(ofSame: nalUnit, in: avcSPS) {
                    lastSPSId = id
                    return .unchanged
                }
                let sps = try AVCSequenceParameterSet(nalUnit: nalUnit[...])
                let bytes = try ParameterSetSize.bounded(nalUnit, field: "seq_parameter_set_rbsp") { (try? AVCSequenceParameterSet(nalUnit: $0)) == sps }
                lastSPSId = sps.seqParameterSetId
                if sps.seqParameterSetId >= 0 && sps.seqParameterSetId < avcSPSFacts.count {
                    avcSPSFacts[sps.seqParameterSetId] = AVCSliceSPSFacts(sps)
                }
                let update = Self.store(&avcSPS, id: sps.seqParameterSetId, Entry(nalUnit: bytes, parsed: sps))
                reparsePPS(referringTo: sps.seqParameterSetId)
                return update
            case .pps:
                if Self.storedID(ofSame: nalUnit, in: avcPPS) != nil { return .unchanged }
                let spsTable = avcSPS
                let pps = try AVCPictureParameterSet(nalUnit: nalUnit[...], sps: { spsTable[$0]?.parsed })
                let bytes = try ParameterSetSize.bounded(nalUnit, field: "pic_parameter_set_rbsp") {
                    (try? AVCPictureParameterSet(nalUnit: $0, sps: { spsTable[$0]?.parsed })) == pps
                }
                if pps.picParameterSetId >= 0 && pps.picParameterSetId < avcPPSFacts.count {
                    avcPPSFacts[pps.picParameterSetId] = AVCSlicePPSFacts(pps)
                }
                return Self.store(&avcPPS, id: pps.picParameterSetId, Entry(nalUnit: bytes, parsed: pps))
            default:
                throw NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0, detail: "not a parameter set")
            }
        case .hevc:
            // A parameter set's type, not of the base layer.
            if codec.isParameterSet(firstByte: first), !codec.isParameterSet(nalUnit) { return .otherLayer }
            switch HEVCNALUnitType(rawValue: first >> 1) {
            case .vps:
                if Self.storedID(ofSame: nalUnit, in: hevcVPS) != nil { return .unchanged }
                let vps = try HEVCVideoParameterSet(nalUnit: nalUnit[...])
                let bytes = try ParameterSetSize.bounded(nalUnit, field: "video_parameter_set_rbsp") { (try? HEVCVideoParameterSet(nalUnit: $0)) == vps }
                return Self.store(&hevcVPS, id: vps.vpsVideoParameterSetId, Entry(nalUnit: bytes, parsed: vps))
            case .sps:
                if let id = Self.storedID(ofSame: nalUnit, in: hevcSPS) {
                    lastSPSId = id
                    return .unchanged
                }
                let sps = try HEVCSequenceParameterSet(nalUnit: nalUnit[...])
                let bytes = try ParameterSetSize.bounded(nalUnit, field: "seq_parameter_set_rbsp") { (try? HEVCSequenceParameterSet(nalUnit: $0)) == sps }
                lastSPSId = sps.spsSeqParameterSetId
                return Self.store(&hevcSPS, id: sps.spsSeqParameterSetId, Entry(nalUnit: bytes, parsed: sps))
            case .pps:
                if Self.storedID(ofSame: nalUnit, in: hevcPPS) != nil { return .unchanged }
                let pps = try HEVCPictureParameterSet(nalUnit: nalUnit[...])
                let bytes = try ParameterSetSize.bounded(nalUnit, field: "pic_parameter_set_rbsp") { (try? HEVCPictureParameterSet(nalUnit: $0)) == pps }
                return Self.store(&hevcPPS, id: pps.ppsPicParameterSetId, Entry(nalUnit: bytes, parsed: pps))
            default:
                throw NALUError(.invalidValue, field: "nal_unit_type", byteOffset: 0, detail: "not a parameter set")
            }
        }
    }

    /// Parses again the stored PPSs that refer to SPS `id`, which has just arrived or changed. A
    /// PPS's syntax and ranges depend on its SPS (7.3.2.2, 7.4.2.2: `chroma_format_idc` sets the
    /// number of 8×8 scaling lists, the luma bit depth the range of `pic_init_qp_minus26`,
    /// `PicSizeInMapUnits` that of `pic_size_in_map_units_minus1`), so one parsed under the
    /// previous SPS may read differently or not at all under this one. One that no longer parses
    /// is dropped: it cannot be used until it is sent again, and written into a record or before
    /// a keyframe it would make the output unreadable. At most 256 PPSs per SPS that changes.
    private mutating func reparsePPS(referringTo id: Int) {
        let spsTable = avcSPS
        for (ppsId, entry) in avcPPS where entry.parsed.seqParameterSetId == id {
            let pps = try? AVCPictureParameterSet(nalUnit: entry.nalUnit[...], sps: { spsTable[$0]?.parsed })
            avcPPS[ppsId] = pps.map { Entry(nalUnit: entry.nalUnit, parsed: $0) }
            if ppsId >= 0 && ppsId < avcPPSFacts.count {
                avcPPSFacts[ppsId] = pps.map(AVCSlicePPSFacts.init) ?? AVCSlicePPSFacts()
            }
        }
    }

    /// The id of the stored set whose bytes are exactly `nalUnit`, when it is short enough to be
    /// stored whole (``ParameterSetSize/trimThreshold``). A VPS or SPS parses from its bytes alone,
    /// so adding the same bytes again would give the same set, facts and id, and change nothing:
    /// the repeat before every keyframe costs a comparison, not a parse. So does a PPS: an H.264
    /// PPS's parse depends on its SPS, but every stored PPS was parsed again under its SPS when
    /// that changed (``reparsePPS(referringTo:)``; one that no longer parses was dropped), so the
    /// stored set is what the same bytes parse to now. (Inlined: specialized for each table,
    /// instead of walking a dictionary of a generic entry type.)
    @inline(__always)
    private static func storedID<T>(ofSame nalUnit: [UInt8], in table: [Int: Entry<T>]) -> Int? {
        guard nalUnit.count <= ParameterSetSize.trimThreshold else { return nil }
        for (id, entry) in table where entry.nalUnit == nalUnit { return id }
        return nil
    }

    private static func store<T>(_ table: inout [Int: Entry<T>], id: Int, _ entry: Entry<T>) -> Update {
        let previous = table.updateValue(entry, forKey: id)
        guard let previous else { return .new }
        return previous.nalUnit == entry.nalUnit ? .unchanged : .changed
    }

    /// Whether no parameter set has been stored.
    public var isEmpty: Bool {
        avcSPS.isEmpty && avcPPS.isEmpty && hevcVPS.isEmpty && hevcSPS.isEmpty && hevcPPS.isEmpty
    }

    /// Every stored parameter set's NAL unit in decoding order: VPS, SPS, PPS, each by id.
    public var nalUnits: [[UInt8]] {
        switch codec {
        case .h264:
            return avcSPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
                + avcPPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
        case .hevc:
            return hevcVPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
                + hevcSPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
                + hevcPPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
        }
    }

    /// A description of the most recent SPS, if any.
    public var streamDescription: StreamDescription? {
        guard let id = lastSPSId else { return nil }
        switch codec {
        case .h264: return avcSPS[id].map { StreamDescription($0.parsed) }
        case .hevc: return hevcSPS[id].map { StreamDescription($0.parsed) }
        }
    }

    /// Whether an SPS and a PPS (and for H.265 a VPS) are stored: enough to decode a keyframe.
    public var hasDecodableSet: Bool {
        switch codec {
        case .h264: !avcSPS.isEmpty && !avcPPS.isEmpty
        case .hevc: !hevcVPS.isEmpty && !hevcSPS.isEmpty && !hevcPPS.isEmpty
        }
    }
}
