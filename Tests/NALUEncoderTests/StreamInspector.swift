import Foundation
import NALU
import NALUEncoder
import Testing

/// What the tests learn from an encoded elementary stream, using the core's framing readers
/// and bit reader (minimal SPS/PPS/slice-header parsing until the core's SPS parsers land).
struct StreamSummary {
    struct Picture {
        var nalTypes: [UInt8]
        var isIDR: Bool
        var isB: Bool
        var hasParameterSets: Bool
    }
    var pictures: [Picture] = []
    var profileIdc: Int?
    var levelIdc: Int?
    var width: Int?
    var height: Int?
    var bitDepth: Int?

    var idrIndices: [Int] { pictures.indices.filter { pictures[$0].isIDR } }
    var bPictureCount: Int { pictures.filter(\.isB).count }
}

enum StreamInspector {
    /// Splits `stream` with the core's streaming readers (in odd-sized chunks) and groups the
    /// NAL units into pictures by their first slice.
    static func inspect(_ stream: [UInt8], codec: Codec, format: StreamFormat = .annexB) throws -> StreamSummary {
        var units: [[UInt8]] = []
        let source = MemorySource(stream, chunkSizes: [4093, 777, 65536])
        switch format {
        case .annexB:
            var reader = AnnexBReader(source, chunkSize: 4096)
            try reader.forEachNALUnit { units.append($0.array) }
        case .lengthPrefixed:
            var reader = try LengthPrefixedReader(source, lengthSize: 4, chunkSize: 4096)
            try reader.forEachNALUnit { units.append($0.array) }
        }
        return try summarize(units, codec: codec)
    }

    static func summarize(_ units: [[UInt8]], codec: Codec) throws -> StreamSummary {
        var summary = StreamSummary()
        var pendingNonVCL: [UInt8] = []
        var sawParameterSets = false
        var extraSliceHeaderBits = 0
        for unit in units {
            guard unit.count >= codec.nalHeaderLength else { continue }
            switch codec {
            case .h264:
                let header = try AVCNALUnitHeader(unit)
                let type = header.nalUnitType.rawValue
                if type == 7 {
                    sawParameterSets = true
                    try parseAVCSPS(unit, into: &summary)
                } else if type == 8 {
                    sawParameterSets = true
                }
                guard header.nalUnitType.isVCL else { pendingNonVCL.append(type); continue }
                var reader = BitReader(nalUnit: unit[...], headerBytes: 1)
                let firstMB = try reader.ue("first_mb_in_slice")
                let sliceType = try reader.ue("slice_type") % 5
                if firstMB == 0 {
                    summary.pictures.append(.init(nalTypes: pendingNonVCL + [type], isIDR: type == 5, isB: sliceType == 1, hasParameterSets: sawParameterSets))
                } else if !summary.pictures.isEmpty {
                    summary.pictures[summary.pictures.count - 1].nalTypes.append(type)
                }
            case .hevc:
                let header = try HEVCNALUnitHeader(unit)
                let type = header.nalUnitType.rawValue
                if type == 33 {
                    sawParameterSets = true
                    try parseHEVCSPS(unit, into: &summary)
                } else if type == 34 {
                    var reader = BitReader(nalUnit: unit[...], headerBytes: 2)
                    _ = try reader.ue("pps_pic_parameter_set_id")
                    _ = try reader.ue("pps_seq_parameter_set_id")
                    _ = try reader.flag("dependent_slice_segments_enabled_flag")
                    _ = try reader.flag("output_flag_present_flag")
                    extraSliceHeaderBits = Int(try reader.u(3, "num_extra_slice_header_bits"))
                } else if type == 32 {
                    sawParameterSets = true
                }
                guard header.nalUnitType.isVCL else { pendingNonVCL.append(type); continue }
                var reader = BitReader(nalUnit: unit[...], headerBytes: 2)
                let first = try reader.flag("first_slice_segment_in_pic_flag")
                if first {
                    if header.nalUnitType.isIRAP { _ = try reader.flag("no_output_of_prior_pics_flag") }
                    _ = try reader.ue("slice_pic_parameter_set_id")
                    try reader.skip(extraSliceHeaderBits, "slice_reserved_flag")
                    let sliceType = try reader.ue("slice_type")
                    summary.pictures.append(.init(nalTypes: pendingNonVCL + [type], isIDR: header.nalUnitType.isIDR, isB: sliceType == 0, hasParameterSets: sawParameterSets))
                } else if !summary.pictures.isEmpty {
                    summary.pictures[summary.pictures.count - 1].nalTypes.append(type)
                }
            }
            pendingNonVCL = []
            sawParameterSets = false
        }
        return summary
    }

