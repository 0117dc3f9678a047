public import NALU

/// How AAC access units travel in RTP packets of the RFC 3640 `mpeg4-generic` payload: the
/// AU-header fields' lengths (3.2.1), and the duration of an AU at the clock rate, which times
/// the second and later AUs of a packet (3.2.3.2: AU-Index-delta 0, consecutive AUs).
///
/// Only the AAC modes are taken (`AAC-hbr`: 13/3/3 bits, `AAC-lbr`: 6/2/2; 3.3.5, 3.3.6) with
/// AU headers of AU-size and AU-Index(-delta) only; interleaving is not sent (every
/// AU-Index and AU-Index-delta 0) and, received, refused packet by packet.
public struct RTPAACPayloadFormat: Sendable, Hashable {
    /// `sizelength`: bits of AU-size, 1…16.
    public var sizeLength: Int
    /// `indexlength`: bits of AU-Index (first AU header), 0…8.
    public var indexLength: Int
    /// `indexdeltalength`: bits of AU-Index-delta (the others), 0…8.
    public var indexDeltaLength: Int
    /// Ticks of the clock rate (the sampling rate) each AU lasts.
    public var accessUnitDuration: Int
    /// The clock rate (`a=rtpmap`), the sampling rate.
    public var clockRate: Int

    /// AAC-hbr (RFC 3640 3.3.6): 13-bit AU-size, 3-bit AU-Index and AU-Index-delta.
    public static func hbr(clockRate: Int, accessUnitDuration: Int = 1024) -> RTPAACPayloadFormat {
        RTPAACPayloadFormat(sizeLength: 13, indexLength: 3, indexDeltaLength: 3, accessUnitDuration: accessUnitDuration, clockRate: clockRate)
    }

    /// A format from its parts, unchecked (``init(description:)`` checks an SDP's).
    public init(sizeLength: Int, indexLength: Int, indexDeltaLength: Int, accessUnitDuration: Int, clockRate: Int) {
        self.sizeLength = sizeLength
        self.indexLength = indexLength
        self.indexDeltaLength = indexDeltaLength
        self.accessUnitDuration = accessUnitDuration
        self.clockRate = clockRate
    }

    /// The format an SDP's `mpeg4-generic` stream describes.
    /// - Throws: `NALUError` `.unsupported` naming the parameter: a `mode` other than AAC-hbr or
    ///   AAC-lbr, a `sizelength` outside 1…16 (0 is a constant size, not AAC's), index lengths
    ///   past 8 bits, AU-header fields nalu does not read (CTS/DTS deltas, RAP flag, stream
    ///   state, auxiliary data, ``RTPAACDescription/otherParameters``), a clock rate outside
    ///   1…384 000; `.invalidValue` (field `config`) for an AudioSpecificConfig too short to
    ///   give a frame length when no `constantDuration` does.
    public init(description: RTPAACDescription) throws(NALUError) {
        let mode = description.mode.lowercased()
        guard mode == "aac-hbr" || mode == "aac-lbr" else {
            throw NALUError(.unsupported, field: "mode", detail: "\(description.mode): only AAC-hbr and AAC-lbr (RFC 3640 3.3.5, 3.3.6) are read")
        }
        guard (1...16).contains(description.sizeLength) else {
            throw NALUError(.unsupported, field: "sizelength", detail: "\(description.sizeLength); 1…16 bits are read")
        }
        for (name, value) in [("indexlength", description.indexLength), ("indexdeltalength", description.indexDeltaLength)] where !(0...8).contains(value) {
            throw NALUError(.unsupported, field: name, detail: "\(value); 0…8 bits are read")
        }
        if let first = description.otherParameters.first {
            throw NALUError(.unsupported, field: String(first.prefix { $0 != "=" }),
                            detail: "\(first): AU-header fields other than AU-size and AU-Index are not read")
        }
        guard (1...384_000).contains(description.sampleRate) else {
            throw NALUError(.unsupported, field: "a=rtpmap", detail: "clock rate \(description.sampleRate); 1…384000")
        }
        let duration: Int
        if let constant = description.constantDuration {
            duration = constant
        } else {
            duration = try Self.frameLength(audioSpecificConfig: description.audioSpecificConfig)
        }
        self.init(sizeLength: description.sizeLength, indexLength: description.indexLength, indexDeltaLength: description.indexDeltaLength,
                  accessUnitDuration: duration, clockRate: description.sampleRate)
    }

