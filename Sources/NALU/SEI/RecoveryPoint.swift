/// An H.264 recovery point SEI message, `recovery_point()` (ITU-T H.264 D.1.8, semantics D.2.8):
/// decoding from this access unit gives correct (or approximately correct) pictures after
/// `recovery_frame_cnt` frames. With `recovery_frame_cnt` 0 on an I picture it marks an open-GOP
/// random access point; a larger count is gradual decoding refresh (intra refresh).
public struct AVCRecoveryPoint: Hashable, Sendable {
    /// `payloadType` of a recovery point message.
    public static let payloadType = 6

    /// `recovery_frame_cnt` (0...65535; below `MaxFrameNum` of the active SPS).
    public let recoveryFrameCnt: Int
    /// `exact_match_flag`: decoding from here matches decoding from the previous IDR exactly.
    public let exactMatchFlag: Bool
    /// `broken_link_flag`: pictures before the recovery point in output order may be corrupt.
    public let brokenLinkFlag: Bool
    /// `changing_slice_group_idc` (0...2).
    public let changingSliceGroupIdc: Int

    public init(recoveryFrameCnt: Int, exactMatchFlag: Bool, brokenLinkFlag: Bool, changingSliceGroupIdc: Int = 0) {
        self.recoveryFrameCnt = recoveryFrameCnt
        self.exactMatchFlag = exactMatchFlag
        self.brokenLinkFlag = brokenLinkFlag
        self.changingSliceGroupIdc = changingSliceGroupIdc
    }

    /// Decodes a recovery point message (`payloadType` 6) of an H.264 SEI NAL unit.
    public init(_ message: SEIMessage) throws(NALUError) {
        guard message.payloadType == Self.payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 6 (recovery point)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        do throws(NALUError) {
            var reader = message.payloadReader()
            recoveryFrameCnt = try reader.ue("recovery_frame_cnt", in: 0...65535)
            exactMatchFlag = try reader.flag("exact_match_flag")
            brokenLinkFlag = try reader.flag("broken_link_flag")
            let mark = reader
            changingSliceGroupIdc = try reader.bits(2, "changing_slice_group_idc")
            guard changingSliceGroupIdc <= 2 else {
                throw mark.error(.invalidValue, "changing_slice_group_idc", detail: "3 is reserved")
            }
        } catch {
            throw error.offset(by: Int64(message.payloadOffset))
        }
    }
}

/// An H.265 recovery point SEI message, `recovery_point()` (ITU-T H.265 D.2.8, semantics
/// D.3.8): decoding from this picture gives correct pictures from the picture whose
/// `PicOrderCntVal` is this one's plus `recovery_poc_cnt`.
public struct HEVCRecoveryPoint: Hashable, Sendable {
    /// `payloadType` of a recovery point message.
    public static let payloadType = 6

    /// `recovery_poc_cnt` (−MaxPicOrderCntLsb / 2 ... MaxPicOrderCntLsb / 2 − 1, so within
    /// −32768...32767).
    public let recoveryPocCnt: Int
    /// `exact_match_flag`.
    public let exactMatchFlag: Bool
    /// `broken_link_flag`.
    public let brokenLinkFlag: Bool

    public init(recoveryPocCnt: Int, exactMatchFlag: Bool, brokenLinkFlag: Bool) {
        self.recoveryPocCnt = recoveryPocCnt
        self.exactMatchFlag = exactMatchFlag
        self.brokenLinkFlag = brokenLinkFlag
    }

    /// Decodes a recovery point message (`payloadType` 6) of an H.265 prefix SEI NAL unit.
    public init(_ message: SEIMessage) throws(NALUError) {
        guard message.payloadType == Self.payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 6 (recovery point)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        do throws(NALUError) {
            var reader = message.payloadReader()
            recoveryPocCnt = try reader.se("recovery_poc_cnt", in: -32768...32767)
            exactMatchFlag = try reader.flag("exact_match_flag")
            brokenLinkFlag = try reader.flag("broken_link_flag")
        } catch {
            throw error.offset(by: Int64(message.payloadOffset))
        }
    }
}
