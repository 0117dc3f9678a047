import Foundation
import NALU
import NALUMedia
import NALUDoctor
import Testing

/// ``Doctor`` on the faulty fixtures of Scripts/make-doctor-fixtures.sh: each real fault is found
/// with its exact code, severity, access unit, byte offset and count, and nothing else.
@Suite struct DoctorTests {
    static func fixture(_ name: String) -> String { DoctorFixtures.path(name) }

    /// "code severity accessUnit byteOffset ×count" for each finding, as `nalu doctor` orders them.
    static func findings(_ name: String, target: DoctorTarget? = nil) throws -> [String] {
        let source = try MediaSource(path: fixture(name))
        return try Doctor(target: target, inputName: name).examine(source).map { finding in
            "\(finding.code.rawValue) \(finding.severity.rawValue) \(finding.accessUnit.map(String.init) ?? "-") \(finding.byteOffset.map(String.init) ?? "-") ×\(finding.count)"
        }
    }

    static let noColourAVC = "no-vui-colour warning 0 4 ×1"

    @Test func cutMidGOPStartsWithoutKeyframeOrParameterSets() throws {
        // Cut at the 4th picture of a keyint-10 stream: pictures 3…9 come before the IDR at 10
        // that brings the SPS and PPS, so 7 slices cannot be decoded.
        #expect(try Self.findings("doctor/cut_mid_gop.h264") == [
            "starts-without-keyframe error 0 0 ×1", "no-parameter-sets error 0 4 ×7", "no-vui-colour warning 7 5576 ×1",
        ])
    }

    @Test func strippedParameterSets() throws {
        // filter_units=remove_types=7|8: all 20 pictures lack their SPS/PPS; the first slice follows x264's SEI.
        #expect(try Self.findings("doctor/no_parameter_sets.h264") == ["no-parameter-sets error 0 630 ×20"])
    }

    @Test func missingReferences() throws {
        // Each IDR's PPS (2 of them) refers to the stripped SPS; each SPS (2) to the stripped VPS.
        #expect(try Self.findings("doctor/missing_sps.h264") == ["missing-reference error 0 4 ×2"])
        // filter_units=remove_types=8: the SPS arrives, every one of the 20 pictures' PPS does not.
        #expect(try Self.findings("doctor/missing_pps.h264") == ["missing-reference error 0 656 ×20", Self.noColourAVC])
        #expect(try Self.findings("doctor/missing_vps.h265") == ["missing-reference error 0 4 ×2", "no-vui-colour warning 0 4 ×1"])
    }

    @Test func levelTooLow() throws {
        #expect(try Self.findings("doctor/level_too_low.h264") == ["level-exceeded error 0 4 ×1", Self.noColourAVC])
        #expect(try Self.findings("doctor/level_too_low.h265") == ["level-exceeded error 0 32 ×1", "no-vui-colour warning 0 32 ×1"])
        let source = try MediaSource(path: Self.fixture("doctor/level_too_low.h264"))
        let finding = try #require(try Doctor(inputName: "in.h264").examine(source).first)
        // 320x180 is 20x12 = 240 macroblocks; at 25 fps 6000 per second; x264's 3 references + 1.
        #expect(finding.message == "level 1 is too low: frame size 240 macroblocks > MaxFS 99; max_dec_frame_buffering 4 > MaxDpbFrames 1 (MaxDpbMbs 396 / 240); 6000 macroblocks/s at 25 fps > MaxMBPS 1485; level 1.2 fits")
        #expect(finding.fix == "nalu edit in.h264 --level 1.2 -o fixed.h264")
        #expect(finding.clause == "H.264 A.3.1, Table A-1")
        let hevc = try #require(try Doctor(inputName: "x.h265").examine(MediaSource(path: Self.fixture("doctor/level_too_low.h265"))).first)
        #expect(hevc.message == "level 1 is too low: picture size 61440 luma samples > MaxLumaPs 36864; 1536000 luma samples/s at 25 fps > MaxLumaSr 552960; level 2 fits")
        #expect(hevc.fix == "nalu edit x.h265 --level 2 -o fixed.h265")
    }

    @Test func bitRateOverLevel() throws {
        // x264 in CRF mode picked level 1.1 (Baseline: MaxBR 192 and MaxCPB 500 times
        // cpbBrNalFactor 1200) for 5 noisy pictures of 100545 bytes at 25 fps: 804360 bits, more
        // than 230400 bit/s · 0.2 s + 600000 bits.
        #expect(try Self.findings("doctor/bit_rate_over_level.h264") == ["level-exceeded error - - ×1", Self.noColourAVC])
        let finding = try #require(try Doctor(inputName: "in.h264").examine(MediaSource(path: Self.fixture("doctor/bit_rate_over_level.h264"))).first)
        #expect(finding.message == "level 1.1 is too low: the stream's 804360 bits in 5 pictures at 25 fps are more than the level's HRD delivers in that time (MaxBR 230400 bit/s after a full MaxCPB of 600000 bits); level 1.2 fits")
        #expect(finding.fix == "nalu edit in.h264 --level 1.2 -o fixed.h264")
    }

    @Test func truncated() throws {
        // The last slice keeps its header byte and one more: the last access unit (19 of 20) is cut.
        let size = try FileManager.default.attributesOfItem(atPath: Self.fixture("doctor/truncated.h264"))[.size] as? Int
        #expect(size == 19671)
        #expect(try Self.findings("doctor/truncated.h264") == ["truncated error 19 19669 ×1", Self.noColourAVC])
        // The MP4's sample table still lists all 20 samples; sample 18 (from 0) ends past the file.
        #expect(try Self.findings("doctor/truncated.mp4") == ["truncated error 18 19968 ×1", "no-vui-colour warning 0 - ×1"])
    }

    @Test func truncatedLengthPrefixed() throws {
        // avc_main.lp (20 access units, ffmpeg's MP4 samples back to back) without its last 10
        // bytes: the last NAL unit's length (508) runs past the end (498 bytes left).
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("avc_main.lp")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-cut-\(UUID().uuidString).lp").path
        try data.dropLast(10).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let record = try DecoderConfigurationRecord(parsing: Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture("avc_main.avcC")))))
        let source = try MediaSource(path: path, options: MediaSourceOptions(record: record))
        let findings = try Doctor(inputName: "cut.lp").examine(source)
        let cut = try #require(findings.first)
        #expect(cut.code == .truncated)
        #expect(cut.accessUnit == 19)
        #expect(cut.byteOffset == Int64(data.count - 10 - 498 - 4))
        #expect(cut.message == "the input ends inside an access unit: NAL unit length: length past end (length 508, 498 bytes left) at byte 17656")
    }

    @Test func forbiddenZeroBit() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("doctor/forbidden_zero_bit.h264")))
        #expect(data[6487] == 0x80 | 0x41)  // nal_ref_idc 2, nal_unit_type 1, with the forbidden bit set
        #expect(try Self.findings("doctor/forbidden_zero_bit.h264") == ["forbidden-zero-bit error 5 6487 ×1", Self.noColourAVC])
    }

    @Test func recordMismatch() throws {
        // The avcC's SPS copy says level 3, the in-band SPS (sample 0, after its 4-byte length) 1.3.
        #expect(try Self.findings("doctor/record_mismatch.mp4") == ["record-mismatch error 0 52 ×1", "no-vui-colour warning 0 - ×2"])
    }

    @Test func containerTiming() throws {
        // Sample 6 was given sample 5's composition time by ffmpeg's setts filter.
        #expect(try Self.findings("doctor/non_monotonic.mp4") == ["non-monotonic-timestamps error 6 7350 ×1", "no-vui-colour warning 0 - ×1"])
        // setts=pts=DTS: decode order I P B B …, the first B (access unit 2) is shown before the P.
        #expect(try Self.findings("doctor/b_frames_without_ctts.mp4") == ["b-frames-without-ctts error 2 4541 ×1", "no-vui-colour warning 0 - ×1"])
    }

    @Test func warningsOnly() throws {
        #expect(try Self.findings("doctor/hev1.mp4") == ["no-vui-colour warning 0 - ×1", "hev1-sample-entry warning - - ×1"])
        #expect(try Self.findings("doctor/hev1.mp4", target: .apple) == ["hev1-sample-entry error - - ×1", "no-vui-colour warning 0 - ×1"])
        #expect(try Self.findings("doctor/no_timing.h264") == [Self.noColourAVC, "no-timing warning 0 4 ×1"])
        #expect(try Self.findings("doctor/no_vui_colour.h265") == ["no-vui-colour warning 0 32 ×1"])
        #expect(try Self.findings("doctor/odd_175x99.h264") == [Self.noColourAVC, "odd-dimensions warning 0 4 ×1"])
        #expect(try Self.findings("doctor/open_gop_start.h265") == ["no-vui-colour warning 0 32 ×1", "open-gop-start warning 0 0 ×1"])
        // x264's open GOP cut at its second keyframe: an I picture with a recovery point SEI (count 0).
        #expect(try Self.findings("doctor/open_gop_start.h264") == [Self.noColourAVC, "open-gop-start warning 0 0 ×1"])
        #expect(try Self.findings("doctor/sei_overflow.h264") == ["no-vui-colour warning 0 10 ×1", "sei-overflow warning 0 47 ×1"])
    }

    @Test func missingAUDOnlyForBroadcast() throws {
        #expect(try Self.findings("doctor/no_aud.h264") == [Self.noColourAVC])
        // 6 access units, none with an AUD; x264 writes fixed_frame_rate_flag 0.
        #expect(try Self.findings("doctor/no_aud.h264", target: .broadcast) == [
            Self.noColourAVC, "variable-frame-rate warning 0 4 ×1", "missing-aud warning 0 0 ×6",
        ])
    }

    @Test func targetProfiles() throws {
        #expect(try Self.findings("avc_high10.h264", target: .apple) == [Self.noColourAVC, "target-unsupported warning 0 4 ×1"])
        #expect(try Self.findings("avc_main.h264", target: .apple) == [Self.noColourAVC])
        #expect(try Self.findings("hevc_rext444.h265", target: .apple) == ["no-vui-colour warning 0 31 ×1", "target-unsupported warning 0 31 ×1"])
        #expect(try Self.findings("hevc_main10.h265", target: .apple) == ["no-vui-colour warning 0 32 ×1"])
        #expect(try Self.findings("hevc_main.h265", target: .web) == ["no-vui-colour warning 0 32 ×1", "target-unsupported warning 0 32 ×1"])
    }
}