    /// ITU-T H.264 7.3.2.1.1, enough for profile, level, size and bit depth.
    static func parseAVCSPS(_ unit: [UInt8], into summary: inout StreamSummary) throws {
        var r = BitReader(nalUnit: unit[...], headerBytes: 1)
        let profile = Int(try r.u(8, "profile_idc"))
        _ = try r.u(8, "constraint_flags")
        summary.profileIdc = profile
        summary.levelIdc = Int(try r.u(8, "level_idc"))
        _ = try r.ue("seq_parameter_set_id")
        var chromaFormat: UInt32 = 1
        var depth = 8
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            chromaFormat = try r.ue("chroma_format_idc")
            if chromaFormat == 3 { _ = try r.flag("separate_colour_plane_flag") }
            depth = Int(try r.ue("bit_depth_luma_minus8")) + 8
            _ = try r.ue("bit_depth_chroma_minus8")
            _ = try r.flag("qpprime_y_zero_transform_bypass_flag")
            #expect(try r.flag("seq_scaling_matrix_present_flag") == false)
        }
        summary.bitDepth = depth
        _ = try r.ue("log2_max_frame_num_minus4")
        let pocType = try r.ue("pic_order_cnt_type")
        if pocType == 0 {
            _ = try r.ue("log2_max_pic_order_cnt_lsb_minus4")
        } else if pocType == 1 {
            _ = try r.flag("delta_pic_order_always_zero_flag")
            _ = try r.se("offset_for_non_ref_pic")
            _ = try r.se("offset_for_top_to_bottom_field")
            let count = try r.ue("num_ref_frames_in_pic_order_cnt_cycle", in: 0...255)
            for _ in 0..<count { _ = try r.se("offset_for_ref_frame") }
        }
        _ = try r.ue("max_num_ref_frames")
        _ = try r.flag("gaps_in_frame_num_value_allowed_flag")
        let widthMbs = Int(try r.ue("pic_width_in_mbs_minus1")) + 1
        let heightUnits = Int(try r.ue("pic_height_in_map_units_minus1")) + 1
        let frameMbsOnly = try r.flag("frame_mbs_only_flag")
        if !frameMbsOnly { _ = try r.flag("mb_adaptive_frame_field_flag") }
        _ = try r.flag("direct_8x8_inference_flag")
        var crop = (0, 0, 0, 0)
        if try r.flag("frame_cropping_flag") {
            crop = (Int(try r.ue("left")), Int(try r.ue("right")), Int(try r.ue("top")), Int(try r.ue("bottom")))
        }
        let cropUnitX = chromaFormat == 0 ? 1 : 2
        let cropUnitY = (chromaFormat == 1 ? 2 : 1) * (frameMbsOnly ? 1 : 2)
        summary.width = widthMbs * 16 - cropUnitX * (crop.0 + crop.1)
        summary.height = (frameMbsOnly ? 1 : 2) * heightUnits * 16 - cropUnitY * (crop.2 + crop.3)
    }

    /// ITU-T H.265 7.3.2.2.1 up to the conformance window and bit depth.
    static func parseHEVCSPS(_ unit: [UInt8], into summary: inout StreamSummary) throws {
        var r = BitReader(nalUnit: unit[...], headerBytes: 2)
        _ = try r.u(4, "sps_video_parameter_set_id")
        let maxSubLayersMinus1 = Int(try r.u(3, "sps_max_sub_layers_minus1"))
        _ = try r.flag("sps_temporal_id_nesting_flag")
        // profile_tier_level(1, sps_max_sub_layers_minus1) (7.3.3)
        _ = try r.u(2, "general_profile_space")
        _ = try r.flag("general_tier_flag")
        summary.profileIdc = Int(try r.u(5, "general_profile_idc"))
        try r.skip(32, "general_profile_compatibility_flags")
        try r.skip(48, "general_constraint_flags")
        summary.levelIdc = Int(try r.u(8, "general_level_idc"))
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            profilePresent.append(try r.flag("sub_layer_profile_present_flag"))
            levelPresent.append(try r.flag("sub_layer_level_present_flag"))
        }
        if maxSubLayersMinus1 > 0 { for _ in maxSubLayersMinus1..<8 { try r.skip(2, "reserved_zero_2bits") } }
        for index in 0..<maxSubLayersMinus1 {
            if profilePresent[index] { try r.skip(88, "sub_layer_profile") }
            if levelPresent[index] { try r.skip(8, "sub_layer_level_idc") }
        }
        _ = try r.ue("sps_seq_parameter_set_id")
        let chromaFormat = try r.ue("chroma_format_idc")
        if chromaFormat == 3 { _ = try r.flag("separate_colour_plane_flag") }
        var width = Int(try r.ue("pic_width_in_luma_samples"))
        var height = Int(try r.ue("pic_height_in_luma_samples"))
        if try r.flag("conformance_window_flag") {
            let subWidth = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1
            let subHeight = chromaFormat == 1 ? 2 : 1
            let left = Int(try r.ue("conf_win_left_offset")), right = Int(try r.ue("conf_win_right_offset"))
            let top = Int(try r.ue("conf_win_top_offset")), bottom = Int(try r.ue("conf_win_bottom_offset"))
            width -= subWidth * (left + right)
            height -= subHeight * (top + bottom)
        }
        summary.width = width
        summary.height = height
        summary.bitDepth = Int(try r.ue("bit_depth_luma_minus8")) + 8
    }
}

