@testable import NALU

/// Real NAL units copied byte for byte from x264 (core 164 r3095, via FFmpeg 5.1 `libx264`)
/// output of `ffmpeg -f lavfi -i testsrc2=size=174x98:rate=30000/1001 -c:v libx264 ...`, with the
/// values `ffprobe` reports and FFmpeg's `trace_headers` bitstream filter printed for them.
enum AVCTestVectors {
    // MARK: SPS
    // ffprobe for every 174x98 stream: width=174 height=98 r_frame_rate=30000/1001 level=11.
    // trace_headers: pic_width_in_mbs_minus1=10, pic_height_in_map_units_minus1=6,
    // frame_crop_right_offset=1, frame_crop_bottom_offset=7, num_units_in_tick=1001,
    // time_scale=60000.

    /// `-profile:v baseline`: profile=Constrained Baseline, pix_fmt=yuv420p.
    static let constrainedBaselineSPS: [UInt8] = [
        0x67, 0x42, 0xC0, 0x0B, 0xD9, 0x02, 0xCF, 0xEA, 0x23, 0x01, 0x10, 0x00, 0x00, 0x3E, 0x90,
        0x00, 0x0E, 0xA6, 0x00, 0xF1, 0x42, 0xA4, 0x80,
    ]
    /// `-profile:v main`: profile=Main.
    static let mainSPS: [UInt8] = [
        0x67, 0x4D, 0x40, 0x0B, 0xEC, 0xA1, 0x67, 0xF5, 0x11, 0x80, 0x88, 0x00, 0x00, 0x1F, 0x48,
        0x00, 0x07, 0x53, 0x00, 0x78, 0xA1, 0x4C, 0xB0,
    ]
    /// `-profile:v high`: profile=High, pix_fmt=yuv420p.
    static let highSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0B, 0xAC, 0xD9, 0x42, 0xCF, 0xEA, 0x23, 0x01, 0x10, 0x00, 0x00, 0x3E,
        0x90, 0x00, 0x0E, 0xA6, 0x00, 0xF1, 0x42, 0x99, 0x60,
    ]
    /// `-pix_fmt yuv420p10le -profile:v high10`: profile=High 10, pix_fmt=yuv420p10le. Contains an
    /// emulation prevention byte (`00 00 03 03`).
    static let high10SPS: [UInt8] = [
        0x67, 0x6E, 0x00, 0x0B, 0xA6, 0xCD, 0x94, 0x2C, 0xFE, 0xA2, 0x30, 0x11, 0x00, 0x00, 0x03,
        0x03, 0xE9, 0x00, 0x00, 0xEA, 0x60, 0x0F, 0x14, 0x29, 0x96,
    ]
    /// `-pix_fmt yuv420p10le -profile:v high10 -x264-params keyint=1`: profile=High 10 Intra.
    static let high10IntraSPS: [UInt8] = [
        0x67, 0x6E, 0x10, 0x0B, 0xA6, 0xCB, 0x85, 0x9F, 0xD4, 0x46, 0x02, 0x20, 0x00, 0x00, 0x7D,
        0x20, 0x00, 0x1D, 0x4C, 0x00, 0x80,
    ]
    /// `-pix_fmt yuv422p -profile:v high422`: profile=High 4:2:2, pix_fmt=yuv422p.
    static let high422SPS: [UInt8] = [
        0x67, 0x7A, 0x00, 0x0B, 0xBC, 0xD9, 0x42, 0xCF, 0xEA, 0x3F, 0x01, 0x10, 0x00, 0x00, 0x3E,
        0x90, 0x00, 0x0E, 0xA6, 0x00, 0xF1, 0x42, 0x99, 0x60,
    ]
    /// `-pix_fmt yuv444p -profile:v high444`: profile=High 4:4:4 Predictive, pix_fmt=yuv444p.
    static let high444SPS: [UInt8] = [
        0x67, 0xF4, 0x00, 0x0B, 0x91, 0x9B, 0x28, 0x59, 0xFD, 0xC7, 0xE0, 0x22, 0x00, 0x00, 0x07,
        0xD2, 0x00, 0x01, 0xD4, 0xC0, 0x1E, 0x28, 0x53, 0x2C,
    ]
    /// `-pix_fmt yuv444p -profile:v high444 -x264-params keyint=1`: profile=High 4:4:4 Intra.
    static let high444IntraSPS: [UInt8] = [
        0x67, 0xF4, 0x10, 0x0B, 0x91, 0x97, 0x0B, 0x3F, 0xB8, 0xFC, 0x04, 0x40, 0x00, 0x00, 0xFA,
        0x40, 0x00, 0x3A, 0x98, 0x01,
    ]
    /// `-pix_fmt gray -profile:v high`: chroma_format_idc=0 (monochrome), profile=High.
    static let monochromeSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0B, 0xF3, 0x65, 0x0B, 0x3F, 0xB8, 0xFC, 0x05, 0xB2, 0x00, 0x00, 0x07,
        0xD2, 0x00, 0x01, 0xD4, 0xC0, 0x1E, 0x28, 0x53, 0x2C,
    ]
    /// 174x100 with `-flags +ilme+ildct` (MBAFF): profile=High, width=174, height=100,
    /// level=21, field_order=tt; frame_mbs_only_flag=0, mb_adaptive_frame_field_flag=1,
    /// pic_height_in_map_units_minus1=3, frame_crop_bottom_offset=7.
    static let interlacedSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x15, 0xAC, 0xD9, 0x42, 0xC8, 0xF5, 0x11, 0x80, 0x88, 0x00, 0x00, 0x1F,
        0x48, 0x00, 0x07, 0x53, 0x00, 0xF8, 0xA1, 0x4C, 0xB0,
    ]
    /// 64x64 at 25 fps: width=64, height=64, level=10, r_frame_rate=25/1, no cropping.
    /// Two emulation prevention bytes.
    static let small25fpsSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0A, 0xAC, 0xD9, 0x44, 0x26, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04,
        0x00, 0x00, 0x03, 0x00, 0xC8, 0x3C, 0x48, 0x96, 0x58,
    ]
    /// `-profile:v high -x264-params slices=3:bframes=0`.
    static let slicesSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0B, 0xAC, 0xB2, 0x05, 0x9F, 0xD4, 0x46, 0x02, 0x20, 0x00, 0x00, 0x7D,
        0x20, 0x00, 0x1D, 0x4C, 0x01, 0xE2, 0x85, 0x49,
    ]
    /// `-profile:v main -x264-params intra-refresh=1:keyint=4:bframes=0`
    /// (pic_order_cnt_type=2).
    static let intraRefreshSPS: [UInt8] = [
        0x67, 0x4D, 0x40, 0x0B, 0xDA, 0x0B, 0x3F, 0xA8, 0x8C, 0x04, 0x40, 0x00, 0x00, 0xFA, 0x40,
        0x00, 0x3A, 0x98, 0x03, 0xC5, 0x0A, 0xA8,
    ]

    // MARK: PPS

    /// Baseline PPS: CAVLC, no tail.
    static let constrainedBaselinePPS: [UInt8] = [0x68, 0xCB, 0x83, 0xCB, 0x20]
    /// Main PPS: CABAC, weighted_pred_flag=1, weighted_bipred_idc=2, no tail.
    static let mainPPS: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x20]
    /// High PPS: transform_8x8_mode_flag=1, second_chroma_qp_index_offset=-2.
    static let highPPS: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
    /// High 4:4:4 Predictive PPS: chroma_qp_index_offset=4, second_chroma_qp_index_offset=4.
    static let high444PPS: [UInt8] = [0x68, 0xEB, 0xE3, 0xC4, 0x48, 0x44]
    /// Interlaced PPS: bottom_field_pic_order_in_frame_present_flag=1.
    static let interlacedPPS: [UInt8] = [0x68, 0xFB, 0xA3, 0xCB, 0x22, 0xC0]
    /// slices=3 PPS: num_ref_idx_l0_default_active_minus1=0.
    static let slicesPPS: [UInt8] = [0x68, 0xEB, 0xC3, 0xCB, 0x22, 0xC0]
    /// Intra-refresh PPS (Main).
    static let intraRefreshPPS: [UInt8] = [0x68, 0xEF, 0x0F, 0x2C, 0x80]
    /// `-x264-params cqm=jvt`: pic_scaling_matrix_present_flag=1, all eight
    /// pic_scaling_list_present_flag 0.
    static let jvtCQMPPS: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x30, 0x02, 0xC0]
    /// `-x264-params cqmfile=custom2.cqm` (see ``customCQM4x4`` and ``customCQM8x8``):
    /// pic_scaling_list_present_flag = 1 1 0 1 1 0 1 1 (V lists equal U, so x264 leaves them out).
    static let customCQMPPS: [UInt8] = [
        0x68, 0xEB, 0xE3, 0xCB, 0x38, 0x40, 0x51, 0x4C, 0x41, 0xE2, 0x8A, 0x52, 0x8A, 0x20, 0xF3, 0x14,
        0x54, 0x24, 0x28, 0xA6, 0x1E, 0x41, 0x45, 0x29, 0x45, 0x10, 0x79, 0x8A, 0x29, 0x0B, 0x0A, 0x28,
        0xD2, 0x10, 0x48, 0xE2, 0x94, 0x50, 0xF2, 0x18, 0xA2, 0x61, 0x81, 0x23, 0x86, 0x90, 0x82, 0x47,
        0x14, 0xA2, 0x48, 0x43, 0x14, 0x4A, 0x20, 0xCC, 0x89, 0x19, 0xB6, 0x44, 0x92, 0x33, 0x6D, 0xB2,
        0x24, 0x92, 0x40, 0x8D, 0x82, 0x66, 0xDB, 0x66, 0x48, 0x13, 0xA4, 0x88, 0xDB, 0x6C, 0xC9, 0x24,
        0x46, 0xD9, 0x92, 0x23, 0x34, 0x51, 0x99, 0x12, 0x33, 0x6C, 0x89, 0x24, 0x66, 0xDB, 0x64, 0x49,
        0x24, 0x81, 0x1B, 0x60, 0x99, 0xB6, 0xCC, 0x81, 0x3A, 0x49, 0x11, 0xB6, 0xD9, 0x92, 0x48, 0x8D,
        0xB3, 0x24, 0x46, 0x62, 0xC0,
    ]

    /// The raster-order 4×4 matrices of the CQM file: entry `(r, c)` of list `i` is
    /// `16 + (3r + 5c + i) % 9` (lists 0...5: intra Y/Cb/Cr, inter Y/Cb/Cr). x264 reads only the
    /// `*_CHROMAU` entries of the file for both chroma lists, so Cr equals Cb and is left out
    /// (fall-back rule B).
    static func customCQM4x4(list: Int, row: Int, column: Int) -> Int { 16 + (row * 3 + column * 5 + list) % 9 }
    /// The raster-order 8×8 matrices: entry `(r, c)` of list `i` (0 intra, 1 inter) is
    /// `12 + (2r + 3c + i) % 20`.
    static func customCQM8x8(list: Int, row: Int, column: Int) -> Int { 12 + (row * 2 + column * 3 + list) % 20 }

    /// Zig-zag (frame) scan: position `k` in the coded list → raster index (Tables 8-12, 8-13).
    static func zigZag(size n: Int) -> [Int] {
        var order = [Int]()
        for sum in 0..<(2 * n - 1) {
            let cells = (0..<n).compactMap { row -> Int? in
                let column = sum - row
                return column >= 0 && column < n ? row * n + column : nil
            }
            // Even diagonals run bottom-left to top-right, odd ones top-right to bottom-left.
            order += sum % 2 == 0 ? cells.reversed() : cells
        }
        return order
    }

    // MARK: Slices (header bytes only; the slice data is cut off)

    /// First slices of `slices=3:bframes=0` (trace_headers: first_mb_in_slice 0, 22, 55).
    static let slicesIDR0: [UInt8] = [0x65, 0x88, 0x84, 0x09, 0x7F, 0xD7, 0x47, 0x66, 0xB3, 0x18, 0x17, 0x6C]
    static let slicesIDR1: [UInt8] = [0x65, 0x0B, 0x88, 0x84, 0x08, 0x7F, 0xC5, 0x99, 0x10, 0x83, 0x07, 0xAB]
    static let slicesIDR2: [UInt8] = [0x65, 0x07, 0x02, 0x21, 0x02, 0xBF, 0xFE, 0xD8, 0xE7, 0xF3, 0x2C, 0x93]
    static let slicesP0: [UInt8] = [0x41, 0x9A, 0x3B, 0x10, 0xB7, 0x54, 0x33, 0xE9, 0x85, 0xCF, 0x10, 0x27]
    static let slicesP1: [UInt8] = [0x41, 0x0B, 0x9A, 0x3B, 0x10, 0xA7, 0x5A, 0xC4, 0x70, 0x18, 0x78, 0x83]
    /// A whole 11-byte slice NAL unit (the third slice of the P picture).
    static let slicesP2: [UInt8] = [0x41, 0x07, 0x06, 0x8E, 0xC4, 0x27, 0xFF, 0xFD, 0xF1, 0x15, 0xB0]

    /// Interlaced (MBAFF) stream slices: IDR (slice_type 7, pic_order_cnt_lsb 1,
    /// delta_pic_order_cnt_bottom -1), P (5, frame_num 1, lsb 7), B ref (6, frame_num 2, lsb 3),
    /// B non-ref (nal_ref_idc 0, frame_num 3, lsb 5).
    static let interlacedIDR: [UInt8] = [0x65, 0x88, 0x82, 0x0B, 0x07, 0x7F, 0xCA, 0xAC, 0xFD, 0xD8, 0x78, 0xB8]
    static let interlacedP: [UInt8] = [0x41, 0x9A, 0x21, 0xDE, 0x42, 0xDF, 0xCF, 0x66, 0x4E, 0x99, 0x4A, 0x6B]
    static let interlacedBRef: [UInt8] = [0x41, 0x9E, 0x40, 0xDF, 0x88, 0x5B, 0xFF, 0xF7, 0x01, 0x5A, 0x7A, 0x22]
    static let interlacedBNonRef: [UInt8] = [0x01, 0x9E, 0x61, 0x5E, 0xA4, 0x2D, 0xFF, 0xF0, 0x8C, 0x21, 0x3C, 0xA2]

    // MARK: SEI

    /// x264's version string: user_data_unregistered (payloadType 5, payloadSize 615 coded as
    /// `FF FF 69`), from the intra-refresh stream.
    static let x264VersionSEI: [UInt8] = bytes(hex: """
        0605FFFF69DC45E9BDE6D948B7962CD820D923EEEF78323634202D20636F7265203136342072333039352062616565\
        343030202D20482E3236342F4D5045472D342041564320636F646563202D20436F70796C65667420323030332D3230\
        3232202D20687474703A2F2F7777772E766964656F6C616E2E6F72672F783236342E68746D6C202D206F7074696F6E\
        733A2063616261633D31207265663D31206465626C6F636B3D313A303A3020616E616C7973653D3078313A30783131\
        31206D653D686578207375626D653D37207073793D31207073795F72643D312E30303A302E3030206D697865645F72\
        65663D30206D655F72616E67653D3136206368726F6D615F6D653D31207472656C6C69733D31203878386463743D30\
        2063716D3D3020646561647A6F6E653D32312C313120666173745F70736B69703D31206368726F6D615F71705F6F66\
        667365743D2D3220746872656164733D33206C6F6F6B61686561645F746872656164733D3120736C696365645F7468\
        72656164733D30206E723D3020646563696D6174653D3120696E7465726C616365643D3020626C757261795F636F6D\
        7061743D3020636F6E73747261696E65645F696E7472613D3020626672616D65733D3020776569676874703D32206B\
        6579696E743D34206B6579696E745F6D696E3D31207363656E656375743D343020696E7472615F726566726573683D\
        312072635F6C6F6F6B61686561643D342072633D637266206D62747265653D31206372663D32332E302071636F6D70\
        3D302E36302071706D696E3D302071706D61783D3639207170737465703D342069705F726174696F3D312E34302061\
        713D313A312E30300080
        """)
    /// x264 intra refresh: recovery_point (type 6, size 2): recovery_frame_cnt=3,
    /// exact_match_flag=1, broken_link_flag=0, changing_slice_group_idc=0 (trace_headers).
    static let x264RecoveryPointSEI: [UInt8] = [0x06, 0x06, 0x02, 0x24, 0x40, 0x80]
    /// x264 interlaced: pic_timing (type 1, size 1), pic_struct=3.
    static let x264PicTimingSEI: [UInt8] = [0x06, 0x01, 0x01, 0x32, 0x80]
    /// x265 `idr-recovery-sei=1` prefix SEI (type 39): recovery_point, size 1: recovery_poc_cnt=0,
    /// exact_match_flag=1, broken_link_flag=0.
    static let x265RecoveryPointSEI: [UInt8] = [0x4E, 0x01, 0x06, 0x01, 0xD0, 0x80]

    static func bytes(hex: String) -> [UInt8] {
        var out = [UInt8]()
        var high: UInt8? = nil
        for character in hex.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: continue
            }
            if let value = high { out.append(value << 4 | nibble); high = nil } else { high = nibble }
        }
        return out
    }

    /// The fields of a hand-made SPS, written by ``write(_:)`` in 7.3.2.1.1 order.
    struct SPSBuilder {
        var profileIdc: UInt64 = 100
        var constraintFlags: UInt64 = 0
        var levelIdc: UInt64 = 31
        var spsId: UInt32 = 0
        var chromaFormatIdc: UInt32 = 1
        var separateColourPlane = false
        var bitDepthLumaMinus8: UInt32 = 0
        var bitDepthChromaMinus8: UInt32 = 0
        /// When set, seq_scaling_matrix_present_flag is 1 and this writes the lists.
        var scalingLists: ((inout BitWriter) -> Void)? = nil
        var log2MaxFrameNumMinus4: UInt32 = 0
        var pocType: UInt32 = 0
        var log2MaxPocLsbMinus4: UInt32 = 2
        var pocType1: (alwaysZero: Bool, nonRef: Int32, topToBottom: Int32, cycle: [Int32]) = (false, 0, 0, [])
        /// Overrides num_ref_frames_in_pic_order_cnt_cycle (to lie about the count).
        var cycleCountOverride: UInt32? = nil
        var maxNumRefFrames: UInt32 = 1
        var widthInMbsMinus1: UInt32 = 10
        var heightInMapUnitsMinus1: UInt32 = 6
        var frameMbsOnly = true
        var mbaff = false
        var crop: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32)? = nil
        /// When set, vui_parameters_present_flag is 1 and this writes the VUI.
        var vui: ((inout BitWriter) -> Void)? = nil

        func nal() -> [UInt8] { AVCTestVectors.nal(0x67) { write(&$0) } }

        func write(_ w: inout BitWriter) {
            w.u(8, profileIdc); w.u(8, constraintFlags); w.u(8, levelIdc)
            w.ue(spsId)
            if AVCProfile.hasChromaFormatInfo(UInt8(profileIdc)) {
                w.ue(chromaFormatIdc)
                if chromaFormatIdc == 3 { w.flag(separateColourPlane) }
                w.ue(bitDepthLumaMinus8); w.ue(bitDepthChromaMinus8)
                w.flag(false)
                w.flag(scalingLists != nil)
                scalingLists?(&w)
            }
            w.ue(log2MaxFrameNumMinus4)
            w.ue(pocType)
            if pocType == 0 { w.ue(log2MaxPocLsbMinus4) }
            if pocType == 1 {
                w.flag(pocType1.alwaysZero); w.se(pocType1.nonRef); w.se(pocType1.topToBottom)
                w.ue(cycleCountOverride ?? UInt32(pocType1.cycle.count))
                for offset in pocType1.cycle { w.se(offset) }
            }
            w.ue(maxNumRefFrames)
            w.flag(false)
            w.ue(widthInMbsMinus1); w.ue(heightInMapUnitsMinus1)
            w.flag(frameMbsOnly)
            if !frameMbsOnly { w.flag(mbaff) }
            w.flag(true)
            w.flag(crop != nil)
            if let crop { w.ue(crop.left); w.ue(crop.right); w.ue(crop.top); w.ue(crop.bottom) }
            w.flag(vui != nil)
            vui?(&w)
            w.rbspTrailingBits()
        }
    }

    /// Builds an escaped NAL unit from a header byte and RBSP syntax written by `body`.
    static func nal(_ header: UInt8, _ body: (inout BitWriter) -> Void) -> [UInt8] {
        var writer = BitWriter()
        body(&writer)
        return [header] + RBSP.escape(writer.bytes)
    }
}
