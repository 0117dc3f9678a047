/// `scaling_list_data()` (ITU-T H.265 7.3.4, semantics 7.4.5): the quantization scaling lists of
/// an SPS or PPS, with prediction from reference lists and default lists resolved.
///
/// ``scalingList`` holds `ScalingList[sizeId][matrixId][i]` in coded order (up-right diagonal
/// scan, 6.5.3): 16 coefficients for sizeId 0, 64 for sizeId 1...3. For sizeId 3 only matrixId 0
/// and 3 are coded; matrixId 1, 2, 4 and 5 (used when ChromaArrayType is 3) are copied from the
/// sizeId 2 lists with their DC values, as 7.4.5 specifies for 32×32 chroma.
public struct HEVCScalingListData: Hashable, Sendable {
    /// `scaling_list_pred_mode_flag[sizeId][matrixId]` (false for matrices that are not coded).
    public var scalingListPredModeFlag: [[Bool]]
    /// `scaling_list_pred_matrix_id_delta[sizeId][matrixId]` (0 when not coded).
    public var scalingListPredMatrixIdDelta: [[Int]]
    /// `ScalingList[sizeId][matrixId][i]`, 4 × 6 lists.
    public var scalingList: [[[UInt8]]]
    /// `scaling_list_dc_coef_minus8[sizeId − 2][matrixId]` + 8: the DC value of the 16×16 (index 0)
    /// and 32×32 (index 1) lists, 16 for default lists.
    public var scalingListDcCoef: [[Int]]

    /// Table 7-6, `ScalingList[1...3][0...2][i]` (intra), in coded order.
    public static let defaultIntra8x8: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18,
        17, 18, 18, 17, 18, 21, 19, 20, 21, 20, 19, 21, 24, 22, 22, 24,
        24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
        29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115,
    ]
    /// Table 7-6, `ScalingList[1...3][3...5][i]` (inter), in coded order.
    public static let defaultInter8x8: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18,
        18, 18, 18, 18, 18, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24,
        24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
        28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91,
    ]

    /// The default list for `sizeId`, `matrixId` (Tables 7-5 and 7-6).
    public static func defaultList(sizeId: Int, matrixId: Int) -> [UInt8] {
        if sizeId == 0 { return [UInt8](repeating: 16, count: 16) }
        return matrixId < 3 ? defaultIntra8x8 : defaultInter8x8
    }

    /// The lists used when `scaling_list_enabled_flag` is 1 and no `scaling_list_data()` is sent
    /// (`sps_infer_scaling_list_flag` / `sps_scaling_list_data_present_flag` 0): all defaults.
    public static var `default`: HEVCScalingListData {
        HEVCScalingListData(
            scalingListPredModeFlag: [[Bool]](repeating: [Bool](repeating: false, count: 6), count: 4),
            scalingListPredMatrixIdDelta: [[Int]](repeating: [Int](repeating: 0, count: 6), count: 4),
            scalingList: (0..<4).map { size in (0..<6).map { matrix in defaultList(sizeId: size, matrixId: matrix) } },
            scalingListDcCoef: [[Int]](repeating: [Int](repeating: 16, count: 6), count: 2))
    }

    public init(scalingListPredModeFlag: [[Bool]], scalingListPredMatrixIdDelta: [[Int]],
                scalingList: [[[UInt8]]], scalingListDcCoef: [[Int]]) {
        self.scalingListPredModeFlag = scalingListPredModeFlag
        self.scalingListPredMatrixIdDelta = scalingListPredMatrixIdDelta
        self.scalingList = scalingList
        self.scalingListDcCoef = scalingListDcCoef
    }

    /// Parses `scaling_list_data()` (7.3.4).
    package init(_ reader: inout BitReader) throws(NALUError) {
        self = .default
        for sizeId in 0..<4 {
            let coefNum = min(64, 1 << (4 + (sizeId << 1)))
            let step = sizeId == 3 ? 3 : 1
            for matrixId in stride(from: 0, to: 6, by: step) {
                let predMode = try reader.flag("scaling_list_pred_mode_flag")
                scalingListPredModeFlag[sizeId][matrixId] = predMode
                if !predMode {
                    let delta = try reader.ue("scaling_list_pred_matrix_id_delta", in: 0...(matrixId / step))
                    scalingListPredMatrixIdDelta[sizeId][matrixId] = delta
                    if delta == 0 {
                        scalingList[sizeId][matrixId] = Self.defaultList(sizeId: sizeId, matrixId: matrixId)
                        if sizeId > 1 { scalingListDcCoef[sizeId - 2][matrixId] = 16 }
                    } else {
                        let refMatrixId = matrixId - delta * step
                        scalingList[sizeId][matrixId] = scalingList[sizeId][refMatrixId]
                        if sizeId > 1 {
                            scalingListDcCoef[sizeId - 2][matrixId] = scalingListDcCoef[sizeId - 2][refMatrixId]
                        }
                    }
                } else {
                    var nextCoef = 8
                    if sizeId > 1 {
                        let dc = try reader.se("scaling_list_dc_coef_minus8", in: -7...247)
                        nextCoef = dc + 8
                        scalingListDcCoef[sizeId - 2][matrixId] = nextCoef
                    }
                    var list = [UInt8](repeating: 0, count: coefNum)
                    for i in 0..<coefNum {
                        let delta = try reader.se("scaling_list_delta_coef", in: -128...127)
                        nextCoef = (nextCoef + delta + 256) % 256
                        list[i] = UInt8(truncatingIfNeeded: nextCoef)
                    }
                    scalingList[sizeId][matrixId] = list
                }
            }
        }
        // 32×32 chroma lists (ChromaArrayType 3) follow the 16×16 ones (7.4.5).
        for matrixId in [1, 2, 4, 5] {
            scalingList[3][matrixId] = scalingList[2][matrixId]
            scalingListDcCoef[1][matrixId] = scalingListDcCoef[0][matrixId]
        }
    }
}
