/// `hrd_parameters( commonInfPresentFlag, maxNumSubLayersMinus1 )` (ITU-T H.265 E.2.2, semantics
/// E.3.2): hypothetical reference decoder parameters, carried in the VPS and in the SPS VUI.
///
/// Fields not present are set to their inferred values (E.3.2): the three `*_length_minus1`
/// fields default to 23, `fixed_pic_rate_within_cvs_flag` to 1 when
/// `fixed_pic_rate_general_flag` is 1.
public struct HEVCHRDParameters: Hashable, Sendable {
    /// One coded picture buffer specification of `sub_layer_hrd_parameters( subLayerId )` (E.2.3).
    public struct CPB: Hashable, Sendable {
        /// `bit_rate_value_minus1[i]`.
        public var bitRateValueMinus1: UInt32
        /// `cpb_size_value_minus1[i]`.
        public var cpbSizeValueMinus1: UInt32
        /// `cpb_size_du_value_minus1[i]` (0 unless `sub_pic_hrd_params_present_flag`).
        public var cpbSizeDuValueMinus1: UInt32
        /// `bit_rate_du_value_minus1[i]` (0 unless `sub_pic_hrd_params_present_flag`).
        public var bitRateDuValueMinus1: UInt32
        /// `cbr_flag[i]`: constant bit rate.
        public var cbrFlag: Bool

        public init(bitRateValueMinus1: UInt32, cpbSizeValueMinus1: UInt32, cpbSizeDuValueMinus1: UInt32 = 0,
                    bitRateDuValueMinus1: UInt32 = 0, cbrFlag: Bool) {
            self.bitRateValueMinus1 = bitRateValueMinus1
            self.cpbSizeValueMinus1 = cpbSizeValueMinus1
            self.cpbSizeDuValueMinus1 = cpbSizeDuValueMinus1
            self.bitRateDuValueMinus1 = bitRateDuValueMinus1
            self.cbrFlag = cbrFlag
        }
    }

    /// The per-sub-layer part of `hrd_parameters()` (the loop over `i`).
    public struct SubLayer: Hashable, Sendable {
        /// `fixed_pic_rate_general_flag[i]`.
        public var fixedPicRateGeneralFlag: Bool = false
        /// `fixed_pic_rate_within_cvs_flag[i]` (inferred 1 when the general flag is 1).
        public var fixedPicRateWithinCvsFlag: Bool = false
        /// `elemental_duration_in_tc_minus1[i]` (0...2047) when the picture rate is fixed.
        public var elementalDurationInTcMinus1: Int? = nil
        /// `low_delay_hrd_flag[i]`.
        public var lowDelayHrdFlag: Bool = false
        /// `cpb_cnt_minus1[i]` (0...31; 0 when not present).
        public var cpbCntMinus1: Int = 0
        /// `sub_layer_hrd_parameters( i )` for the NAL HRD, when `nal_hrd_parameters_present_flag`.
        public var nalHrdParameters: [CPB]? = nil
        /// `sub_layer_hrd_parameters( i )` for the VCL HRD, when `vcl_hrd_parameters_present_flag`.
        public var vclHrdParameters: [CPB]? = nil

        public init() {}
    }

    /// `nal_hrd_parameters_present_flag`.
    public var nalHrdParametersPresentFlag: Bool = false
    /// `vcl_hrd_parameters_present_flag`.
    public var vclHrdParametersPresentFlag: Bool = false
    /// `sub_pic_hrd_params_present_flag`.
    public var subPicHrdParamsPresentFlag: Bool = false
    /// `tick_divisor_minus2` (u(8)).
    public var tickDivisorMinus2: Int = 0
    /// `du_cpb_removal_delay_increment_length_minus1` (u(5)).
    public var duCpbRemovalDelayIncrementLengthMinus1: Int = 0
    /// `sub_pic_cpb_params_in_pic_timing_sei_flag`.
    public var subPicCpbParamsInPicTimingSeiFlag: Bool = false
    /// `dpb_output_delay_du_length_minus1` (u(5)).
    public var dpbOutputDelayDuLengthMinus1: Int = 0
    /// `bit_rate_scale` (u(4)).
    public var bitRateScale: Int = 0
    /// `cpb_size_scale` (u(4)).
    public var cpbSizeScale: Int = 0
    /// `cpb_size_du_scale` (u(4)).
    public var cpbSizeDuScale: Int = 0
    /// `initial_cpb_removal_delay_length_minus1` (u(5), inferred 23).
    public var initialCpbRemovalDelayLengthMinus1: Int = 23
    /// `au_cpb_removal_delay_length_minus1` (u(5), inferred 23).
    public var auCpbRemovalDelayLengthMinus1: Int = 23
    /// `dpb_output_delay_length_minus1` (u(5), inferred 23).
    public var dpbOutputDelayLengthMinus1: Int = 23
    /// One entry per sub-layer, `maxNumSubLayersMinus1 + 1` in all.
    public var subLayers: [SubLayer] = []

    public init() {}

