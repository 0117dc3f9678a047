/// Guesses the framing and codec of a stream from its first bytes.
///
/// ## Ambiguity
/// Framing cannot always be told from the bytes alone:
/// - A length-prefixed stream whose first NAL unit is 1 byte long with a 4-byte length starts
///   `00 00 00 01`, exactly like an Annex-B start code; a 3-byte-prefix (`00 00 01`) stream is
///   likewise indistinguishable from a 2-byte length of 1 followed by more data. Real first NAL
///   units (AUD, SEI, parameter sets) are longer than 1 byte, so a stream that starts with a start
///   code is taken as Annex-B.
/// - Otherwise length sizes 4, 2 and 1 are tried in that order: the prefix is length-prefixed with
///   that size when every length in it is non-zero, lands on a NAL header with
///   `forbidden_zero_bit` 0, and the chain of lengths reaches the end of the prefix exactly or
///   runs past it (the stream continues).
/// - The codec is read from NAL headers: an H.264 SPS/PPS/AUD header (`0x67`, `0x68`, `0x09`…)
///   decodes as a reserved or invalid H.265 header and an H.265 VPS/SPS/PPS/AUD (`40 01`, `42 01`,
///   `44 01`, `46 01`) as an unlikely H.264 one, so parameter sets and delimiters decide. Streams
///   without them fall back to slice headers, which are weaker evidence; pass the codec explicitly
///   (`--codec`) for such input.
public enum FormatDetection {
    /// The framing of a stream.
    public struct Framing: Hashable, Sendable {
        public var format: StreamFormat
        /// The length-field size for length-prefixed streams.
        public var lengthSize: Int?
    }

    /// Guesses the framing from the first bytes of a stream (a few KiB is plenty).
    public static func framing(of prefix: UnsafeRawBufferPointer) -> Framing? {
        var leadingZeros = 0
        while leadingZeros < prefix.count && prefix[leadingZeros] == 0 { leadingZeros += 1 }
        if leadingZeros >= 2 && leadingZeros < prefix.count && prefix[leadingZeros] == 1 {
            return Framing(format: .annexB, lengthSize: nil)
        }
        for lengthSize in [4, 2, 1] where looksLengthPrefixed(prefix, lengthSize: lengthSize) {
            return Framing(format: .lengthPrefixed, lengthSize: lengthSize)
        }
        if AnnexB.findStartCode(in: prefix, from: 0) != nil {
            return Framing(format: .annexB, lengthSize: nil)
        }
        return nil
    }

    /// Whether `prefix` parses as a chain of `lengthSize`-byte lengths and NAL units.
    static func looksLengthPrefixed(_ prefix: UnsafeRawBufferPointer, lengthSize: Int) -> Bool {
        var position = 0
        var units = 0
        while prefix.count - position >= lengthSize {
            var length = 0
            for index in position..<(position + lengthSize) { length = length << 8 | Int(prefix[index]) }
            guard length > 0 else { return false }
            let start = position + lengthSize
            guard start < prefix.count else { break }
            guard prefix[start] & 0x80 == 0 else { return false }
            units += 1
            // A length reaching past the prefix is fine (the stream goes on) when it is plausible.
            if length > prefix.count - start { return length < 1 << 26 }
            position = start + length
        }
        // Whatever is left is shorter than a length field: the prefix ended inside one.
        return units >= 1
    }

    /// H.264 `profile_idc` values (ITU-T H.264 A.2 and Annexes G, H, I).
    static let avcProfiles: Set<UInt8> = [66, 77, 88, 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Guesses the codec from the leading bytes (first two) of up to 64 NAL units, in stream order.
    ///
    /// The first NAL unit that can only be one codec's decides: an H.264 SPS (`x7`) whose next
    /// byte is a known `profile_idc`, an H.264 access unit delimiter (`09`, then
    /// `primary_pic_type` and the stop bit), or an H.265 VPS/SPS/PPS/AUD/prefix SEI of the base
    /// layer with temporal id 0 (`40 01`, `42 01`, `44 01`, `46 01`, `4E 01`). Without any, slice
    /// headers are weighed; that is weak evidence.
    public static func codec(fromHeaders headers: some Sequence<(UInt8, UInt8)>) -> Codec? {
        var hevcSlicesPlausible = true
        var avcSlicesPlausible = true
        var seen = 0
        for (first, second) in headers.prefix(64) {
            seen += 1
            if first & 0x80 != 0 { continue }
            // Raw header bits on purpose: the byte is read as both codecs' header at once, and
            // the heuristic tests bit patterns (nal_ref_idc, layer id) the typed headers hide.
            let avcType = first & 0x1F
            let hevcType = (first >> 1) & 0x3F
            if avcType == 7 && first & 0x60 != 0 && avcProfiles.contains(second) { return .h264 }
            if avcType == 9 && first & 0x60 == 0 && second & 0x1F == 0x10 { return .h264 }
            if second == 0x01 && [32, 33, 34, 35, 39].contains(hevcType) { return .hevc }
            let hevcLayer = (first & 1) << 5 | second >> 3
            if !(hevcType <= 21 || (32...40).contains(hevcType)) || second & 0x07 == 0 || hevcLayer != 0 {
                hevcSlicesPlausible = false
            }
            if avcType == 0 || avcType > 12 { avcSlicesPlausible = false }
        }
        guard seen > 0 else { return nil }
        if hevcSlicesPlausible && !avcSlicesPlausible { return .hevc }
        if avcSlicesPlausible && !hevcSlicesPlausible { return .h264 }
        return nil
    }
}
