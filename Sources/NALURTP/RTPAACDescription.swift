/// An AAC stream of an SDP description (RFC 3640 `mpeg4-generic`, the AAC-hbr mode): the
/// audio that goes with the video, described so a receiver can play it. Its packets are made by
/// ``RTPAACPacketizer`` and read by ``RTPAACDepacketizer`` (``RTPAACPayloadFormat`` checks that
/// the mode is one they take).
public struct RTPAACDescription: Sendable, Hashable {
    /// The `m=audio` line's port.
    public var port: UInt16
    /// The `m=` line's payload type.
    public var payloadType: UInt8
    /// The `a=rtpmap` clock rate: the sampling rate.
    public var sampleRate: Int
    /// The `a=rtpmap` encoding parameters: the channel count.
    public var channels: Int
    /// `config`: the AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1).
    public var audioSpecificConfig: [UInt8]
    /// `sizelength`, `indexlength`, `indexdeltalength` (RFC 3640 3.3.6: 13, 3, 3 for AAC-hbr).
    public var sizeLength: Int
    public var indexLength: Int
    public var indexDeltaLength: Int
    /// `mode` (RFC 3640 4.1): `AAC-hbr` (written), `AAC-lbr`, or another the reader refuses.
    public var mode: String
    /// `constantDuration` (RFC 3640 4.1): every AU lasts this many ticks of the clock rate;
    /// `nil` when absent (the AudioSpecificConfig's frame length then, ISO/IEC 14496-3 4.5.1.1).
    public var constantDuration: Int?
    /// The other AU-header parameters given with a non-zero value, `name=value` as read
    /// (`ctsdeltalength`, `dtsdeltalength`, `randomaccessindication`, `streamstateindication`,
    /// `auxiliarydatasizelength`, `constantsize`): kept so the description writes back what
    /// it read; ``RTPAACPayloadFormat`` refuses them (their fields are not read).
    public var otherParameters: [String]

    /// The longest `config` read, in bytes.
    public static let maxConfigBytes = 64

    public init(port: UInt16, payloadType: UInt8 = 97, sampleRate: Int, channels: Int, audioSpecificConfig: [UInt8],
                sizeLength: Int = 13, indexLength: Int = 3, indexDeltaLength: Int = 3, mode: String = "AAC-hbr",
                constantDuration: Int? = nil, otherParameters: [String] = []) {
        self.port = port
        self.payloadType = payloadType
        self.sampleRate = sampleRate
        self.channels = channels
        self.audioSpecificConfig = audioSpecificConfig
        self.sizeLength = sizeLength
        self.indexLength = indexLength
        self.indexDeltaLength = indexDeltaLength
        self.mode = mode
        self.constantDuration = constantDuration
        self.otherParameters = otherParameters
    }

    /// The `m=`, `a=rtpmap` and `a=fmtp` lines (RFC 3640 4.1).
    var lines: [String] {
        let digits = Array("0123456789ABCDEF")
        let config = String(audioSpecificConfig.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
        var extra = constantDuration.map { ";constantduration=\($0)" } ?? ""
        for parameter in otherParameters { extra += ";" + parameter }
        return [
            "m=audio \(port) RTP/AVP \(payloadType)",
            "a=rtpmap:\(payloadType) MPEG4-GENERIC/\(sampleRate)/\(channels)",
            "a=fmtp:\(payloadType) streamtype=5;profile-level-id=1;mode=\(mode);sizelength=\(sizeLength);indexlength=\(indexLength);"
                + "indexdeltalength=\(indexDeltaLength);config=\(config)" + extra,
        ]
    }
}
