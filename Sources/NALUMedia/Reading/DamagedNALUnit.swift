public import NALU

/// A NAL unit left out of the access units because it is damaged, where the container still
/// frames what follows, so reading goes on (issue 39, issue 40 item 12):
///
/// - a NAL unit the access-unit splitter rejects: `forbidden_zero_bit` set, or a header, slice
///   header or parameter set that does not parse. A decoder drops it (H.264 7.4.1, H.265
///   7.4.2.1: a NAL unit with `forbidden_zero_bit` 1 is not decoded); the splitter's state is
///   that before it, so the next units are grouped as if it were absent.
/// - in an MP4 sample, a NAL unit length field that runs past the sample's end
///   (ISO/IEC 14496-15 5.3.2): the rest of the sample from that field is left out (the NAL
///   units before it are kept) and reading goes on with the next sample.
///
/// One damaged unit costs at most its picture, not the stream.
public struct DamagedNALUnit: Hashable, Sendable, CustomStringConvertible {
    /// The access unit being assembled when it came (decoding order): it was in that one, or
    /// would have started the next (a damaged unit cannot tell).
    public var accessUnitIndex: Int
    /// The offset in the input of its header (a rejected NAL unit) or of the length field that
    /// runs past its sample (MP4).
    public var byteOffset: Int64
    /// How many bytes were left out: the NAL unit, or the rest of its MP4 sample.
    public var byteCount: Int
    /// Why: the splitter's error, or the length field's (`NAL unit length`,
    /// ``NALUError/Code/lengthPastEnd`` or `.truncated`), with the field and its byte offset.
    public var error: NALUError

    public init(accessUnitIndex: Int, byteOffset: Int64, byteCount: Int, error: NALUError) {
        self.accessUnitIndex = accessUnitIndex
        self.byteOffset = byteOffset
        self.byteCount = byteCount
        self.error = error
    }

    /// "damaged NAL unit at byte 1234 (in or after access unit 7), 56 bytes left out: …".
    public var description: String {
        "damaged NAL unit at byte \(byteOffset) (in or after access unit \(accessUnitIndex)), \(byteCount) bytes left out: \(error)"
    }
}