    /// Parses `hrd_parameters( commonInfPresentFlag, maxNumSubLayersMinus1 )` (E.2.2).
    ///
    /// - Parameters:
    ///   - commonInfPresentFlag: whether the common part is present (`cprms_present_flag[i]` in a
    ///     VPS, always `true` in a VUI).
    ///   - maxNumSubLayersMinus1: 0...6.
    ///   - previous: the preceding `hrd_parameters()` of the same VPS, whose common part is used when
    ///     `commonInfPresentFlag` is `false` (7.4.3.1, `cprms_present_flag`).
    package init(_ reader: inout BitReader, commonInfPresentFlag: Bool, maxNumSubLayersMinus1: Int,
                previous: HEVCHRDParameters? = nil) throws(NALUError) {
        guard (0...6).contains(maxNumSubLayersMinus1) else {
            throw reader.error(.invalidValue, "maxNumSubLayersMinus1", detail: "\(maxNumSubLayersMinus1) not in 0...6")
        }
        if commonInfPresentFlag {
            nalHrdParametersPresentFlag = try reader.flag("nal_hrd_parameters_present_flag")
            vclHrdParametersPresentFlag = try reader.flag("vcl_hrd_parameters_present_flag")
            if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                subPicHrdParamsPresentFlag = try reader.flag("sub_pic_hrd_params_present_flag")
                if subPicHrdParamsPresentFlag {
                    tickDivisorMinus2 = try reader.bits(8, "tick_divisor_minus2")
                    duCpbRemovalDelayIncrementLengthMinus1 = try reader.bits(5, "du_cpb_removal_delay_increment_length_minus1")
                    subPicCpbParamsInPicTimingSeiFlag = try reader.flag("sub_pic_cpb_params_in_pic_timing_sei_flag")
                    dpbOutputDelayDuLengthMinus1 = try reader.bits(5, "dpb_output_delay_du_length_minus1")
                }
                bitRateScale = try reader.bits(4, "bit_rate_scale")
                cpbSizeScale = try reader.bits(4, "cpb_size_scale")
                if subPicHrdParamsPresentFlag {
                    cpbSizeDuScale = try reader.bits(4, "cpb_size_du_scale")
                }
                initialCpbRemovalDelayLengthMinus1 = try reader.bits(5, "initial_cpb_removal_delay_length_minus1")
                auCpbRemovalDelayLengthMinus1 = try reader.bits(5, "au_cpb_removal_delay_length_minus1")
                dpbOutputDelayLengthMinus1 = try reader.bits(5, "dpb_output_delay_length_minus1")
            }
        } else if let previous {
            self = previous
            subLayers = []
        }

        var layers: [SubLayer] = []
        layers.reserveCapacity(maxNumSubLayersMinus1 + 1)
        for _ in 0...maxNumSubLayersMinus1 {
            var layer = SubLayer()
            layer.fixedPicRateGeneralFlag = try reader.flag("fixed_pic_rate_general_flag")
            if !layer.fixedPicRateGeneralFlag {
                layer.fixedPicRateWithinCvsFlag = try reader.flag("fixed_pic_rate_within_cvs_flag")
            } else {
                layer.fixedPicRateWithinCvsFlag = true
            }
            if layer.fixedPicRateWithinCvsFlag {
                layer.elementalDurationInTcMinus1 = try reader.ue("elemental_duration_in_tc_minus1", in: 0...2047)
            } else {
                layer.lowDelayHrdFlag = try reader.flag("low_delay_hrd_flag")
            }
            if !layer.lowDelayHrdFlag {
                layer.cpbCntMinus1 = try reader.ue("cpb_cnt_minus1", in: 0...31)
            }
            if nalHrdParametersPresentFlag {
                layer.nalHrdParameters = try Self.subLayerHRDParameters(&reader, cpbCount: layer.cpbCntMinus1 + 1,
                                                                       subPic: subPicHrdParamsPresentFlag)
            }
            if vclHrdParametersPresentFlag {
                layer.vclHrdParameters = try Self.subLayerHRDParameters(&reader, cpbCount: layer.cpbCntMinus1 + 1,
                                                                       subPic: subPicHrdParamsPresentFlag)
            }
            layers.append(layer)
        }
        subLayers = layers
    }

    /// `sub_layer_hrd_parameters( subLayerId )` (E.2.3); `cpbCount` is at most 32.
    private static func subLayerHRDParameters(_ reader: inout BitReader, cpbCount: Int,
                                              subPic: Bool) throws(NALUError) -> [CPB] {
        var cpbs: [CPB] = []
        cpbs.reserveCapacity(min(max(cpbCount, 0), 32))
        for _ in 0..<min(max(cpbCount, 0), 32) {
            let bitRate = try reader.ue("bit_rate_value_minus1")
            let cpbSize = try reader.ue("cpb_size_value_minus1")
            var cpbSizeDu: UInt32 = 0
            var bitRateDu: UInt32 = 0
            if subPic {
                cpbSizeDu = try reader.ue("cpb_size_du_value_minus1")
                bitRateDu = try reader.ue("bit_rate_du_value_minus1")
            }
            let cbr = try reader.flag("cbr_flag")
            cpbs.append(CPB(bitRateValueMinus1: bitRate, cpbSizeValueMinus1: cpbSize, cpbSizeDuValueMinus1: cpbSizeDu,
                            bitRateDuValueMinus1: bitRateDu, cbrFlag: cbr))
        }
        return cpbs
    }
}