/// Decodes with the ffmpeg CLI and counts the frames it outputs.
enum FFmpeg {
    static func path() throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        Issue.record("ffmpeg not found on PATH; install it (apt-get install ffmpeg) to run the decode checks")
        throw CancellationError()
    }

    /// Frames ffmpeg decodes from `stream` (an elementary stream of `codec`), failing the test
    /// when ffmpeg reports an error.
    static func decodedFrameCount(_ stream: [UInt8], codec: Codec) throws -> Int {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-encoder-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(codec == .h264 ? "stream.h264" : "stream.h265")
        try Data(stream).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-f", codec == .h264 ? "h264" : "hevc",
                             "-i", file.path, "-f", "framemd5", "-"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errorData, as: UTF8.self)
        #expect(process.terminationStatus == 0, "ffmpeg failed: \(errorText)")
        #expect(errorText.isEmpty, "ffmpeg reported: \(errorText)")
        return String(decoding: outputData, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }
}

/// Encodes `count` test-pattern frames and collects every packet.
struct EncodeRun {
    var packets: [EncodedPacket] = []
    var stream: [UInt8] = []
    var events: [EncoderSession.Event] = []

    mutating func take(_ packet: EncodedPacket) {
        packets.append(packet)
        stream.append(contentsOf: packet.bytes)
    }
}

func encodePattern(_ configuration: EncoderConfiguration, factory: any EncoderBackendFactory, frames: Int,
                   retryPolicy: EncoderSession.RetryPolicy = .init(),
                   during: (EncoderSession, Int) throws -> Void = { _, _ in }) throws -> (EncodeRun, EncoderSession) {
    let session = try EncoderSession(configuration: configuration, factory: factory, retryPolicy: retryPolicy)
    var run = EncodeRun()
    var events: [EncoderSession.Event] = []
    session.eventHandler = { events.append($0) }
    let pattern = try TestPattern(pixelFormat: configuration.pixelFormat, width: configuration.width, height: configuration.height)
    for index in 0..<frames {
        try during(session, index)
        try session.encode(pattern.frame(Int64(index))) { run.take($0) }
    }
    try session.flush { run.take($0) }
    run.events = events
    return (run, session)
}

/// Checks what must hold for every session output: each input pts exactly once, dts strictly
/// increasing and never after pts.
func expectEveryFrameOnce(_ run: EncodeRun, frames: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(run.packets.map(\.pts).sorted() == (0..<Int64(frames)).map { $0 }, sourceLocation: sourceLocation)
    let dts = run.packets.map(\.dts)
    #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }, "dts not strictly increasing: \(dts)", sourceLocation: sourceLocation)
    #expect(run.packets.allSatisfy { $0.dts <= $0.pts }, sourceLocation: sourceLocation)
}
