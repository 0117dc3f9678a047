public import NALU
public import NALUEncoder
import NALUMedia

/// The HDR static metadata of a compressed input that a transcode (``ExportSession``, `nalu encode IN`) carries to the encoder
/// (issue 33, item 4): the first mastering display colour volume SEI (`payloadType` 137, ITU-T
/// H.265 D.2.28, SMPTE ST 2086) and content light level information SEI (`payloadType` 144,
/// H.265 D.2.35) of the stream, as `nalu info` reports them (``NALUMedia/SEISummary``).
public struct HDRMetadata: Equatable, Sendable {
    /// The first mastering display colour volume SEI.
    public var masteringDisplay: MasteringDisplayColourVolume?
    /// The first content light level information SEI.
    public var contentLightLevel: ContentLightLevelInfo?

    /// How many NAL units of the input are looked at: the messages go with the first IRAP
    /// picture (H.265 D.3.28, D.3.35), so the first access units are enough.
    public static let nalUnitLimit = 256

    private struct Enough: Error {}

    /// The messages of `path`'s first NAL units (an hvcC record's declarative SEI included);
    /// empty when it has none, or cannot be read again (the decoder reports that).
    public init(path: String) {
        var options = MediaSourceOptions()
        options.readsAhead = false
        guard let source = try? MediaSource(path: path, options: options) else { return }
        var summary = SEISummary()
        let codec = source.codec
        func isSEI(_ type: UInt8) -> Bool { codec == .h264 ? type == 6 : type == 39 }
        for unit in source.declarativeSEI where !unit.isEmpty {
            if isSEI(codec.nalUnitType(firstByte: unit[0])) { summary.add(unit[...], codec: codec, offset: 0) }
        }
        var seen = 0
        _ = try? source.forEachAccessUnit(nalUnit: { unit, header in
            seen += 1
            if isSEI(header.typeNumber) { summary.add(unit.array[...], codec: codec, offset: unit.offset) }
            if seen >= Self.nalUnitLimit || (summary.masteringDisplay != nil && summary.contentLightLevel != nil) { throw Enough() }
        }) { _ in }
        masteringDisplay = summary.masteringDisplay
        contentLightLevel = summary.contentLightLevel
    }

    /// x265's `master-display` and `max-cll`, or x264's `mastering-display` and `cll` (both
    /// parse `G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)` with the SEI's own units, and write the
    /// primaries in the order given: c = 0, 1, 2 of the source's message), leaving out any name
    /// in `given`.
    public func parameters(x265: Bool, except given: Set<String>) -> [EncoderParameter] {
        var parameters: [EncoderParameter] = []
        if let display = masteringDisplay, display.displayPrimariesX.count == 3, display.displayPrimariesY.count == 3 {
            let name = x265 ? "master-display" : "mastering-display"
            let x = display.displayPrimariesX, y = display.displayPrimariesY
            let value = "G(\(x[0]),\(y[0]))B(\(x[1]),\(y[1]))R(\(x[2]),\(y[2]))WP(\(display.whitePointX),\(display.whitePointY))"
                + "L(\(display.maxDisplayMasteringLuminance),\(display.minDisplayMasteringLuminance))"
            if !given.contains(name) { parameters.append(EncoderParameter(name: name, value: value)) }
        }
        if let light = contentLightLevel {
            let name = x265 ? "max-cll" : "cll"
            if !given.contains(name) {
                parameters.append(EncoderParameter(name: name, value: "\(light.maxContentLightLevel),\(light.maxPicAverageLightLevel)"))
            }
        }
        return parameters
    }
}
