/// Hypothetical reference decoder parameters, `hrd_parameters()` (ITU-T H.264 E.1.2, semantics
/// E.2.2), carried in the VUI for the NAL and/or VCL HRD.
public struct AVCHRDParameters: Hashable, Sendable {
    /// One CPB specification (`SchedSelIdx`): the values of the `[i]`-indexed loop of E.1.2.
    public struct Schedule: Hashable, Sendable {
        /// `bit_rate_value_minus1[i]`.
        public var bitRateValueMinus1: UInt32
        /// `cpb_size_value_minus1[i]`.
        public var cpbSizeValueMinus1: UInt32
        /// `cbr_flag[i]`: constant bit rate.
        public var cbrFlag: Bool
    }

    /// `cpb_cnt_minus1` (0...31).
    public var cpbCntMinus1: Int
    /// `bit_rate_scale` (4 bits).
    public var bitRateScale: Int
    /// `cpb_size_scale` (4 bits).
    public var cpbSizeScale: Int
    /// The `cpb_cnt_minus1 + 1` schedules.
    public var schedules: [Schedule]
    /// `initial_cpb_removal_delay_length_minus1` (5 bits).
    public var initialCpbRemovalDelayLengthMinus1: Int
    /// `cpb_removal_delay_length_minus1` (5 bits).
    public var cpbRemovalDelayLengthMinus1: Int
    /// `dpb_output_delay_length_minus1` (5 bits).
    public var dpbOutputDelayLengthMinus1: Int
    /// `time_offset_length` (5 bits).
    public var timeOffsetLength: Int

    /// `BitRate[i]` in bits per second: `(bit_rate_value_minus1[i] + 1) · 2^(6 + bit_rate_scale)`
    /// (E.2.2). At most 2^53, so it always fits.
    public func bitRate(_ index: Int) -> UInt64? {
        guard schedules.indices.contains(index) else { return nil }
        return (UInt64(schedules[index].bitRateValueMinus1) + 1) << (6 + UInt64(bitRateScale))
    }

    /// `CpbSize[i]` in bits: `(cpb_size_value_minus1[i] + 1) · 2^(4 + cpb_size_scale)` (E.2.2).
    public func cpbSize(_ index: Int) -> UInt64? {
        guard schedules.indices.contains(index) else { return nil }
        return (UInt64(schedules[index].cpbSizeValueMinus1) + 1) << (4 + UInt64(cpbSizeScale))
    }

    /// Reads `hrd_parameters()`; `cpb_cnt_minus1` is checked (0...31) before the loop.
    init(from reader: inout BitReader) throws(NALUError) {
        cpbCntMinus1 = try reader.ue("cpb_cnt_minus1", in: 0...31)
        bitRateScale = try reader.bits(4, "bit_rate_scale")
        cpbSizeScale = try reader.bits(4, "cpb_size_scale")
        var schedules = [Schedule]()
        schedules.reserveCapacity(cpbCntMinus1 + 1)
        for _ in 0...cpbCntMinus1 {
            let bitRate = try reader.ue("bit_rate_value_minus1")
            let cpbSize = try reader.ue("cpb_size_value_minus1")
            let cbr = try reader.flag("cbr_flag")
            schedules.append(Schedule(bitRateValueMinus1: bitRate, cpbSizeValueMinus1: cpbSize, cbrFlag: cbr))
        }
        self.schedules = schedules
        initialCpbRemovalDelayLengthMinus1 = try reader.bits(5, "initial_cpb_removal_delay_length_minus1")
        cpbRemovalDelayLengthMinus1 = try reader.bits(5, "cpb_removal_delay_length_minus1")
        dpbOutputDelayLengthMinus1 = try reader.bits(5, "dpb_output_delay_length_minus1")
        timeOffsetLength = try reader.bits(5, "time_offset_length")
    }
}
