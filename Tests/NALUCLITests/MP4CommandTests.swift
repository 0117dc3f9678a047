import Foundation
import Testing

/// `nalu convert`, `info`, `keyframes` and `encode` with MP4/MOV files.
@Suite struct MP4CommandTests {
    static let containers = ["mov_avc.mov", "mp4_avc_audio.mp4", "mp4_avc_bframes.mp4", "mp4_avc_faststart.mp4", "mp4_avc_frag.mp4",
                             "mp4_avc_negcts.mp4", "mp4_hevc_bframes.mp4", "mp4_hevc_frag.mp4", "mp4_hevc_hvc1.mp4"]

    /// `--to annexb` gives the NAL units of ffmpeg's h264_mp4toannexb/hevc_mp4toannexb (FFmpeg
    /// 5.1's hevc filter repeats in-band parameter sets, which nalu does not: those repeats are
    /// removed from its list first).
    @Test(arguments: containers) func toAnnexBMatchesFFmpeg(file: String) throws {
        let output = temporaryPath("out.es")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLIRunner.run(["convert", CLIRunner.fixture(file), "--to", "annexb", "-o", output])
        // The audio track is not dropped silently: the video is written, exit status 2.
        #expect(result.status == (file == "mp4_avc_audio.mp4" ? 2 : 0))
        #expect(result.stderr == (file == "mp4_avc_audio.mp4"
            ? "nalu: error: \(CLIRunner.fixture(file)): track 1 (soun, mp4a) not carried: an elementary stream holds one video track; the video was written\nhint: give --no-audio to leave the audio out on purpose (exit 0)\n" : ""))
        let hevc = file.contains("hevc")
        let name = String(file.prefix { $0 != "." })
        var expected = annexBUnits(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("\(name).mp4toannexb.\(hevc ? "h265" : "h264")"))))
        if hevc {
            var seen: [Data] = []
            expected = expected.filter { unit in
                let type = (unit[unit.startIndex] >> 1) & 0x3F
                if type < 32 { seen.removeAll() }
                guard (32...34).contains(type) else { return true }
                defer { seen.append(unit) }
                return !seen.contains(unit)
            }
        }
        let actual = annexBUnits(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(actual.count == expected.count)
        #expect(actual == expected)
    }

    /// Annex-B → MP4 with every option, then back: the stream's NAL units survive. The source
    /// repeats VPS/SPS/PPS at every keyframe (after its AUD, before its SEI); with hvc1 they
    /// move to the record and come back before each keyframe's first slice, as FFmpeg places
    /// them, so they are compared apart from the other NAL units.
    @Test(arguments: [["--faststart"], ["--fragmented"], ["--sample-entry", "hev1"], []])
    func hevcRoundTrip(options: [String]) throws {
        let mp4 = temporaryPath("out.mp4")
        let back = temporaryPath("back.h265")
        defer {
            try? FileManager.default.removeItem(atPath: mp4)
            try? FileManager.default.removeItem(atPath: back)
        }
        let source = CLIRunner.fixture("hevc_wpp_aud.h265")
        let toMP4 = try CLIRunner.run(["convert", source, "--to", "mp4", "-o", mp4] + options)
        #expect(toMP4.status == 0)
        #expect(toMP4.stderr == "")
        let toAnnexB = try CLIRunner.run(["convert", mp4, "--to", "annexb", "-o", back])
        #expect(toAnnexB.status == 0)
        let actual = annexBUnits(try Data(contentsOf: URL(fileURLWithPath: back)))
        let expected = annexBUnits(try Data(contentsOf: URL(fileURLWithPath: source)))
        let isParameterSet = { (unit: Data) in (32...34).contains((unit[unit.startIndex] >> 1) & 0x3F) }
        if options.contains("hev1") {
            #expect(actual == expected)
        } else {
            #expect(actual.filter { !isParameterSet($0) } == expected.filter { !isParameterSet($0) })
            #expect(actual.filter(isParameterSet) == expected.filter(isParameterSet))
        }
    }

    @Test func frameRateOptionAndVerboseReport() throws {
        let mp4 = temporaryPath("out.mp4")
        defer { try? FileManager.default.removeItem(atPath: mp4) }
        let result = try CLIRunner.run(["convert", CLIRunner.fixture("avc_high_bframes.h264"), "--to", "mp4", "--fps", "25", "-o", mp4, "--verbose"])
        #expect(result.status == 0)
        #expect(result.stderr == "nalu: annexb h264 → MP4 avc1 (moovAtEnd), 30 samples, 2 sync, 25/1 fps, timescale 12800, edit list media_time 1024\n")
        let info = try CLIRunner.run(["info", mp4])
        #expect(info.stdout.hasPrefix("""
            container:     MP4 (isom)
            track:         1, avc1, 30 samples
            timescale:     12800
            duration:      15360 (1.2 s)
            edit:          from 1024, 15360 at movie timescale 12800
            frame timing:  constant: 25 fps average, frame duration 512 (40 ms)
            format:        length-prefixed (4-byte lengths)
            codec:         H.264/AVC

            """))
    }

    @Test func infoOnQuickTime() throws {
        let result = try CLIRunner.run(["info", CLIRunner.fixture("mov_avc.mov")])
        #expect(result.status == 0)
        #expect(result.stdout == """
            container:     QuickTime (qt)
            track:         1, avc1, 20 samples
            timescale:     15360
            duration:      10240 (0.667 s)
            edit:          from 1024, 667 at movie timescale 1000
            frame timing:  constant: 30 fps average, frame duration 512 (33.333 ms)
            pasp:          1:1
            format:        length-prefixed (4-byte lengths)
            codec:         H.264/AVC
            profile:       High (profile_idc 100)
            level:         1.1 (level_idc 11)
            resolution:    176x144
            chroma format: 4:2:0 (chroma_format_idc 1)
            bit depth:     8
            frame rate:    30 fps (30/1, from the VUI)
            colour:        unspecified
            aspect:        SAR 1:1, DAR 11:9
            VUI timing:    num_units_in_tick 1, time_scale 60
            reordering:    max_num_reorder_frames 2, max_dec_frame_buffering 4
            field order:   progressive
            encoder:       x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft 2003-2…
            access units:  20 (2 I, 8 P, 10 B)
            keyframes:     2 (2 idr)
            bytes:         19103
            NAL units:     21
                1  Non-IDR                 18
                5  IDR                      2
                6  SEI                      1

            """)
    }

    @Test func infoJSONOnFragmented() throws {
        let result = try CLIRunner.run(["info", "--json", CLIRunner.fixture("mp4_avc_frag.mp4")])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("""
            {
              "container": {
                "format": "mp4",
                "major_brand": "isom",
                "track_id": 1,
                "sample_entry": "avc1",
                "timescale": 15360,
                "duration": 15360,
                "duration_seconds": 1,
                "samples": 30,
                "fragmented": true,
                "edit_list": [],
                "variable_frame_rate": false,
                "average_frame_rate": "30/1",
                "average_fps": 30,
                "min_frame_duration": 512,
                "max_frame_duration": 512,
                "pasp": "1:1",
                "rotation": 0,
                "display_matrix": [65536, 0, 0, 0, 65536, 0, 0, 0, 1073741824],
                "creation_time": null,
                "track_creation_time": null,
                "tracks": [{"track_id": 1, "kind": "video", "handler": "vide", "sample_entry": "avc1", "codec": "h264", "language": "und", "timescale": 15360, "duration_seconds": 1, "samples": 30}],
                "location": null
              },
              "format": "length-prefixed",
            """))
    }

    @Test func keyframesOnMP4() throws {
        let text = try CLIRunner.run(["keyframes", CLIRunner.fixture("mp4_hevc_frag.mp4")])
        #expect(text.status == 0)
        #expect(text.stdout == """
               index      offset  class     type         pts  sync
                   0        3308  idr       I       1024  yes
                  10        9975  cra       I       6144  yes
                  20       16651  cra       I      11264  yes

            """)
        let json = try CLIRunner.run(["keyframes", "--json", CLIRunner.fixture("mov_avc.mov")])
        #expect(json.stdout == """
            {"index": 0, "offset": 36, "class": "idr", "picture_type": "I", "pts": 1024, "sync_sample": true}
            {"index": 10, "offset": 9246, "class": "idr", "picture_type": "I", "pts": 6144, "sync_sample": true}

            """)
    }

    @Test func usageErrors() throws {
        let source = CLIRunner.fixture("avc_main.h264")
        let fps = try CLIRunner.run(["convert", source, "--to", "annexb", "--fps", "25", "-o", "/dev/null"])
        #expect(fps.status == 64)
        #expect(fps.stderr.hasPrefix("nalu: error: --fps, --faststart, --fragmented and --sample-entry go with --to mp4 (--fps also with --to ts).\n"))
        let both = try CLIRunner.run(["convert", source, "--to", "mp4", "--faststart", "--fragmented", "-o", "/dev/null"])
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("nalu: error: Use either --faststart or --fragmented.\n"))
        let entry = try CLIRunner.run(["convert", source, "--to", "mp4", "--sample-entry", "hvc1", "-o", "/dev/null"])
        #expect(entry.status == 64)
        #expect(entry.stderr.hasPrefix("nalu: error: --sample-entry hvc1 is for H.265; the stream is H.264.\n"))
    }

    /// A truncated or malformed MP4 fails with the box, field and offset, and leaves no output.
    @Test func malformedInputFailsCleanly() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("mp4_avc_bframes.mp4")))
        let input = temporaryPath("truncated.mp4")
        let output = temporaryPath("out.h264")
        defer { try? FileManager.default.removeItem(atPath: input) }
        try bytes.prefix(3000).write(to: URL(fileURLWithPath: input))
        let result = try CLIRunner.run(["convert", input, "--to", "annexb", "-o", output])
        #expect(result.status == 65)
        #expect(!result.signalled)
        #expect(result.stderr == "nalu: error: mdat.size: length past end (26887 bytes, 2960 left in the file) at byte 40\n")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(temporaryFiles(of: output) == [])
        // moov first, media data cut short: the sample past the end is named.
        let faststart = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("mp4_avc_faststart.mp4")))
        try faststart.prefix(faststart.count - 100).write(to: URL(fileURLWithPath: input))
        let cut = try CLIRunner.run(["keyframes", input])
        #expect(cut.status == 65)
        #expect(cut.stderr.hasPrefix("nalu: error: sample: length past end (sample 20 of "))
    }

    @Test func encodeToMP4() throws {
        let mp4 = temporaryPath("pattern.mp4")
        defer { try? FileManager.default.removeItem(atPath: mp4) }
        let result = try CLIRunner.run(["encode", "--test-pattern", "--size", "160x96", "--frames", "12", "--gop", "6", "--quiet", "-o", mp4])
        #expect(result.status == 0)
        let info = try CLIRunner.run(["info", mp4])
        #expect(info.stdout.contains("track:         1, avc1, 12 samples\n"))
        #expect(info.stdout.contains("keyframes:     2 (2 idr)\n"))
        let keys = try CLIRunner.run(["keyframes", "--json", mp4])
        #expect(keys.stdout.split(separator: "\n").count == 2)
        #expect(!keys.stdout.contains("\"sync_sample\": false"))
    }

    /// `nalu encode -o x.mp4` writes the stream `-o x.h264` writes, muxed: ffprobe is silent and
    /// the decoded frames are the same (x264 and x265, B-frames on, one thread for determinism).
    @Test(arguments: ["h264", "hevc"]) func encodeToMP4DecodesLikeTheElementaryStream(codec: String) throws {
        let mp4 = temporaryPath("pattern.mp4")
        let stream = temporaryPath("pattern.\(codec == "h264" ? "h264" : "h265")")
        defer {
            try? FileManager.default.removeItem(atPath: mp4)
            try? FileManager.default.removeItem(atPath: stream)
        }
        let common = ["encode", "--test-pattern", "--size", "160x96", "--frames", "20", "--gop", "10", "--bframes", "2",
                      "--threads", "1", "--codec", codec, "--quiet"]
        #expect(try CLIRunner.run(common + ["-o", mp4]).status == 0)
        #expect(try CLIRunner.run(common + ["-o", stream]).status == 0)
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=nb_frames,r_frame_rate,codec_tag_string",
                                            "-of", "csv=p=0", mp4])
        #expect(probe.stderr == "")
        #expect(probe.stdout == (codec == "h264" ? "avc1,30/1,20\n" : "hvc1,30/1,20\n"))
        let ours = try runTool("ffmpeg", ["-v", "error", "-i", mp4, "-f", "framemd5", "-"])
        let source = try runTool("ffmpeg", ["-v", "error", "-i", stream, "-f", "framemd5", "-"])
        let md5 = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last } }
        #expect(ours.stderr == "")
        #expect(md5(ours.stdout).count == 20)
        #expect(md5(ours.stdout) == md5(source.stdout))
    }
}

/// Runs a tool from PATH and returns its output and status.
func runTool(_ tool: String, _ arguments: [String]) throws -> (stdout: String, stderr: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self), process.terminationStatus)
}
