public import NALU

/// How a picture can be used as a random access point.
public enum KeyframeClass: String, Sendable, Hashable, CustomStringConvertible {
    /// Not a random access point.
    case none
    /// IDR picture (H.264 type 5, H.265 types 19/20): closed GOP, decoding can start here.
    case idr
    /// Open-GOP random access point: H.264 I picture with a recovery point SEI, H.265 CRA.
    case openGOP = "open-gop"

    public var description: String { rawValue }
    /// Whether decoding can start at this picture.
    public var isKeyframe: Bool { self != .none }
}

/// The coding type of a picture, as reported by the encoder.
public enum PictureType: String, Sendable, Hashable, CustomStringConvertible {
    case i = "I"
    case p = "P"
    /// A B-picture other pictures refer to (x264/x265 "B-ref", B-pyramid).
    case bReference = "B-ref"
    case b = "B"
    case unknown = "?"

    public var description: String { rawValue }
    public var isB: Bool { self == .b || self == .bReference }
}

/// One encoded access unit: every NAL unit of one picture (plus the parameter sets and SEI the
/// encoder put in front of it), framed as the configuration's ``EncoderConfiguration/outputFormat``.
///
/// The bytes are a copy owned by the packet: they stay valid after later encode calls.
public struct EncodedPacket: Sendable, Hashable {
    /// The access unit, Annex-B or 4-byte length-prefixed.
    public var bytes: [UInt8]
    /// Presentation timestamp in the session's time base.
    public var pts: Int64
    /// Decoding timestamp in the session's time base; strictly increasing across packets (may
    /// be negative for the first packets of a stream with B-frames).
    public var dts: Int64
    public var keyframe: KeyframeClass
    public var pictureType: PictureType

    public init(bytes: [UInt8], pts: Int64, dts: Int64, keyframe: KeyframeClass, pictureType: PictureType) {
        self.bytes = bytes
        self.pts = pts
        self.dts = dts
        self.keyframe = keyframe
        self.pictureType = pictureType
    }
}

/// Splitting and framing helpers shared by backends.
public enum EncoderFraming {
    /// The NAL units of `bytes` in `format` (4-byte lengths for length-prefixed), without their
    /// start codes or lengths. Malformed length-prefixed data ends the list early.
    public static func nalUnits(in bytes: [UInt8], format: StreamFormat) -> [[UInt8]] {
        switch format {
        case .annexB:
            return AnnexB.nalUnits(in: bytes).map { Array($0) }
        case .lengthPrefixed:
            var units: [[UInt8]] = []
            var index = 0
            while index + 4 <= bytes.count {
                let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                index += 4
                guard length <= bytes.count - index else { break }
                units.append(Array(bytes[index..<(index + length)]))
                index += length
            }
            return units
        }
    }

    /// The parameter sets among `nalUnits` (H.264 SPS/PPS; H.265 VPS/SPS/PPS), in stream order.
    public static func parameterSets(_ nalUnits: [[UInt8]], codec: Codec) -> [[UInt8]] {
        nalUnits.filter { unit in
            guard let first = unit.first else { return false }
            switch codec {
            case .h264:
                let type = first & 0x1F
                return type == 7 || type == 8
            case .hevc:
                let type = (first >> 1) & 0x3F
                return (32...34).contains(type)
            }
        }
    }

    /// The keyframe class of an access unit from its NAL unit types (H.264: IDR slice; H.265:
    /// IDR, CRA or BLA). `recoveryPoint` marks an H.264 I picture x264 flagged as a keyframe
    /// without an IDR (open GOP).
    public static func keyframeClass(nalTypes: some Sequence<UInt8>, codec: Codec, libraryKeyframe: Bool) -> KeyframeClass {
        var sawIntraRandomAccess = false
        for type in nalTypes {
            switch codec {
            case .h264:
                if type == 5 { return .idr }
            case .hevc:
                if type == 19 || type == 20 { return .idr }
                if (16...18).contains(type) || type == 21 { sawIntraRandomAccess = true }
            }
        }
        return sawIntraRandomAccess || libraryKeyframe ? .openGOP : .none
    }
}
