extension Codec {
    /// nal_unit_type of a NAL unit whose first header byte is `firstByte`: its low 5 bits in
    /// H.264 (7.3.1), bits 1–6 in H.265 (7.3.1.2), read through ``AVCNALUnitType`` and
    /// ``HEVCNALUnitType`` so the masks live in one place.
    public func nalUnitType(firstByte: UInt8) -> UInt8 {
        self == .h264 ? AVCNALUnitType(rawValue: firstByte).rawValue : HEVCNALUnitType(rawValue: firstByte >> 1).rawValue
    }

    /// Whether the NAL unit's type is a parameter set's: H.264 SPS/PPS (7, 8), H.265 VPS/SPS/PPS
    /// (32–34), of any layer. What moves to a record, replaces a stored set or is inserted before
    /// a keyframe is decided by ``isParameterSet(firstByte:secondByte:)``, which also reads the
    /// H.265 layer.
    public func isParameterSet(firstByte: UInt8) -> Bool {
        switch self {
        case .h264:
            let type = AVCNALUnitType(rawValue: firstByte)
            return type == .sps || type == .pps
        case .hevc:
            let type = HEVCNALUnitType(rawValue: firstByte >> 1)
            return type == .vps || type == .sps || type == .pps
        }
    }

    /// Whether the NAL unit whose header starts with `firstByte`, `secondByte` is a parameter set
    /// of the base layer: an H.264 SPS or PPS, an H.265 VPS, SPS or PPS with `nuh_layer_id` 0.
    ///
    /// An H.265 parameter set of another layer (`nuh_layer_id` > 0, multi-layer extensions,
    /// Annex F) is for decoders of that layer: a decoder of the base layer ignores every NAL unit
    /// with `nuh_layer_id` > 0 (7.4.2.2), so its ids do not replace the base layer's sets. nalu
    /// carries such a set like any other NAL unit: it stays where it is, never moves to a record.
    @inline(__always)
    public func isParameterSet(firstByte: UInt8, secondByte: UInt8) -> Bool {
        isParameterSet(firstByte: firstByte)
            && (self == .h264 || HEVCNALUnitHeader.nuhLayerId(firstByte: firstByte, secondByte: secondByte) == 0)
    }

    /// ``isParameterSet(firstByte:secondByte:)`` of a NAL unit's bytes (header included).
    public func isParameterSet(_ nalUnit: some Collection<UInt8>) -> Bool {
        var bytes = nalUnit.makeIterator()
        guard let first = bytes.next() else { return false }
        return isParameterSet(firstByte: first, secondByte: bytes.next() ?? 0)
    }

    /// Whether the NAL unit is an access unit delimiter (H.264 type 9, H.265 type 35).
    public func isAccessUnitDelimiter(firstByte: UInt8) -> Bool {
        self == .h264 ? AVCNALUnitType(rawValue: firstByte) == .accessUnitDelimiter
                      : HEVCNALUnitType(rawValue: firstByte >> 1) == .accessUnitDelimiter
    }

    /// Whether the NAL unit is an end of sequence (H.264 type 10, H.265 type 36).
    public func isEndOfSequence(firstByte: UInt8) -> Bool {
        self == .h264 ? AVCNALUnitType(rawValue: firstByte) == .endOfSequence
                      : HEVCNALUnitType(rawValue: firstByte >> 1) == .endOfSequence
    }
}
