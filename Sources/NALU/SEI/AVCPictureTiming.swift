/// The `pic_struct` of an H.264 picture timing SEI message, `pic_timing()` (`payloadType` 1;
/// ITU-T H.264 D.1.3, semantics D.2.3, Table D-1): whether the picture is a frame, a field, or a
/// frame shown as top-then-bottom (3), bottom-then-top (4), with a repeated field (5, 6), or
/// doubled/tripled (7, 8).
public enum AVCPictureTiming {
    /// `payloadType` of a picture timing message.
    public static let payloadType = 1

    /// `pic_struct` (0...8) of `message`, read after `cpb_removal_delay` and `dpb_output_delay`
    /// when the SPS's VUI has an HRD (their lengths come from its `hrd_parameters()`); `nil`
    /// when the SPS has no VUI or `pic_struct_present_flag` 0.
    /// - Throws: ``NALUError`` for a payload of another type, one cut short, or a reserved
    ///   `pic_struct` (9...15).
    public static func picStruct(_ message: SEIMessage, sps: AVCSequenceParameterSet) throws(NALUError) -> Int? {
        guard message.payloadType == payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 1 (picture timing)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        guard let vui = sps.vuiParameters, vui.picStructPresentFlag else { return nil }
        do throws(NALUError) {
            var reader = message.payloadReader()
            if let hrd = vui.nalHRDParameters ?? vui.vclHRDParameters {
                _ = try reader.u(Int(hrd.cpbRemovalDelayLengthMinus1) + 1, "cpb_removal_delay")
                _ = try reader.u(Int(hrd.dpbOutputDelayLengthMinus1) + 1, "dpb_output_delay")
            }
            let mark = reader
            let value = try reader.bits(4, "pic_struct")
            guard value <= 8 else { throw mark.error(.invalidValue, "pic_struct", detail: "\(value) is reserved") }
            return value
        } catch {
            throw error.offset(by: Int64(message.payloadOffset))
        }
    }
}
