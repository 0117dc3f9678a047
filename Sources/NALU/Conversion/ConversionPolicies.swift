/// What to do with access unit delimiters when converting.
public enum AccessUnitDelimiterPolicy: String, Sendable, CaseIterable {
    /// Copy them as they are.
    case keep
    /// Drop them (MP4 samples rarely carry them).
    case strip
    /// Make sure every access unit starts with one (some Annex-B consumers, like MPEG-TS muxers
    /// and Apple's HLS validator, want them); existing ones are kept.
    case insert
}

/// When to write parameter sets in band, converting length-prefixed input to Annex-B.
public enum ParameterSetInsertion: String, Sendable, CaseIterable {
    /// Before every keyframe access unit that does not already carry them (what FFmpeg's
    /// `h264_mp4toannexb` does): any keyframe is a place to start decoding.
    case keyframes
    /// Only before the first keyframe access unit: smallest output, decodable from the start only.
    case first
    /// Never: the output carries only what was in band already.
    case never
}

/// Where parameter sets written in band (``ParameterSetInsertion``) go inside an access unit.
public enum ParameterSetPlacement: String, Sendable, CaseIterable {
    /// At the start, after any access unit delimiter, with the access unit's own parameter sets
    /// regrouped before them in VPS→SPS→PPS order.
    case accessUnitStart
    /// Immediately before the first slice, every other NAL unit left in its order: what FFmpeg's
    /// `h264_mp4toannexb` and `hevc_mp4toannexb` do (SEI messages stay before the parameter sets).
    case beforeFirstSlice
}

/// Counts from a conversion.
public struct ConversionStatistics: Sendable, Hashable {
    /// NAL units read.
    public var nalUnitsIn = 0
    /// NAL units written.
    public var nalUnitsOut = 0
    /// Access units seen (length-prefixed → Annex-B only).
    public var accessUnits = 0
    /// Parameter sets written in band that the input did not carry there.
    public var parameterSetsInserted = 0
    /// Parameter sets dropped from the stream (moved to the record).
    public var parameterSetsRemoved = 0
    /// Access unit delimiters dropped or added.
    public var delimitersStripped = 0
    public var delimitersInserted = 0
    /// Bytes read and written.
    public var bytesIn: Int64 = 0
    public var bytesOut: Int64 = 0
    /// Parameter sets that changed mid-stream (same id, new content). When parameter sets are
    /// moved out of band, such updates are kept in band so the stream still decodes.
    public var parameterSetUpdates = 0

    public init() {}
}
