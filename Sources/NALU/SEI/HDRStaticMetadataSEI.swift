/// Writes the HDR10 static metadata SEI messages — mastering display colour volume
/// (`payloadType` 137; ITU-T H.264 D.1.29, H.265 D.2.28) and content light level information
/// (`payloadType` 144; H.264 D.1.31, H.265 D.2.35) — into one SEI NAL unit (H.264 `nal_unit_type`
/// 6 with `nal_ref_idc` 0, H.265 prefix SEI 39), for an encoder that cannot write them itself.
public enum HDRStaticMetadataSEI {
    /// The SEI NAL unit (header included, emulation prevention applied) holding `masteringDisplay`
    /// and `contentLightLevel` (either may be `nil`), or `nil` when both are.
    public static func nalUnit(codec: Codec, masteringDisplay: MasteringDisplayColourVolume?,
                               contentLightLevel: ContentLightLevelInfo?) -> [UInt8]? {
        guard masteringDisplay != nil || contentLightLevel != nil else { return nil }
        // sei_rbsp(): sei_message()s (payloadType and payloadSize below 255: one byte each),
        // then rbsp_trailing_bits() (7.3.2.3.1 H.264, 7.3.5 H.265).
        var rbsp: [UInt8] = []
        if let masteringDisplay {
            let payload = masteringDisplay.payload
            rbsp += [UInt8(MasteringDisplayColourVolume.payloadType), UInt8(payload.count)] + payload
        }
        if let contentLightLevel {
            let payload = contentLightLevel.payload
            rbsp += [UInt8(ContentLightLevelInfo.payloadType), UInt8(payload.count)] + payload
        }
        rbsp.append(0x80)
        let header: [UInt8] = switch codec {
        case .h264: [AVCNALUnitHeader(nalRefIdc: 0, nalUnitType: .sei).firstByte]
        case .hevc: HEVCNALUnitHeader(nalUnitType: .prefixSEI).bytes
        }
        return header + RBSP.escape(rbsp)
    }
}

extension AVCNALUnitHeader {
    /// The one-byte header: `forbidden_zero_bit` 0, `nal_ref_idc`, `nal_unit_type` (7.3.1).
    var firstByte: UInt8 { (nalRefIdc & 0x03) << 5 | nalUnitType.rawValue }
}

extension MasteringDisplayColourVolume {
    /// `mastering_display_colour_volume()` as written: the three primaries' x and y (u(16)
    /// each, in the message's order), the white point, then the luminances (u(32)).
    public var payload: [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ value: Int) { bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
        func u32(_ value: UInt32) { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        for c in 0..<3 {
            u16(c < displayPrimariesX.count ? displayPrimariesX[c] : 0)
            u16(c < displayPrimariesY.count ? displayPrimariesY[c] : 0)
        }
        u16(whitePointX)
        u16(whitePointY)
        u32(maxDisplayMasteringLuminance)
        u32(minDisplayMasteringLuminance)
        return bytes
    }
}

extension ContentLightLevelInfo {
    /// `content_light_level_info()` as written: MaxCLL and MaxFALL, u(16) each.
    public var payload: [UInt8] {
        [UInt8(truncatingIfNeeded: maxContentLightLevel >> 8), UInt8(truncatingIfNeeded: maxContentLightLevel),
         UInt8(truncatingIfNeeded: maxPicAverageLightLevel >> 8), UInt8(truncatingIfNeeded: maxPicAverageLightLevel)]
    }
}
