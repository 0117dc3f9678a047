/// Which SEI messages `nalu edit --sei` removes (ITU-T H.264 7.3.2.3, ITU-T H.265 7.3.5).
public enum SEIEdit: Hashable, Sendable {
    /// Keep every message.
    case keepAll
    /// Remove every SEI NAL unit.
    case stripAll
    /// Remove the messages of these payload types.
    case strip(Set<Int>)
    /// Keep only the messages of these payload types.
    case keep(Set<Int>)

    /// Whether a message of `payloadType` stays (`stripFiller` also removes filler payloads, type 3).
    func keeps(_ payloadType: Int, stripFiller: Bool) -> Bool {
        if stripFiller && payloadType == SEIPayloadNames.fillerPayload { return false }
        switch self {
        case .keepAll: return true
        case .stripAll: return false
        case .strip(let types): return !types.contains(payloadType)
        case .keep(let types): return types.contains(payloadType)
        }
    }
}

/// The payload type names of ITU-T H.264 Annex D / ITU-T H.265 Annex D as their syntax
/// structures are called, for `--sei strip=NAMES`.
package enum SEIPayloadNames {
    /// `filler_payload()`.
    package static let fillerPayload = 3

    /// Name → `payloadType`.
    package static let types: [String: Int] = [
        "buffering_period": 0, "pic_timing": 1, "pan_scan_rect": 2, "filler_payload": 3,
        "user_data_registered_itu_t_t35": 4, "user_data_unregistered": 5, "recovery_point": 6,
        "dec_ref_pic_marking_repetition": 7, "spare_pic": 8, "scene_info": 9, "sub_seq_info": 10,
        "sub_seq_layer_characteristics": 11, "sub_seq_characteristics": 12, "full_frame_freeze": 13,
        "full_frame_freeze_release": 14, "full_frame_snapshot": 15, "progressive_refinement_segment_start": 16,
        "progressive_refinement_segment_end": 17, "motion_constrained_slice_group_set": 18,
        "film_grain_characteristics": 19, "deblocking_filter_display_preference": 20, "stereo_video_info": 21,
        "post_filter_hint": 22, "tone_mapping_info": 23, "frame_packing_arrangement": 45,
        "display_orientation": 47, "green_metadata": 56, "structure_of_pictures_info": 128,
        "active_parameter_sets": 129, "decoding_unit_info": 130, "temporal_sub_layer_zero_idx": 131,
        "decoded_picture_hash": 132, "scalable_nesting": 133, "region_refresh_info": 134,
        "no_display": 135, "time_code": 136, "mastering_display_colour_volume": 137,
        "segmented_rect_frame_packing_arrangement": 138, "temporal_motion_constrained_tile_sets": 139,
        "chroma_resampling_filter_hint": 140, "knee_function_info": 141, "colour_remapping_info": 142,
        "deinterlaced_field_identification": 143, "content_light_level_info": 144,
        "dependent_rap_indication": 145, "coded_region_completion": 146,
        "alternative_transfer_characteristics": 147, "ambient_viewing_environment": 148,
        "content_colour_volume": 149,
    ]

    /// A payload type from a number or a name; `nil` for neither.
    package static func payloadType(_ text: String) -> Int? {
        if let number = Int(text), (0...100_000).contains(number) { return number }
        return types[text.lowercased()]
    }
}

extension SEIMessage {
    /// Writes SEI messages back into an SEI NAL unit (7.3.2.3.1 / 7.3.5): `header`, then each
    /// message's `payloadType` and `payloadSize` as `0xFF` runs and a last byte, its payload
    /// copied, then `rbsp_trailing_bits()`; emulation prevention applied.
    public static func nalUnit(header: some Collection<UInt8>, messages: [SEIMessage]) -> [UInt8] {
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(messages.reduce(0) { $0 + $1.payloadSize + 4 } + 1)
        for message in messages {
            for var value in [message.payloadType, message.payloadSize] {
                while value >= 255 {
                    rbsp.append(0xFF)
                    value -= 255
                }
                rbsp.append(UInt8(value))
            }
            rbsp.append(contentsOf: message.payload)
        }
        rbsp.append(0x80)
        return Array(header) + RBSP.escape(rbsp)
    }
}
