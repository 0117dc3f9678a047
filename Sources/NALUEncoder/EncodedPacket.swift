public import NALU

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
    /// Why decoding can start here (the core's classes: IDR, CRA, BLA, recovery point), or `nil`.
    public var keyframe: KeyframeClass?
    /// The picture's coding type as the encoder reports it, when known.
    public var pictureType: PictureType?
    /// How ``bytes`` is framed (the session sets the configuration's ``EncoderConfiguration/outputFormat``).
    public var format: StreamFormat
    /// Seconds per tick of ``pts`` and ``dts`` (the session sets the configuration's
    /// ``EncoderConfiguration/effectiveTimeBase``).
    public var timeBase: Rational
    /// The picture's PSNR/SSIM as the library measured it (with ``EncoderConfiguration/computePSNR``
    /// or ``EncoderConfiguration/computeSSIM``); `nil` otherwise.
    public var quality: PictureQuality? = nil

    public init(bytes: [UInt8], pts: Int64, dts: Int64, keyframe: KeyframeClass?, pictureType: PictureType?,
                format: StreamFormat = .annexB, timeBase: Rational = Rational(1, 30)) {
        self.bytes = bytes
        self.pts = pts
        self.dts = dts
        self.keyframe = keyframe
        self.pictureType = pictureType
        self.format = format
        self.timeBase = timeBase
    }
}

/// Packets go straight into NALUMP4's `MP4Writer.append(_:)`, which converts the timestamps to
/// its timescale and the framing to its record's length size.
extension EncodedPacket: TimedAccessUnit {
    /// Whether decoding can start here (``keyframe`` is set).
    public var isSync: Bool { keyframe != nil }
}

/// Splitting and framing helpers shared by backends.
public enum EncoderFraming {
    /// The NAL units of `bytes` in `format` (4-byte lengths for length-prefixed), without their
    /// start codes or lengths (copies: packets are small and these are the sets the session moves).
    /// Zero-length NAL units are skipped; malformed length-prefixed data ends the list early.
    public static func nalUnits(in bytes: [UInt8], format: StreamFormat) -> [[UInt8]] {
        switch format {
        case .annexB:
            return AnnexB.nalUnits(in: bytes).map { Array($0) }
        case .lengthPrefixed:
            var units: [[UInt8]] = []
            var position = 0
            var zeroLength = 0
            bytes.withUnsafeBytes { raw in
                LengthPrefixed.forEachCompleteNALUnit(in: raw, position: &position, lengthSize: 4, baseOffset: 0,
                                                      zeroLengthNALUnits: &zeroLength) { units.append($0.array) }
            }
            return units
        }
    }

    /// `nalUnits` framed as `format` (start codes, or 4-byte big-endian lengths).
    public static func frame(_ nalUnits: [[UInt8]], format: StreamFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nalUnits.reduce(0) { $0 + $1.count + 4 })
        for unit in nalUnits {
            switch format {
            case .annexB:
                bytes.append(contentsOf: [0, 0, 0, 1])
            case .lengthPrefixed:
                let length = UInt32(truncatingIfNeeded: unit.count)
                bytes.append(contentsOf: [UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                                          UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
            }
            bytes.append(contentsOf: unit)
        }
        return bytes
    }

    /// The parameter sets among `nalUnits` (H.264 SPS/PPS; H.265 VPS/SPS/PPS), in stream order.
    public static func parameterSets(_ nalUnits: [[UInt8]], codec: Codec) -> [[UInt8]] {
        nalUnits.filter { codec.isParameterSet($0) }
    }

    /// The keyframe class of an access unit from its NAL unit types (H.264: IDR slice; H.265:
    /// IDR, CRA or BLA). `libraryKeyframe` marks a picture the library flagged as a keyframe
    /// without any of those (x264 open GOP: an I picture with a recovery point SEI).
    public static func keyframeClass(nalTypes: some Sequence<UInt8>, codec: Codec, libraryKeyframe: Bool) -> KeyframeClass? {
        var found: KeyframeClass?
        for type in nalTypes {
            // `type` is a nal_unit_type value (H.264 0–31, H.265 0–63), not a header byte.
            let keyframe = switch codec {
            case .h264: KeyframeClass(nalUnitType: AVCNALUnitType(rawValue: type))
            case .hevc: KeyframeClass(nalUnitType: HEVCNALUnitType(rawValue: type))
            }
            if keyframe == .idr { return .idr }
            if let keyframe { found = keyframe }
        }
        return found ?? (libraryKeyframe ? .recoveryPoint(count: 0) : nil)
    }
}