    /// The largest AU-size the format can say.
    public var maxAccessUnitSize: Int { (1 << sizeLength) - 1 }

    /// Bits of the first AU header and of each later one.
    var firstHeaderBits: Int { sizeLength + indexLength }
    var laterHeaderBits: Int { sizeLength + indexDeltaLength }

    /// Samples per frame of an AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1): 960 when the
    /// GASpecificConfig's `frameLengthFlag` is set (4.4.1), else 1024 (AAC LC, and the core of
    /// HE-AAC, whose SBR doubles the output rate but not the RTP clock's count per AU).
    /// - Throws: `NALUError` `.invalidValue` (field `config`) for fewer than two bytes.
    public static func frameLength(audioSpecificConfig config: [UInt8]) throws(NALUError) -> Int {
        guard config.count >= 2 else {
            throw NALUError(.invalidValue, field: "config", detail: "\(config.count) bytes: an AudioSpecificConfig has at least 2")
        }
        var bits = SimpleBits(config)
        var objectType = bits.read(5)
        if objectType == 31 { objectType = 32 + bits.read(6) }
        if bits.read(4) == 15 { _ = bits.read(24) }  // samplingFrequencyIndex, explicit frequency
        _ = bits.read(4)  // channelConfiguration
        if objectType == 5 || objectType == 29 {
            // SBR / PS: extensionSamplingFrequencyIndex, then the core's object type.
            if bits.read(4) == 15 { _ = bits.read(24) }
            objectType = bits.read(5)
            if objectType == 31 { objectType = 32 + bits.read(6) }
        }
        // GASpecificConfig's frameLengthFlag (object types 1–4, 6, 7, 17, 19–23).
        let generalAudio: Set<Int> = [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23]
        guard generalAudio.contains(objectType), let flag = bits.readIfAvailable(1) else { return 1024 }
        return flag == 1 ? 960 : 1024
    }
}

extension RTPAACPayloadFormat {
    /// The sampling frequency table of ISO/IEC 14496-3 1.6.3.3 (`samplingFrequencyIndex`).
    static let samplingFrequencies = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    /// The sampling rate and `channelConfiguration` of an AudioSpecificConfig (ISO/IEC 14496-3
    /// 1.6.2.1; the core's, for HE-AAC), or `nil` when it is too short or its frequency index
    /// is reserved. A `channelConfiguration` of 0 (channels in a program config element) gives 0.
    public static func audioParameters(audioSpecificConfig config: [UInt8]) -> (sampleRate: Int, channels: Int)? {
        guard config.count >= 2 else { return nil }
        var bits = SimpleBits(config)
        if bits.read(5) == 31 { _ = bits.read(6) }
        let index = bits.read(4)
        let rate: Int
        if index == 15 {
            guard let explicit = bits.readIfAvailable(24), explicit > 0 else { return nil }
            rate = explicit
        } else {
            guard index < samplingFrequencies.count else { return nil }
            rate = samplingFrequencies[index]
        }
        guard let channels = bits.readIfAvailable(4) else { return nil }
        return (rate, channels)
    }
}

/// Bits read MSB first from bytes; reads past the end give zeros (``readIfAvailable(_:)`` says
/// when they would).
struct SimpleBits {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - position }

    /// The next `count` bits (at most 32) as a number.
    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let index = position >> 3
            let bit = index < bytes.count ? Int(bytes[index] >> (7 - UInt8(position & 7))) & 1 : 0
            value = value << 1 | bit
            position += 1
        }
        return value
    }

    /// The next `count` bits, or `nil` when fewer are left.
    mutating func readIfAvailable(_ count: Int) -> Int? {
        guard bitsLeft >= count else { return nil }
        return read(count)
    }
}

/// Bits written MSB first.
struct SimpleBitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    /// Writes the low `count` bits of `value`.
    mutating func write(_ value: Int, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if used == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used) }
            used = (used + 1) & 7
        }
    }
}
