import Foundation
import Testing

/// The fixtures with a `NAME.colour.json` (ffprobe -show_streams -show_frames of the first frame,
/// plus the trace_headers values of the VUI fields; Scripts/make-fixtures.sh `probe_colour`).
let colourFixtureNames: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: CLIRunner.fixtures.path)) ?? []
    return names.filter { $0.hasSuffix(".colour.json") }.map { String($0.dropLast(".colour.json".count)) }.sorted()
}()

func colourFacts(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture(name + ".colour.json")))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

private func streamPath(_ name: String) -> String {
    CLIRunner.fixture(name + (name.contains("hevc") ? ".h265" : ".h264"))
}

@Suite struct InfoColourTests {
    /// ffprobe's keys, with their values, or absent when ffprobe leaves them out (unspecified colour,
    /// H.265 field order).
    static let ffprobeKeys = ["color_range", "color_space", "color_transfer", "color_primaries",
                              "sample_aspect_ratio", "display_aspect_ratio", "field_order"]

    @Test func everyFixtureHasColourFacts() {
        #expect(colourFixtureNames.count >= 28)
        #expect(colourFixtureNames.contains("colour_hevc_hdr10"))
    }

    /// `nalu info --json` reports exactly what ffprobe reports for the colour, aspect and field
    /// order keys, and leaves out exactly the keys ffprobe leaves out.
    @Test(arguments: colourFixtureNames) func colourKeysMatchFFprobe(name: String) throws {
        let facts = try colourFacts(name)
        let stream = try #require((facts["streams"] as? [[String: Any]])?.first)
        let mp4 = CLIRunner.fixture(name + ".mp4")
        let remuxed = name.hasPrefix("colour_") && FileManager.default.fileExists(atPath: mp4)
        for path in [streamPath(name)] + (remuxed ? [mp4] : []) {
            let result = try CLIRunner.run(["info", "--json", path])
            #expect(result.status == 0)
            let info = try jsonObject(result.stdout)
            for key in Self.ffprobeKeys {
                #expect(info[key] as? String == stream[key] as? String, "\(name) \(path.suffix(5)) \(key)")
            }
        }
    }

