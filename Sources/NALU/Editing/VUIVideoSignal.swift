/// The VUI elements that say how the pictures look, with the same meaning in both codecs (ITU-T
/// H.264 E.1.1 / ITU-T H.265 E.2.1): sample aspect ratio and video signal type. `nalu edit`
/// changes them through this one shape.
package protocol VUIVideoSignal {
    var aspectRatioInfoPresentFlag: Bool { get set }
    var aspectRatioIdc: Int { get set }
    var sarWidth: Int { get set }
    var sarHeight: Int { get set }
    var videoSignalTypePresentFlag: Bool { get set }
    var videoFullRangeFlag: Bool { get set }
    var colourDescriptionPresentFlag: Bool { get set }
    var colourPrimaries: Int { get set }
    var transferCharacteristics: Int { get set }
    /// `matrix_coefficients` (H.264) / `matrix_coeffs` (H.265).
    var matrixCoefficientsCode: Int { get set }
}

extension AVCVUIParameters: VUIVideoSignal {
    package var matrixCoefficientsCode: Int {
        get { matrixCoefficients }
        set { matrixCoefficients = newValue }
    }
}

extension HEVCVUIParameters: VUIVideoSignal {
    package var matrixCoefficientsCode: Int {
        get { matrixCoeffs }
        set { matrixCoeffs = newValue }
    }
}

extension ParameterSetEdits {
    /// Applies the colour description, range and sample aspect ratio edits to `vui`.
    func applyVideoSignal(to vui: inout some VUIVideoSignal) throws(NALUError) {
        if colourPrimaries != nil || transferCharacteristics != nil || matrixCoefficients != nil {
            try checkColourCodes()
            vui.videoSignalTypePresentFlag = true
            vui.colourDescriptionPresentFlag = true
            if let colourPrimaries { vui.colourPrimaries = colourPrimaries }
            if let transferCharacteristics { vui.transferCharacteristics = transferCharacteristics }
            if let matrixCoefficients { vui.matrixCoefficientsCode = matrixCoefficients }
        }
        if let fullRange {
            vui.videoSignalTypePresentFlag = true
            vui.videoFullRangeFlag = fullRange
        }
        if let sampleAspectRatio {
            let code = try Self.aspectRatioCode(sampleAspectRatio)
            vui.aspectRatioInfoPresentFlag = true
            vui.aspectRatioIdc = code.idc
            vui.sarWidth = code.width
            vui.sarHeight = code.height
        }
    }
}
