/// How many bytes of one access unit a converter or muxer holds in memory before giving up.
///
/// Neither spec bounds the NAL units an access unit may carry besides its slices (filler data,
/// SEI), but the coded picture itself is bounded by the level: H.264 Table A-1 MaxCPB (at most
/// 240,000 kbit = 30 MB at level 6.2, High profile ×1.25), H.265 Table A.8 MaxCPB (at most
/// 800,000 kbit = 100 MB at level 6.2 High tier). 64 MiB covers every conforming picture below
/// those top levels and bounds memory against a flood of filler.
public enum AccessUnitLimit {
    /// The default: 64 MiB.
    public static let defaultMaxBytes = 64 << 20

    /// The error for an access unit that passes `limit` bytes at `offset`.
    public static func error(limit: Int, at offset: Int64) -> NALUError {
        NALUError(.tooLarge, field: "access unit", byteOffset: offset,
                  detail: "more than \(limit) bytes held in memory for one access unit (the limit)")
    }
}