    /// The VUI timing, reordering and HRD values agree with ffmpeg's trace_headers.
    @Test(arguments: colourFixtureNames) func vuiMatchesTraceHeaders(name: String) throws {
        let trace = try #require(try colourFacts(name)["trace_headers"] as? [String: Int])
        let info = try jsonObject(try CLIRunner.run(["info", "--json", streamPath(name)]).stdout)
        let vui = try #require(info["vui"] as? [String: Any])
        let hevc = name.contains("hevc")
        if let units = trace[hevc ? "vui_num_units_in_tick" : "num_units_in_tick"] {
            #expect(vui["num_units_in_tick"] as? Int == units)
            #expect(vui["time_scale"] as? Int == trace[hevc ? "vui_time_scale" : "time_scale"])
        } else {
            #expect(vui["num_units_in_tick"] is NSNull)
        }
        if !hevc { #expect((vui["fixed_frame_rate"] as? Bool).map { $0 ? 1 : 0 } == trace["fixed_frame_rate_flag"]) }
        if hevc {
            #expect(vui["max_num_reorder_frames"] as? Int == trace["sps_max_num_reorder_pics[0]"])
            #expect(vui["max_dec_frame_buffering"] as? Int == trace["sps_max_dec_pic_buffering_minus1[0]"].map { $0 + 1 })
        } else {
            #expect(vui["max_num_reorder_frames"] as? Int == trace["max_num_reorder_frames"])
            #expect(vui["max_dec_frame_buffering"] as? Int == trace["max_dec_frame_buffering"])
        }
        let hrd = try #require(vui["hrd"] as? [[String: Any]])
        if trace["nal_hrd_parameters_present_flag"] == 1, let rate = trace["bit_rate_value_minus1[0]"],
           let rateScale = trace["bit_rate_scale"], let size = trace["cpb_size_value_minus1[0]"], let sizeScale = trace["cpb_size_scale"] {
            let nal = try #require(hrd.first)
            #expect(nal["type"] as? String == "nal")
            #expect(nal["bit_rate"] as? Int == (rate + 1) << (6 + rateScale))
            #expect(nal["cpb_size"] as? Int == (size + 1) << (4 + sizeScale))
            #expect(nal["cbr"] as? Bool == (trace["cbr_flag[0]"] == 1))
        } else {
            #expect(hrd.isEmpty)
        }
    }

    /// Mastering display and content light level agree with ffprobe's frame side data.
    @Test func hdr10SEIMatchesFFprobeSideData() throws {
        let facts = try colourFacts("colour_hevc_hdr10")
        let frame = try #require((facts["frames"] as? [[String: Any]])?.first)
        let sideData = try #require(frame["side_data_list"] as? [[String: Any]])
        let mastering = try #require(sideData.first { $0["side_data_type"] as? String == "Mastering display metadata" })
        let light = try #require(sideData.first { $0["side_data_type"] as? String == "Content light level metadata" })
        let info = try jsonObject(try CLIRunner.run(["info", "--json", streamPath("colour_hevc_hdr10")]).stdout)
        let sei = try #require(info["sei"] as? [String: Any])
        let display = try #require(sei["mastering_display"] as? [String: String])
        for key in ["red_x", "red_y", "green_x", "green_y", "blue_x", "blue_y", "white_point_x", "white_point_y",
                    "min_luminance", "max_luminance"] {
            #expect(display[key] == mastering[key] as? String, "\(key)")
        }
        let level = try #require(sei["content_light_level"] as? [String: Int])
        #expect(level["max_content"] == light["max_content"] as? Int)
        #expect(level["max_average"] == light["max_average"] as? Int)
        let userData = try #require(sei["user_data_unregistered"] as? [String: String])
        #expect(userData["text"]?.hasPrefix("x265 (build ") == true)
        #expect(userData["text"]?.contains("master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)") == true)
    }

    /// Streams without HDR SEI report none; x264's settings string is found.
    @Test func sdrStreamHasNoHDRSEI() throws {
        let info = try jsonObject(try CLIRunner.run(["info", "--json", streamPath("colour_avc_bt709_tv")]).stdout)
        let sei = try #require(info["sei"] as? [String: Any])
        #expect(sei["mastering_display"] == nil)
        #expect(sei["content_light_level"] == nil)
        let userData = try #require(sei["user_data_unregistered"] as? [String: String])
        #expect(userData["uuid"] == "dc45e9bd-e6d9-48b7-962c-d820d923eeef")
        #expect(userData["text"]?.hasPrefix("x264 - core ") == true)
    }

    /// Recovery point SEI (x264 open GOP writes them on its non-IDR I frames).
    @Test func recoveryPointsOfOpenGOP() throws {
        let info = try jsonObject(try CLIRunner.run(["info", "--json", streamPath("avc_open_gop")]).stdout)
        let sei = try #require(info["sei"] as? [String: Any])
        let recovery = try #require(sei["recovery_point"] as? [String: Int])
        #expect(recovery["recovery_frame_cnt"] == 0)
        let counts = try #require(sei["payload_type_counts"] as? [String: Int])
        #expect(recovery["messages"] == counts["6"])
    }
}

@Suite struct InfoSampleEntryColourTests {
    /// ffmpeg's MP4 muxer writes `colr` (nclx) and `pasp` from the stream's colour and SAR;
    /// `nalu info` reads them back with the same values and no note.
    @Test(arguments: ["colour_avc_bt709_tv", "colour_avc_pc_sar43", "colour_avc_hrd", "colour_hevc_hdr10", "colour_hevc_hlg_sar"])
    func colrAndPaspMatchTheStream(name: String) throws {
        let stream = try #require((try colourFacts(name)["streams"] as? [[String: Any]])?.first)
        let info = try jsonObject(try CLIRunner.run(["info", "--json", CLIRunner.fixture(name + ".mp4")]).stdout)
        let container = try #require(info["container"] as? [String: Any])
        let colr = try #require(container["colr"] as? [String: Any])
        #expect(colr["colour_type"] as? String == "nclx")
        for key in ["color_primaries", "color_transfer", "color_space", "color_range"] {
            #expect(colr[key] as? String == stream[key] as? String, "\(key)")
        }
        #expect(container["pasp"] as? String == stream["sample_aspect_ratio"] as? String)
        #expect(container["notes"] == nil)
    }

