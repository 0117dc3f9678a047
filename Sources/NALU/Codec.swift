/// The video coding standard of a bitstream.
public enum Codec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ITU-T H.264 | ISO/IEC 14496-10 (AVC).
    case h264
    /// ITU-T H.265 | ISO/IEC 23008-2 (HEVC).
    case hevc

    /// Number of bytes in a NAL unit header, not counting H.264 extension bytes.
    public var nalHeaderLength: Int { self == .h264 ? 1 : 2 }

    public var description: String { rawValue }
}

/// How NAL units are framed in a byte stream.
public enum StreamFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Start-code delimited (ITU-T H.264 / H.265 Annex B).
    case annexB = "annexb"
    /// Each NAL unit preceded by a big-endian length (ISO/IEC 14496-15, "AVCC"/"HVCC").
    case lengthPrefixed = "length-prefixed"

    public var description: String { rawValue }
}
