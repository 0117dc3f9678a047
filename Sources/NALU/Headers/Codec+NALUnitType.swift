extension Codec {
    /// nal_unit_type of a NAL unit whose first header byte is `firstByte`: its low 5 bits in
    /// H.264 (7.3.1), bits 1–6 in H.265 (7.3.1.2), read through ``AVCNALUnitType`` and
    /// ``HEVCNALUnitType`` so the masks live in one place.
    public func nalUnitType(firstByte: UInt8) -> UInt8 {
        self == .h264 ? AVCNALUnitType(rawValue: firstByte).rawValue : HEVCNALUnitType(rawValue: firstByte >> 1).rawValue
    }

    /// Whether the NAL unit is a parameter set: H.264 SPS/PPS (7, 8), H.265 VPS/SPS/PPS (32–34).
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
