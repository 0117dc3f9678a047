import NALU

/// The parsed fields `nalu nals --json` adds to parameter sets (`"fields"`, spec syntax element
/// names) and SEI NAL units (`"sei"`, one object per message): a `trace_headers` a script can
/// read. A unit that does not parse gets `"parse_error"` instead; listing goes on.
struct NalFields {
    let codec: Codec
    /// H.264 SPSs by id, for the PPS fields that depend on them (at most 32).
    private var avcSPS: [Int: AVCSequenceParameterSet] = [:]
    /// The most SEI messages listed per NAL unit.
    static let messageLimit = 64
    /// How much of a user data string is printed.
    static let userDataTextLimit = 256

    init(codec: Codec) { self.codec = codec }

    /// Whether units of `type` get members (the others are not copied).
    func describes(type: UInt8) -> Bool {
        codec == .h264 ? [6, 7, 8].contains(type) : [32, 33, 34, 39, 40].contains(type)
    }

    /// The members to append for `nalUnit` (escaped, header included), if any.
    mutating func members(_ nalUnit: ArraySlice<UInt8>, type: UInt8) -> [(String, JSONValue)] {
        do throws(NALUError) {
            switch (codec, type) {
            case (.h264, 7):
                let sps = try AVCSequenceParameterSet(nalUnit: nalUnit)
                avcSPS[sps.seqParameterSetId] = sps
                return [("fields", Self.fields(sps))]
            case (.h264, 8):
                let sps = avcSPS
                return [("fields", Self.fields(try AVCPictureParameterSet(nalUnit: nalUnit, sps: { sps[$0] })))]
            case (.hevc, 32): return [("fields", Self.fields(try HEVCVideoParameterSet(nalUnit: nalUnit)))]
            case (.hevc, 33): return [("fields", Self.fields(try HEVCSequenceParameterSet(nalUnit: nalUnit)))]
            case (.hevc, 34): return [("fields", Self.fields(try HEVCPictureParameterSet(nalUnit: nalUnit)))]
            case (.h264, 6), (.hevc, 39), (.hevc, 40):
                let messages = try SEIMessage.messages(inNALUnit: nalUnit, codec: codec, limit: Self.messageLimit)
                return [("sei", .array(messages.map(message)))]
            default: return []
            }
        } catch {
            return [("parse_error", .string("\(error)"))]
        }
    }

    private func message(_ message: SEIMessage) -> JSONValue {
        var members: [(String, JSONValue)] = [("payload_type", .number(message.payloadType)), ("payload_size", .number(message.payloadSize))]
        do throws(NALUError) {
            switch message.payloadType {
            case MasteringDisplayColourVolume.payloadType:
                let display = try MasteringDisplayColourVolume(message)
                members += [
                    ("display_primaries_x", .array(display.displayPrimariesX.map { .number($0) })),
                    ("display_primaries_y", .array(display.displayPrimariesY.map { .number($0) })),
                    ("white_point_x", .number(display.whitePointX)), ("white_point_y", .number(display.whitePointY)),
                    ("max_display_mastering_luminance", .number(display.maxDisplayMasteringLuminance)),
                    ("min_display_mastering_luminance", .number(display.minDisplayMasteringLuminance)),
                ]
            case ContentLightLevelInfo.payloadType:
                let light = try ContentLightLevelInfo(message)
                members += [("max_content_light_level", .number(light.maxContentLightLevel)),
                            ("max_pic_average_light_level", .number(light.maxPicAverageLightLevel))]
            case AVCRecoveryPoint.payloadType where codec == .h264:
                let point = try AVCRecoveryPoint(message)
                members += [("recovery_frame_cnt", .number(point.recoveryFrameCnt)), ("exact_match_flag", .bool(point.exactMatchFlag)),
                            ("broken_link_flag", .bool(point.brokenLinkFlag)), ("changing_slice_group_idc", .number(point.changingSliceGroupIdc))]
            case HEVCRecoveryPoint.payloadType:
                let point = try HEVCRecoveryPoint(message)
                members += [("recovery_poc_cnt", .number(point.recoveryPocCnt)), ("exact_match_flag", .bool(point.exactMatchFlag)),
                            ("broken_link_flag", .bool(point.brokenLinkFlag))]
            case UserDataUnregistered.payloadType:
                let data = try UserDataUnregistered(message, limit: Self.userDataTextLimit)
                members.append(("uuid_iso_iec_11578", .string(data.uuidString)))
                if let text = data.text(maxLength: Self.userDataTextLimit) { members.append(("text", .string(text))) }
            default: break
            }
        } catch {
            members.append(("parse_error", .string("\(error)")))
        }
        return .object(members)
    }