    /// colour_hevc_colr_mismatch.mp4: the HDR10 stream remuxed with `-color_primaries bt709
    /// -color_trc bt709 -colorspace bt709 -color_range pc`, so colr disagrees with the VUI.
    @Test func mismatchIsNoted() throws {
        let path = CLIRunner.fixture("colour_hevc_colr_mismatch.mp4")
        let info = try jsonObject(try CLIRunner.run(["info", "--json", path]).stdout)
        let container = try #require(info["container"] as? [String: Any])
        #expect(container["sample_entry"] as? String == "hev1")
        #expect(container["notes"] as? [String] == [
            "colr colour_primaries 1 (bt709) differs from the VUI's 9 (bt2020)",
            "colr transfer_characteristics 1 (bt709) differs from the VUI's 16 (smpte2084)",
            "colr matrix_coefficients 1 (bt709) differs from the VUI's 9 (bt2020nc)",
            "colr full_range_flag 1 differs from the VUI's video_full_range_flag 0",
        ])
        // The stream's own fields still come from the VUI, as ffprobe reports them.
        #expect(info["color_primaries"] as? String == "bt2020")
        #expect(info["color_range"] as? String == "tv")
        let text = try CLIRunner.run(["info", path]).stdout
        #expect(text.contains("note:          colr full_range_flag 1 differs from the VUI's video_full_range_flag 0\n"))
    }
}

@Suite struct NalsFieldsTests {
    static func lines(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try CLIRunner.run(["nals", "--json"] + arguments)
        #expect(result.status == 0)
        return try result.stdout.split(separator: "\n").map { try jsonObject(String($0)) }
    }

    /// Each SPS's `fields.vui` is what `info --json` reports for the stream (one SPS in these).
    @Test(arguments: colourFixtureNames.filter { $0.hasPrefix("colour_") })
    func spsFieldsAgreeWithInfo(name: String) throws {
        let path = CLIRunner.fixture(name + (name.contains("hevc") ? ".h265" : ".h264"))
        let info = try jsonObject(try CLIRunner.run(["info", "--json", path]).stdout)
        let sps = try #require(try Self.lines([path]).first { $0["name"] as? String == "SPS" })
        let fields = try #require(sps["fields"] as? [String: Any])
        #expect(fields["width"] as? Int == info["width"] as? Int)
        #expect(fields["height"] as? Int == info["height"] as? Int)
        let vui = try #require(fields["vui"] as? NSDictionary)
        #expect(vui == info["vui"] as? NSDictionary)
    }

    @Test func hdr10SEIMessagesAreListed() throws {
        let lines = try Self.lines([CLIRunner.fixture("colour_hevc_hdr10.h265")])
        let messages = lines.compactMap { $0["sei"] as? [[String: Any]] }.flatMap { $0 }
        let display = try #require(messages.first { $0["payload_type"] as? Int == 137 })
        #expect(display["display_primaries_x"] as? [Int] == [13250, 7500, 34000])
        #expect(display["min_display_mastering_luminance"] as? Int == 1)
        let light = try #require(messages.first { $0["payload_type"] as? Int == 144 })
        #expect(light["max_content_light_level"] as? Int == 1000)
        #expect(light["max_pic_average_light_level"] as? Int == 400)
    }

    /// A stream whose SEI messages are cut short: listed with `parse_error`, exit 0, no trap;
    /// `info` reports the first error in `sei.error` and still succeeds.
    @Test func malformedSEIPayloads() throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("colour_hevc_hdr10.h265"))))
        // Prefix SEI NAL units: MDCV with 3 of its 24 bytes, CLL with 1 of 4, user data with 15 of 16.
        let broken: [[UInt8]] = [
            [0, 0, 0, 1, 0x4E, 0x01, 137, 3, 0x33, 0xC2, 0x86, 0x80],
            [0, 0, 0, 1, 0x4E, 0x01, 144, 1, 0x03, 0x80],
            [0, 0, 0, 1, 0x4E, 0x01, 5, 15] + [UInt8](repeating: 0x41, count: 15) + [0x80],
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-sei-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("broken.h265").path
        try Data(broken.flatMap { $0 } + original).write(to: URL(fileURLWithPath: path))
        let lines = try Self.lines([path])
        let errors = lines.prefix(3).map { line in
            (line["sei"] as? [[String: Any]])?.first?["parse_error"] as? String
        }
        #expect(errors.allSatisfy { $0 != nil })
        #expect(errors[0]?.contains("display_primaries") == true)
        #expect(errors[1]?.contains("max_content_light_level") == true)
        #expect(errors[2]?.contains("uuid_iso_iec_11578") == true)
        let info = try CLIRunner.run(["info", "--json", path])
        #expect(info.status == 0)
        let sei = try #require(try jsonObject(info.stdout)["sei"] as? [String: Any])
        #expect((sei["error"] as? String)?.contains("display_primaries") == true)
        // The stream's own messages after the broken ones are still found.
        #expect((sei["content_light_level"] as? [String: Int])?["max_content"] == 1000)
    }
}
