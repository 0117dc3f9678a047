/// Bounds on the bytes a stored parameter set keeps (the syntax a parser reads is small; junk
/// after `rbsp_trailing_bits()` is not).
///
/// The largest conforming parameter sets are a few KiB: an H.264 SPS with every scaling list,
/// 255 `offset_for_ref_frame` values and two HRDs of 32 CPBs (7.3.2.1) stays under 8 KiB; an
/// H.265 SPS with 64 short-term RPSs, 32 long-term pictures and HRDs for 7 sub-layers (7.3.2.2)
/// likewise. An H.264 PPS with `slice_group_map_type` 6 names a group per map unit (7.3.2.2): at
/// level 6.2 139,264 map units of 3 bits, 52 KiB. So a set is kept whole up to
/// ``trimThreshold``; past it, bytes after the parsed syntax are dropped, and a set whose syntax
/// itself passes ``maxBytes`` is refused.
package enum ParameterSetSize {
    /// Sets up to this size are stored as they are.
    package static let trimThreshold = 4096
    /// No stored set is larger.
    package static let maxBytes = 64 << 10

    /// `nalUnit`, or its shortest prefix that `parsesEqual` accepts when it is larger than
    /// ``trimThreshold``. `parsesEqual` must say whether a prefix parses to the same set.
    /// - Throws: ``NALUError`` `.tooLarge` when no prefix of ``maxBytes`` parses to the same set.
    static func bounded(_ nalUnit: [UInt8], field: String, parsesEqual: (ArraySlice<UInt8>) -> Bool) throws(NALUError) -> [UInt8] {
        guard nalUnit.count > trimThreshold else { return nalUnit }
        var high = min(nalUnit.count, maxBytes)
        guard parsesEqual(nalUnit[..<high]) else {
            throw NALUError(.tooLarge, field: field, byteOffset: 0,
                            detail: "\(nalUnit.count) bytes, and its syntax does not end within \(maxBytes)")
        }
        // Shortest prefix that still parses to the same set (its trailing bits end it).
        var low = 1
        while low < high {
            let middle = low + (high - low) / 2
            if parsesEqual(nalUnit[..<middle]) { high = middle } else { low = middle + 1 }
        }
        return Array(nalUnit[..<high])
    }
}