    static func fields(_ sps: AVCSequenceParameterSet) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("profile_idc", .number(sps.profileIdc)), ("level_idc", .number(sps.levelIdc)),
            ("seq_parameter_set_id", .number(sps.seqParameterSetId)), ("chroma_format_idc", .number(sps.chromaFormatIdc)),
            ("bit_depth_luma_minus8", .number(sps.bitDepthLumaMinus8)), ("bit_depth_chroma_minus8", .number(sps.bitDepthChromaMinus8)),
            ("log2_max_frame_num_minus4", .number(sps.log2MaxFrameNumMinus4)), ("pic_order_cnt_type", .number(sps.picOrderCntType)),
            ("max_num_ref_frames", .number(sps.maxNumRefFrames)),
            ("pic_width_in_mbs_minus1", .number(sps.picWidthInMbsMinus1)),
            ("pic_height_in_map_units_minus1", .number(sps.picHeightInMapUnitsMinus1)),
            ("frame_mbs_only_flag", .bool(sps.frameMbsOnlyFlag)), ("mb_adaptive_frame_field_flag", .bool(sps.mbAdaptiveFrameFieldFlag)),
            ("frame_cropping_flag", .bool(sps.frameCroppingFlag)),
            ("width", .number(sps.width)), ("height", .number(sps.height)),
        ]
        if sps.vuiParameters != nil { members.append(("vui", vuiJSON(VideoSignalSummary(sps), codec: .h264))) }
        return .object(members)
    }

    static func fields(_ pps: AVCPictureParameterSet) -> JSONValue {
        .object([
            ("pic_parameter_set_id", .number(pps.picParameterSetId)), ("seq_parameter_set_id", .number(pps.seqParameterSetId)),
            ("entropy_coding_mode_flag", .bool(pps.entropyCodingModeFlag)),
            ("bottom_field_pic_order_in_frame_present_flag", .bool(pps.bottomFieldPicOrderInFramePresentFlag)),
            ("num_slice_groups_minus1", .number(pps.numSliceGroupsMinus1)),
        ])
    }

    static func fields(_ vps: HEVCVideoParameterSet) -> JSONValue {
        .object([
            ("vps_video_parameter_set_id", .number(vps.vpsVideoParameterSetId)), ("vps_max_layers_minus1", .number(vps.vpsMaxLayersMinus1)),
            ("vps_max_sub_layers_minus1", .number(vps.vpsMaxSubLayersMinus1)), ("vps_temporal_id_nesting_flag", .bool(vps.vpsTemporalIdNestingFlag)),
            ("general_profile_idc", .number(vps.profileTierLevel.generalProfileIdc)),
            ("general_level_idc", .number(vps.profileTierLevel.generalLevelIdc)),
        ])
    }

    static func fields(_ sps: HEVCSequenceParameterSet) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("sps_video_parameter_set_id", .number(sps.spsVideoParameterSetId)), ("sps_max_sub_layers_minus1", .number(sps.spsMaxSubLayersMinus1)),
            ("general_profile_idc", .number(sps.profileTierLevel.generalProfileIdc)),
            ("general_level_idc", .number(sps.profileTierLevel.generalLevelIdc)),
            ("sps_seq_parameter_set_id", .number(sps.spsSeqParameterSetId)), ("chroma_format_idc", .number(sps.chromaFormatIdc)),
            ("pic_width_in_luma_samples", .number(sps.picWidthInLumaSamples)), ("pic_height_in_luma_samples", .number(sps.picHeightInLumaSamples)),
            ("conformance_window_flag", .bool(sps.conformanceWindowFlag)),
            ("bit_depth_luma_minus8", .number(sps.bitDepthLumaMinus8)), ("bit_depth_chroma_minus8", .number(sps.bitDepthChromaMinus8)),
            ("log2_max_pic_order_cnt_lsb_minus4", .number(sps.log2MaxPicOrderCntLsbMinus4)),
            ("log2_min_luma_coding_block_size_minus3", .number(sps.log2MinLumaCodingBlockSizeMinus3)),
            ("log2_diff_max_min_luma_coding_block_size", .number(sps.log2DiffMaxMinLumaCodingBlockSize)),
            ("amp_enabled_flag", .bool(sps.ampEnabledFlag)), ("sample_adaptive_offset_enabled_flag", .bool(sps.sampleAdaptiveOffsetEnabledFlag)),
            ("sps_temporal_mvp_enabled_flag", .bool(sps.spsTemporalMvpEnabledFlag)),
            ("strong_intra_smoothing_enabled_flag", .bool(sps.strongIntraSmoothingEnabledFlag)),
            ("width", .number(sps.width)), ("height", .number(sps.height)),
        ]
        if sps.vuiParameters != nil { members.append(("vui", vuiJSON(VideoSignalSummary(sps), codec: .hevc))) }
        return .object(members)
    }

    static func fields(_ pps: HEVCPictureParameterSet) -> JSONValue {
        .object([
            ("pps_pic_parameter_set_id", .number(pps.ppsPicParameterSetId)), ("pps_seq_parameter_set_id", .number(pps.ppsSeqParameterSetId)),
            ("dependent_slice_segments_enabled_flag", .bool(pps.dependentSliceSegmentsEnabledFlag)),
            ("output_flag_present_flag", .bool(pps.outputFlagPresentFlag)),
        ])
    }
}
