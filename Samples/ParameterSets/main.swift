// Reads an H.264 or H.265 elementary stream with the NALU library (not the CLI) and prints its
// parameter sets: what each VPS/SPS/PPS says, as parsed models with the specs' names.
//
//   swift run parameter-sets-sample Tests/Fixtures/hevc_open_gop.h265
import NALU
import NALUIO

let arguments = CommandLine.arguments.dropFirst()
let path = arguments.first ?? "Tests/Fixtures/avc_high_bframes.h264"

do {
    // Framing (Annex-B or length-prefixed) and codec are detected from the first bytes.
    var reader = try ElementaryStreamReader(try FileSource(path: path))
    print("\(path): \(reader.format), \(reader.codec)")
    let codec = reader.codec
    var store = ParameterSetStore(codec: codec)
    try reader.forEachNALUnit { unit in
        let header = try NALUnitHeader(unit.bytes, codec: codec)
        guard header.isParameterSet else { return }
        // A NAL unit's bytes are only valid inside the callback: copy what you keep.
        guard try store.add(unit.array) == .new else { return }
        print("\n\(header.typeName) at byte \(unit.offset), \(unit.count) bytes")
    }
    for (id, entry) in store.avcSPS.sorted(by: { $0.key < $1.key }) {
        let sps = entry.parsed
        print("""
        H.264 SPS \(id): \(sps.profileName) (profile_idc \(sps.profileIdc)), level \(sps.levelName)
          \(sps.width)x\(sps.height), chroma_format_idc \(sps.chromaFormatIdc), \(sps.bitDepthLuma)-bit
          log2_max_frame_num_minus4 \(sps.log2MaxFrameNumMinus4), pic_order_cnt_type \(sps.picOrderCntType)
          max_num_ref_frames \(sps.maxNumRefFrames), frame_mbs_only_flag \(sps.frameMbsOnlyFlag)
          frame rate \(sps.frameRate.map { "\($0.numerator)/\($0.denominator)" } ?? "not in the VUI")
        """)
    }
    for (id, entry) in store.avcPPS.sorted(by: { $0.key < $1.key }) {
        let pps = entry.parsed
        print("H.264 PPS \(id): SPS \(pps.seqParameterSetId), entropy_coding_mode_flag \(pps.entropyCodingModeFlag), transform_8x8_mode_flag \(pps.transform8x8ModeFlag)")
    }
    for (id, entry) in store.hevcVPS.sorted(by: { $0.key < $1.key }) {
        print("H.265 VPS \(id): vps_max_sub_layers_minus1 \(entry.parsed.vpsMaxSubLayersMinus1)")
    }
    for (id, entry) in store.hevcSPS.sorted(by: { $0.key < $1.key }) {
        let sps = entry.parsed
        print("""
        H.265 SPS \(id): \(sps.profileName), \(sps.tierName) tier, level \(sps.levelName)
          \(sps.width)x\(sps.height) (coded \(sps.picWidthInLumaSamples)x\(sps.picHeightInLumaSamples)), chroma_format_idc \(sps.chromaFormatIdc), \(sps.bitDepthLuma)-bit
          CTB \(1 << sps.log2CtbSize), \(sps.shortTermRefPicSets.count) short-term RPS, log2_max_pic_order_cnt_lsb_minus4 \(sps.log2MaxPicOrderCntLsbMinus4)
          frame rate \(sps.frameRate.map { "\($0.numerator)/\($0.denominator)" } ?? "not in the VUI")
        """)
    }
    for (id, entry) in store.hevcPPS.sorted(by: { $0.key < $1.key }) {
        let pps = entry.parsed
        print("H.265 PPS \(id): SPS \(pps.ppsSeqParameterSetId), tiles_enabled_flag \(pps.tilesEnabledFlag), entropy_coding_sync_enabled_flag \(pps.entropyCodingSyncEnabledFlag)")
    }
} catch {
    print("error: \(error)")
}
