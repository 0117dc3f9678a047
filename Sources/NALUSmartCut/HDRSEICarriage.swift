import NALU
import NALUMedia

/// Carries a source's HDR10 static metadata (mastering display colour volume and content light
/// level SEI, ITU-T H.264 D.1.29/D.1.31, H.265 D.2.28/D.2.35) into re-encoded pictures: the
/// messages are collected from the source's SEI NAL units as the cut reads them, and a keyframe
/// the encoder wrote without them gets one SEI NAL unit holding both before its first slice
/// (``HDRStaticMetadataSEI``). The messages persist for the coded video sequence (H.265
/// D.3.28), so a re-encoded head or tail without them would play as SDR-graded (issue 41 item 14).
struct HDRSEICarriage {
    let codec: Codec
    private var summary = SEISummary()
    /// SEI NAL units looked at, at most (the messages come with the first keyframe).
    static let nalUnitLimit = 256

    init(codec: Codec, declarativeSEI: [[UInt8]]) {
        self.codec = codec
        for unit in declarativeSEI { take(unit) }
    }

    /// Looks at one NAL unit of the source.
    mutating func take(_ nal: [UInt8]) {
        guard summary.masteringDisplay == nil || summary.contentLightLevel == nil, summary.nalUnits < Self.nalUnitLimit,
              Self.isSEI(nal, codec) else { return }
        summary.add(nal[...], codec: codec, offset: 0)
    }

    /// The SEI NAL unit to add, `nil` when the source has neither message.
    var nalUnit: [UInt8]? {
        HDRStaticMetadataSEI.nalUnit(codec: codec, masteringDisplay: summary.masteringDisplay, contentLightLevel: summary.contentLightLevel)
    }

    /// `nalUnits` (one access unit) with the messages inserted before the first slice when it is
    /// a keyframe (H.264 IDR, H.265 IRAP) without them; unchanged otherwise.
    func inserting(into nalUnits: [[UInt8]]) -> [[UInt8]] {
        guard let sei = nalUnit, let first = nalUnits.firstIndex(where: { isVCL($0, codec) }), Self.isKeyframe(nalUnits[first], codec) else {
            return nalUnits
        }
        for nal in nalUnits[..<first] where Self.isSEI(nal, codec) {
            let types = (try? SEIMessage.messages(inNALUnit: nal, codec: codec))?.map(\.payloadType) ?? []
            if types.contains(MasteringDisplayColourVolume.payloadType) || types.contains(ContentLightLevelInfo.payloadType) { return nalUnits }
        }
        var out = nalUnits
        out.insert(sei, at: first)
        return out
    }

    static func isSEI(_ nal: [UInt8], _ codec: Codec) -> Bool {
        switch try? NALUnitHeader(nal, codec: codec) {
        case .avc(let header)?: header.nalUnitType == .sei
        case .hevc(let header)?: header.nalUnitType == .prefixSEI
        case nil: false
        }
    }

    static func isKeyframe(_ nal: [UInt8], _ codec: Codec) -> Bool {
        switch try? NALUnitHeader(nal, codec: codec) {
        case .avc(let header)?: header.nalUnitType == .idrSlice
        case .hevc(let header)?: header.nalUnitType.isIRAP
        case nil: false
        }
    }
}
