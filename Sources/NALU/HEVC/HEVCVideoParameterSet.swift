/// An H.265 video parameter set: `video_parameter_set_rbsp()` (ITU-T H.265 7.3.2.1, semantics
/// 7.4.3.1).
///
/// The base part is parsed in full; when `vps_extension_flag` is 1 the `vps_extension()` data
/// (Annex F) is skipped.
public struct HEVCVideoParameterSet: Hashable, Sendable {
    /// One `hrd_parameters()` of the VPS with the layer set it applies to.
    public struct HRD: Hashable, Sendable {
        /// `hrd_layer_set_idx[i]`.
        public var hrdLayerSetIdx: Int
        /// `cprms_present_flag[i]` (inferred 1 for i = 0).
        public var cprmsPresentFlag: Bool
        /// `hrd_parameters( cprms_present_flag[i], vps_max_sub_layers_minus1 )`; when
        /// `cprms_present_flag` is 0 its common part is copied from the previous entry.
        public var hrdParameters: HEVCHRDParameters
    }

    /// `vps_video_parameter_set_id` (u(4)).
    public var vpsVideoParameterSetId: Int
    /// `vps_base_layer_internal_flag`.
    public var vpsBaseLayerInternalFlag: Bool
    /// `vps_base_layer_available_flag`.
    public var vpsBaseLayerAvailableFlag: Bool
    /// `vps_max_layers_minus1` (u(6)).
    public var vpsMaxLayersMinus1: Int
    /// `vps_max_sub_layers_minus1` (0...6).
    public var vpsMaxSubLayersMinus1: Int
    /// `vps_temporal_id_nesting_flag`.
    public var vpsTemporalIdNestingFlag: Bool
    /// `vps_reserved_0xffff_16bits` (kept as read; 0xFFFF in conforming streams).
    public var vpsReserved0xffff16bits: Int
    /// `profile_tier_level( 1, vps_max_sub_layers_minus1 )`.
    public var profileTierLevel: HEVCProfileTierLevel
    /// `vps_sub_layer_ordering_info_present_flag`.
    public var vpsSubLayerOrderingInfoPresentFlag: Bool
    /// `vps_max_dec_pic_buffering_minus1[i]`, `vps_max_num_reorder_pics[i]`,
    /// `vps_max_latency_increase_plus1[i]` for i = 0...vps_max_sub_layers_minus1.
    public var subLayerOrderingInfo: [HEVCSubLayerOrderingInfo]
    /// `vps_max_layer_id` (u(6)).
    public var vpsMaxLayerId: Int
    /// `vps_num_layer_sets_minus1` (0...1023).
    public var vpsNumLayerSetsMinus1: Int
    /// `layer_id_included_flag[i][j]` for i = 1...vps_num_layer_sets_minus1 (index i − 1) and
    /// j = 0...vps_max_layer_id.
    public var layerIdIncludedFlag: [[Bool]]
    /// `vps_timing_info_present_flag`.
    public var vpsTimingInfoPresentFlag: Bool
    /// `vps_num_units_in_tick` (u(32)).
    public var vpsNumUnitsInTick: UInt32
    /// `vps_time_scale` (u(32)).
    public var vpsTimeScale: UInt32
    /// `vps_poc_proportional_to_timing_flag`.
    public var vpsPocProportionalToTimingFlag: Bool
    /// `vps_num_ticks_poc_diff_one_minus1`.
    public var vpsNumTicksPocDiffOneMinus1: UInt32
    /// The `vps_num_hrd_parameters` HRD parameter structures (at most vps_num_layer_sets_minus1 + 1).
    public var hrdParameters: [HRD]
    /// `vps_extension_flag` (the extension itself is not parsed).
    public var vpsExtensionFlag: Bool
    /// The coded bits of `vps_extension()` and the `vps_extension_data_flag`s up to the
    /// `rbsp_stop_one_bit`, as read, copied when writing the VPS back; `nil` without extension.
    package var vpsExtensionDataBits: RBSPBits? = nil

    /// `vps_num_hrd_parameters`.
    public var vpsNumHrdParameters: Int { hrdParameters.count }

    /// Parses a VPS NAL unit: the whole escaped NAL unit, 2-byte header included, with
    /// `nal_unit_type` 32. Error byte offsets are relative to the start of `nalUnit`.
    public init(nalUnit: ArraySlice<UInt8>) throws(NALUError) {
        var reader = try HEVCNALUnitHeader.reader(for: nalUnit, expecting: .vps).reader
        try self.init(&reader)
    }

    /// Parses a NAL unit held in an array, as the `ArraySlice` initialiser does.
    public init(nalUnit: [UInt8]) throws(NALUError) {
        try self.init(nalUnit: nalUnit[...])
    }

    /// Parses `video_parameter_set_rbsp()` from an RBSP that starts after the NAL unit header.
    public init(rbsp: RBSP) throws(NALUError) {
        var reader = BitReader(rbsp)
        try self.init(&reader)
    }

