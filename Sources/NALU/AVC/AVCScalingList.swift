/// One scaling list of an H.264 scaling matrix, as coded by `scaling_list()`
/// (ITU-T H.264 7.3.2.1.1.1, semantics 7.4.2.1.1.1).
public enum AVCScalingList: Hashable, Sendable {
    /// `seq_scaling_list_present_flag[i]` / `pic_scaling_list_present_flag[i]` is 0: the list is
    /// derived by fall-back rule A (SPS) or B (PPS) of Table 7-2.
    case notPresent
    /// The list was coded but its first `nextScale` is 0 (`useDefaultScalingMatrixFlag`): the
    /// default list of Table 7-3 / 7-4 applies.
    case useDefault
    /// The explicitly coded values (16 for 4×4, 64 for 8×8), in the coded (zig-zag or field)
    /// scan order, each in 1...255.
    case explicit([UInt8])
}

/// The scaling lists of an SPS or PPS: six 4×4 lists, then two or six 8×8 lists
/// (ITU-T H.264 7.3.2.1.1 and 7.3.2.2).
public struct AVCScalingMatrix: Hashable, Sendable {
    /// `ScalingList4x4[0...5]`: Intra Y, Intra Cb, Intra Cr, Inter Y, Inter Cb, Inter Cr.
    public var lists4x4: [AVCScalingList]
    /// `ScalingList8x8[0...]`: Intra Y, Inter Y, then (4:4:4 only) Intra Cb, Inter Cb, Intra Cr,
    /// Inter Cr. Empty when a PPS has `transform_8x8_mode_flag` 0.
    public var lists8x8: [AVCScalingList]

    public init(lists4x4: [AVCScalingList], lists8x8: [AVCScalingList]) {
        self.lists4x4 = lists4x4
        self.lists8x8 = lists8x8
    }

    /// Reads `count` (at most 12) `*_scaling_list_present_flag[i]` flags, each followed by its
    /// `scaling_list()` when set: lists 0–5 are 4×4, the rest 8×8.
    static func read(from reader: inout BitReader, count: Int, presentFlagField: StaticString) throws(NALUError) -> AVCScalingMatrix {
        guard count >= 0 && count <= 12 else {
            throw reader.error(.invalidValue, presentFlagField, detail: "\(count) scaling lists")
        }
        var lists4x4 = [AVCScalingList]()
        var lists8x8 = [AVCScalingList]()
        lists4x4.reserveCapacity(6)
        lists8x8.reserveCapacity(max(0, count - 6))
        for index in 0..<count {
            let present = try reader.flag(presentFlagField)
            let list: AVCScalingList
            if present {
                list = try readList(from: &reader, size: index < 6 ? 16 : 64)
            } else {
                list = .notPresent
            }
            if index < 6 { lists4x4.append(list) } else { lists8x8.append(list) }
        }
        return AVCScalingMatrix(lists4x4: lists4x4, lists8x8: lists8x8)
    }

    /// `scaling_list(scalingList, sizeOfScalingList, useDefaultScalingMatrixFlag)`
    /// (7.3.2.1.1.1); `delta_scale` must be in −128...127.
    static func readList(from reader: inout BitReader, size: Int) throws(NALUError) -> AVCScalingList {
        var values = [UInt8]()
        values.reserveCapacity(size)
        var lastScale = 8
        var nextScale = 8
        for index in 0..<size {
            if nextScale != 0 {
                let deltaScale = try reader.se("delta_scale", in: -128...127)
                nextScale = (lastScale + deltaScale + 256) % 256
                if index == 0 && nextScale == 0 { return .useDefault }
            }
            let value = nextScale == 0 ? lastScale : nextScale
            values.append(UInt8(truncatingIfNeeded: value))
            lastScale = value
        }
        return .explicit(values)
    }
}
