import NALU

/// The `colr` and `pasp` boxes of a VisualSampleEntry written from the SPS VUI in its record
/// (ISO/IEC 14496-12 12.1.5 ColourInformationBox with `nclx`, 12.1.4 PixelAspectRatioBox).
extension BoxBuilder {
    /// Writes `colr` when the VUI has `video_signal_type_present_flag` (code points 2 where the
    /// colour description is absent), and `pasp` when it gives a sample aspect ratio.
    mutating func colourBoxes(record bytes: [UInt8], codec: Codec) {
        guard let signal = VUISignal(record: bytes, codec: codec) else { return }
        if let colour = signal.colour {
            box(FourCC("colr")) { box in
                box.fourCC(FourCC("nclx"))
                box.u16(UInt16(colour.primaries))
                box.u16(UInt16(colour.transfer))
                box.u16(UInt16(colour.matrix))
                box.u8(colour.fullRange ? 0x80 : 0)
            }
        }
        if let ratio = signal.sampleAspectRatio {
            box(FourCC("pasp")) { box in
                box.u32(UInt32(clamping: ratio.numerator))
                box.u32(UInt32(clamping: ratio.denominator))
            }
        }
    }
}

/// The VUI fields the boxes carry, from a record's first SPS.
private struct VUISignal {
    var colour: (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)?
    var sampleAspectRatio: Rational?

    init?(record bytes: [UInt8], codec: Codec) {
        guard let record = try? DecoderConfigurationRecord(parsing: bytes, codec: codec) else { return nil }
        switch codec {
        case .h264:
            guard let unit = record.parameterSets.first(where: { (try? AVCNALUnitHeader($0))?.nalUnitType == .sps }),
                  let vui = (try? AVCSequenceParameterSet(nalUnit: unit))?.vuiParameters else { return nil }
            if vui.videoSignalTypePresentFlag {
                colour = (Int(vui.colourPrimaries), Int(vui.transferCharacteristics), Int(vui.matrixCoefficients), vui.videoFullRangeFlag)
            }
            sampleAspectRatio = vui.aspectRatioInfoPresentFlag ? vui.sampleAspectRatio : nil
        case .hevc:
            guard let unit = record.parameterSets.first(where: { (try? HEVCNALUnitHeader($0))?.nalUnitType == .sps }),
                  let vui = (try? HEVCSequenceParameterSet(nalUnit: unit))?.vuiParameters else { return nil }
            if vui.videoSignalTypePresentFlag {
                colour = (vui.colourPrimaries, vui.transferCharacteristics, vui.matrixCoeffs, vui.videoFullRangeFlag)
            }
            sampleAspectRatio = vui.sampleAspectRatio
        }
    }
}