    /// Parses `video_parameter_set_rbsp()` at the reader's position, through
    /// `rbsp_trailing_bits()`.
    init(_ reader: inout BitReader) throws(NALUError) {
        vpsVideoParameterSetId = try reader.bits(4, "vps_video_parameter_set_id")
        vpsBaseLayerInternalFlag = try reader.flag("vps_base_layer_internal_flag")
        vpsBaseLayerAvailableFlag = try reader.flag("vps_base_layer_available_flag")
        vpsMaxLayersMinus1 = try reader.bits(6, "vps_max_layers_minus1")
        vpsMaxSubLayersMinus1 = try reader.bits(3, "vps_max_sub_layers_minus1")
        guard vpsMaxSubLayersMinus1 <= 6 else {
            throw reader.error(.invalidValue, "vps_max_sub_layers_minus1", detail: "\(vpsMaxSubLayersMinus1) not in 0...6")
        }
        vpsTemporalIdNestingFlag = try reader.flag("vps_temporal_id_nesting_flag")
        vpsReserved0xffff16bits = try reader.bits(16, "vps_reserved_0xffff_16bits")
        profileTierLevel = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
        vpsSubLayerOrderingInfoPresentFlag = try reader.flag("vps_sub_layer_ordering_info_present_flag")
        subLayerOrderingInfo = try HEVCSubLayerOrderingInfo.parse(
            &reader, presentFlag: vpsSubLayerOrderingInfoPresentFlag, maxSubLayersMinus1: vpsMaxSubLayersMinus1, vps: true)
        vpsMaxLayerId = try reader.bits(6, "vps_max_layer_id")
        vpsNumLayerSetsMinus1 = try reader.ue("vps_num_layer_sets_minus1", in: 0...1023)
        // At most 1023 × 64 flags; each one is a bit of the RBSP, so check the size first.
        let flagCount = vpsNumLayerSetsMinus1 * (vpsMaxLayerId + 1)
        guard flagCount <= reader.bitsLeft else { throw reader.error(.truncated, "layer_id_included_flag") }
        var included: [[Bool]] = []
        included.reserveCapacity(vpsNumLayerSetsMinus1)
        for _ in 0..<vpsNumLayerSetsMinus1 {
            var row = [Bool](repeating: false, count: vpsMaxLayerId + 1)
            for j in 0...vpsMaxLayerId {
                row[j] = try reader.flag("layer_id_included_flag")
            }
            included.append(row)
        }
        layerIdIncludedFlag = included

        vpsTimingInfoPresentFlag = try reader.flag("vps_timing_info_present_flag")
        vpsNumUnitsInTick = 0
        vpsTimeScale = 0
        vpsPocProportionalToTimingFlag = false
        vpsNumTicksPocDiffOneMinus1 = 0
        hrdParameters = []
        if vpsTimingInfoPresentFlag {
            vpsNumUnitsInTick = try reader.u(32, "vps_num_units_in_tick")
            vpsTimeScale = try reader.u(32, "vps_time_scale")
            vpsPocProportionalToTimingFlag = try reader.flag("vps_poc_proportional_to_timing_flag")
            if vpsPocProportionalToTimingFlag {
                vpsNumTicksPocDiffOneMinus1 = try reader.ue("vps_num_ticks_poc_diff_one_minus1")
            }
            let count = try reader.ue("vps_num_hrd_parameters", in: 0...(vpsNumLayerSetsMinus1 + 1))
            var list: [HRD] = []
            list.reserveCapacity(count)
            for i in 0..<count {
                let lowestLayerSet = vpsBaseLayerInternalFlag ? 0 : 1
                guard lowestLayerSet <= vpsNumLayerSetsMinus1 else {
                    throw reader.error(.invalidValue, "hrd_layer_set_idx", detail: "no layer set to refer to")
                }
                let layerSet = try reader.ue("hrd_layer_set_idx", in: lowestLayerSet...vpsNumLayerSetsMinus1)
                let cprmsPresent = i > 0 ? try reader.flag("cprms_present_flag") : true
                let hrd = try HEVCHRDParameters(&reader, commonInfPresentFlag: cprmsPresent,
                                                maxNumSubLayersMinus1: vpsMaxSubLayersMinus1,
                                                previous: list.last?.hrdParameters)
                list.append(HRD(hrdLayerSetIdx: layerSet, cprmsPresentFlag: cprmsPresent, hrdParameters: hrd))
            }
            hrdParameters = list
        }
        vpsExtensionFlag = try reader.flag("vps_extension_flag")
        if vpsExtensionFlag {
            // vps_extension() (F.7.3.2.1.1) and vps_extension_data_flag: not parsed; kept as bits.
            let extensionStart = reader.position
            reader.skipToRBSPStopBit()
            vpsExtensionDataBits = reader.bits(from: extensionStart)
        }
        try reader.rbspTrailingBits()
    }
}
