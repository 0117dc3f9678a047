import Foundation
import NALU
import Testing

/// Issue 18's adversarial inputs, each built at two sizes and run through the built `nalu` under
/// `ulimit -v`/`ulimit -t`: no signal, the expected exit status, a bounded peak RSS, and CPU time
/// that grows at most 15× for a 10× larger input.
@Suite(.serialized, .enabled(if: ResourceRunner.available, "needs GNU time (/usr/bin/time)"))
struct ResourceTests {
    typealias Boxes = AdversarialBoxes
    static let mib = 1 << 20

    /// Runs both sizes and checks the common bounds; returns both results.
    @discardableResult
    func runBoth(_ name: String, small: [UInt8], large: [UInt8], succeeds: Bool, maxRSS: Int,
                 arguments: (String) -> [String], stdin: Bool = false) throws -> (ResourceRunner.Result, ResourceRunner.Result) {
        let smallPath = try ResourceRunner.write(small, name: "\(name)-small")
        let largePath = try ResourceRunner.write(large, name: "\(name)-large")
        defer {
            try? FileManager.default.removeItem(atPath: smallPath)
            try? FileManager.default.removeItem(atPath: largePath)
        }
        var results: [ResourceRunner.Result] = []
        for path in [smallPath, largePath] {
            let result = try ResourceRunner.run(stdin ? arguments("-") : arguments(path), stdin: stdin ? path : "/dev/null")
            #expect(result.signal == nil, "\(name): ended by signal \(result.signal ?? 0); \(result.stderr)")
            // Refusals exit non-zero (1 today, 65 once the CLI maps errors to sysexits).
            #expect((result.status == 0) == succeeds, "\(name): exit \(result.status); \(result.stderr)")
            if !succeeds { #expect(result.stderr.hasPrefix("nalu: error: "), "\(name): \(result.stderr)") }
            #expect(result.peakRSS <= maxRSS, "\(name): peak RSS \(result.peakRSS / Self.mib) MiB > \(maxRSS / Self.mib) MiB")
            results.append(result)
        }
        print("resource \(name): \(small.count) B → \(results[0].peakRSS / 1024) KiB, \(results[0].cpuSeconds) s; "
              + "\(large.count) B → \(results[1].peakRSS / 1024) KiB, \(results[1].cpuSeconds) s")
        // Process start-up dominates tiny runs; 0.05 s is its order.
        #expect(results[1].cpuSeconds < 15 * max(results[0].cpuSeconds, 0.05),
                "\(name): \(results[0].cpuSeconds) s → \(results[1].cpuSeconds) s for 10× the input")
        return (results[0], results[1])
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture(name))))
    }

    /// The fixture's first fragment (ftyp, moov, moof, mdat) followed by `count` fragments of
    /// 40 empty samples each.
    static func emptyFragments(_ count: Int, duration: UInt32) throws -> [UInt8] {
        let file = try fixture("mp4_avc_frag.mp4")
        let boxes = Boxes.topLevel(file)
        guard let firstData = boxes.first(where: { $0.type == "mdat" }) else { throw CocoaError(.fileReadCorruptFile) }
        var bytes = Array(file[..<(firstData.offset + firstData.size)])
        for index in 0..<count {
            bytes += Boxes.emptyFragment(sequence: UInt32(index + 2), count: 40, duration: duration)
        }
        return bytes
    }

    // Rows 2, 3, 3b: `keyframes` and `info` over empty `trun` samples (no access unit ever
    // completes; sample durations of 2^32 − 1 with `tfdt` restarting the decode time).
    @Test func emptyTrunSamples() throws {
        let small = try Self.emptyFragments(1_000, duration: UInt32.max)
        let large = try Self.emptyFragments(10_000, duration: UInt32.max)
        let (_, keyframes) = try runBoth("keyframes-empty-trun", small: small, large: large, succeeds: true, maxRSS: 64 * Self.mib) {
            ["keyframes", $0]
        }
        #expect(String(decoding: keyframes.stdout, as: UTF8.self).contains("idr"))
        let (_, info) = try runBoth("info-empty-trun", small: small, large: large, succeeds: true, maxRSS: 64 * Self.mib) { ["info", $0] }
        // The first fragment's 10 samples and 10,000 · 40 empty ones.
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("400010 samples"), "\(String(decoding: info.stdout, as: UTF8.self))")
    }

    // Row 4: every `trun` claims half the file in samples of the default size 0.
    @Test func trunSampleCountsPastTheFile() throws {
        func build(_ fragments: Int) throws -> [UInt8] {
            var bytes = try Self.emptyFragments(0, duration: 1)
            let estimate = UInt32(bytes.count + fragments * 92)
            for index in 0..<fragments {
                bytes += Boxes.emptyFragment(sequence: UInt32(index + 2), count: estimate / 2, duration: 1)
            }
            return bytes
        }
        let (_, large) = try runBoth("trun-counts", small: try build(1_000), large: try build(10_000), succeeds: false, maxRSS: 64 * Self.mib) {
            ["info", $0]
        }
        #expect(large.stderr.contains("sample_count"))
    }

    // Row 1: `mdhd` version 1 with a duration of 2^64 − 1 at timescale 1.
    @Test func hugeMediaDuration() throws {
        var file = try Self.fixture("avc_baseline.mp4")
        // moov is the last box; mdhd (version 0, 32 bytes) is inside moov/trak/mdia.
        guard let mdhd = Self.find("mdhd", in: file), let mdia = Self.find("mdia", in: file),
              let trak = Self.find("trak", in: file), let moov = Self.find("moov", in: file) else {
            Issue.record("fixture layout")
            return
        }
        let replacement = Boxes.box("mdhd", [1, 0, 0, 0] + Boxes.u64(0) + Boxes.u64(0) + Boxes.u32(1)
                                    + Boxes.u64(UInt64.max) + [0x55, 0xC4, 0, 0])
        file.replaceSubrange(mdhd..<(mdhd + 32), with: replacement)
        for offset in [mdia, trak, moov] {
            let size = UInt32(file[offset]) << 24 | UInt32(file[offset + 1]) << 16 | UInt32(file[offset + 2]) << 8 | UInt32(file[offset + 3])
            file.replaceSubrange(offset..<(offset + 4), with: Boxes.u32(size + 12))
        }
        let path = try ResourceRunner.write(file, name: "mdhd.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for json in [false, true] {
            let result = try ResourceRunner.run(["info", path] + (json ? ["--json"] : []))
            #expect(result.signal == nil && result.status == 0, "\(result.stderr)")
            let text = String(decoding: result.stdout, as: UTF8.self)
            // Text shows the exact value; JSON clamps it to the largest integer it writes.
            #expect(text.contains(json ? "9223372036854775807" : "18446744073709551615 (18446744073709551615 s)"), "\(text)")
        }
    }

    /// Offset of the first box of `type` (searched by its type bytes after a size).
    static func find(_ type: String, in file: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        guard file.count >= 8 else { return nil }
        for index in 4..<(file.count - 4) where Array(file[index..<(index + 4)]) == pattern { return index - 4 }
        return nil
    }

    // Row 10: a `moov` with a great many empty children.
    @Test func moovWithManyChildren() throws {
        func build(_ children: Int) throws -> [UInt8] {
            var file = try Self.fixture("avc_baseline.mp4")
            guard let moov = Self.find("moov", in: file) else { return file }
            let size = UInt32(file[moov]) << 24 | UInt32(file[moov + 1]) << 16 | UInt32(file[moov + 2]) << 8 | UInt32(file[moov + 3])
            file.replaceSubrange(moov..<(moov + 4), with: Boxes.u32(size + UInt32(8 * children)))
            for _ in 0..<children { file += Boxes.box("free", []) }
            return file
        }
        let (_, large) = try runBoth("moov-children", small: try build(100_000), large: try build(1_000_000), succeeds: false,
                                     maxRSS: 64 * Self.mib) { ["info", $0] }
        #expect(large.stderr.contains("65536"))
    }

    /// The NAL units of an Annex-B fixture.
    static func nalUnits(_ stream: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var index = 0
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 {
                if let start { units.append(Self.trimmingZeros(Array(stream[start..<index]))) }
                start = index + 3
                index += 3
            } else {
                index += 1
            }
        }
        if let start { units.append(Self.trimmingZeros(Array(stream[start...]))) }
        return units
    }

    static func trimmingZeros(_ unit: [UInt8]) -> [UInt8] {
        var unit = unit
        while unit.last == 0 { unit.removeLast() }
        return unit
    }

    static func annexB(_ units: [[UInt8]]) -> [UInt8] { units.flatMap { [0, 0, 0, 1] + $0 } }

    // Row 5: the SPS changes (same id, other bytes) thousands of times before the first picture.
    @Test func spsChangesBeforeThePicture() throws {
        let stream = try Self.fixture("avc_baseline.h264")
        guard let sps = Self.nalUnits(stream).first else { return }
        func build(_ changes: Int) -> [UInt8] {
            // A byte past rbsp_trailing_bits() changes the bytes, not the SPS.
            Self.annexB((0..<changes).map { $0 % 2 == 0 ? sps : sps + [0x80] }) + stream
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try runBoth("sps-changes", small: build(2_000), large: build(20_000), succeeds: true, maxRSS: 64 * Self.mib) {
            ["convert", $0, "--to", "mp4", "-o", output]
        }
    }

    // Row 6: filler data before the first slice, more than an access unit may buffer.
    @Test func fillerFlood() throws {
        let stream = try Self.fixture("avc_baseline.h264")
        let filler = [0x0C] + [UInt8](repeating: 0xFF, count: 1 << 20 - 2) + [0x80]
        func build(_ megabytes: Int) -> [UInt8] { Self.annexB(Array(repeating: filler, count: megabytes)) + stream }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        for to in ["annexb", "mp4"] {
            // 4 MiB fits the 8 MiB limit given; 40 MiB does not.
            let smallPath = try ResourceRunner.write(build(4), name: "filler-small")
            let largePath = try ResourceRunner.write(build(40), name: "filler-large")
            defer {
                try? FileManager.default.removeItem(atPath: smallPath)
                try? FileManager.default.removeItem(atPath: largePath)
            }
            let limit = ["--max-access-unit-size", String(8 << 20)]
            let small = try ResourceRunner.run(["convert", smallPath, "--to", to, "-o", output] + limit)
            #expect(small.signal == nil && small.status == 0, "\(small.stderr)")
            let large = try ResourceRunner.run(["convert", largePath, "--to", to, "-o", output] + limit)
            #expect(large.signal == nil && large.status != 0, "\(large.stderr)")
            #expect(large.stderr.contains("--max-access-unit-size"))
            #expect(large.peakRSS <= 64 * Self.mib, "\(to): \(large.peakRSS / Self.mib) MiB")
        }
    }

    // Row 7: a valid stream followed by zero padding (trailing_zero_8bits), read from stdin.
    @Test func zeroPadding() throws {
        let stream = try Self.fixture("avc_baseline.h264")
        let (_, large) = try runBoth("zero-padding", small: stream + [UInt8](repeating: 0, count: 5 << 20),
                                     large: stream + [UInt8](repeating: 0, count: 50 << 20), succeeds: true, maxRSS: 64 * Self.mib,
                                     arguments: { ["info", $0, "--json"] }, stdin: true)
        let plain = try ResourceRunner.run(["info", CLIRunner.fixture("avc_baseline.h264"), "--json"])
        let units = { (data: Data) in String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.contains("\"access_units\"") } }
        #expect(units(large.stdout) == units(plain.stdout))
    }

    /// An H.264 baseline SPS with id `id`, 64x64, then `junk` bytes of 0xFF after its trailing bits.
    static func sps(id: UInt32, junk: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.u(8, 66)          // profile_idc
        writer.u(8, 0xC0)        // constraint_set0/1
        writer.u(8, 30)          // level_idc
        writer.ue(id)            // seq_parameter_set_id
        writer.ue(0)             // log2_max_frame_num_minus4
        writer.ue(2)             // pic_order_cnt_type
        writer.ue(1)             // max_num_ref_frames
        writer.flag(false)       // gaps_in_frame_num_value_allowed_flag
        writer.ue(3)             // pic_width_in_mbs_minus1
        writer.ue(3)             // pic_height_in_map_units_minus1
        writer.flag(true)        // frame_mbs_only_flag
        writer.flag(true)        // direct_8x8_inference_flag
        writer.flag(false)       // frame_cropping_flag
        writer.flag(false)       // vui_parameters_present_flag
        writer.rbspTrailingBits()
        return [0x67] + writer.bytes + [UInt8](repeating: 0xFF, count: junk)
    }

    // Rows 8, 9: 32 SPSs with junk after rbsp_trailing_bits: stored trimmed, and the copies
    // inserted before keyframes are the trimmed ones.
    @Test func parameterSetsWithJunk() throws {
        let stream = try Self.fixture("avc_baseline.h264")
        func build(_ junk: Int) -> [UInt8] { Self.annexB((1..<32).map { Self.sps(id: UInt32($0), junk: junk) }) + stream }
        let small = build(64 << 10)
        let large = build(640 << 10)
        try runBoth("sps-junk-info", small: small, large: large, succeeds: true, maxRSS: 64 * Self.mib) { ["info", $0] }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(UUID().uuidString).h264").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try runBoth("sps-junk-annexb", small: small, large: large, succeeds: true, maxRSS: 64 * Self.mib) {
            ["convert", $0, "--to", "annexb", "-o", output]
        }
        // The input's sets pass through once; what is inserted before keyframes is small.
        let written = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? Int.max
        #expect(written < large.count + 64 << 10, "\(written) bytes out of \(large.count)")
    }
}

/// Issue 32 item 8: memory set by a header. A 50-byte Y4M claiming 16384x16384 4:4:4 10-bit
/// frames (1.6 GB each), and `--size 16384x16384` on a 3-byte raw file, from a file and from a
/// pipe, under a 1 GiB address-space limit: refused (65) with a peak RSS of a few MiB (before:
/// the frame was allocated and zeroed, 1.6 GB, or the process aborted under the limit).
@Suite(.serialized, .enabled(if: ResourceRunner.available, "needs GNU time (/usr/bin/time)"))
struct HeaderDrivenMemoryTests {
    static let mib = 1 << 20

    @Test(arguments: [false, true]) func hugeFramesClaimedByTheHeader(pipe: Bool) throws {
        let y4m = try ResourceRunner.write(Array("YUV4MPEG2 W16384 H16384 F25:1 C444p10\nFRAME\n".utf8) + [1, 2, 3], name: "huge.y4m")
        let raw = try ResourceRunner.write([1, 2, 3], name: "huge.yuv")
        defer {
            try? FileManager.default.removeItem(atPath: y4m)
            try? FileManager.default.removeItem(atPath: raw)
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-huge-\(UUID().uuidString).h265").path
        for (input, extra) in [(y4m, [String]()), (raw, ["--size", "16384x16384", "--pix-fmt", "yuv444p10le"])] {
            let result = try ResourceRunner.run(["encode", pipe ? "-" : input, "-o", output, "--quiet"] + extra,
                                                stdin: pipe ? input : "/dev/null", pipe: pipe, addressSpaceKiB: 1 << 20)
            print("resource header-driven memory (\(pipe ? "pipe" : "file"), \(extra.isEmpty ? "y4m" : "raw")): "
                  + "peak RSS \(result.peakRSS / 1024) KiB, exit \(result.status)")
            #expect(result.signal == nil, "ended by signal \(result.signal ?? 0); \(result.stderr)")
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.peakRSS < 64 * Self.mib, "peak RSS \(result.peakRSS / Self.mib) MiB")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}

/// Issue 18 rows 11 and 15 through the CLI: one usage error for a size below one HEVC CTU, and
/// the same refusal for an input without frames whatever the output type.
@Suite struct EncodeFrontEndTests {
    @Test func hevcBelowOneCTUIsAUsageError() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-ctu-\(UUID().uuidString).h265").path
        let result = try CLIRunner.run(["encode", "--size", "32x32", "--frames", "2", "-o", output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("coding tree unit") && !result.stderr.contains("x265 ["), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func noFramesIsTheSameErrorForEveryOutput() throws {
        let input = try ResourceRunner.write(Array("YUV4MPEG2 W64 H64 F25:1 Ip\n".utf8), name: "header-only.y4m")
        defer { try? FileManager.default.removeItem(atPath: input) }
        var messages: Set<String> = []
        for ext in ["h264", "h265", "mp4"] {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-empty-\(UUID().uuidString).\(ext)").path
            let result = try CLIRunner.run(["encode", input, "-o", output])
            #expect(result.status != 0 && !result.signalled, "\(ext): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(ext): an output was left")
            messages.insert(result.stderr)
        }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.contains("no frames") == true)
    }
}

/// Issue 18 row 14: a VUI timing no MP4 reader takes is refused, and `--fps` overrides it.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct MP4TimescaleTests {
    @Test func absurdVUITimeScale() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-timescale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stream = directory.appendingPathComponent("ts.h264").path
        let output = directory.appendingPathComponent("ts.mp4").path
        // FFmpeg rewrites the VUI: time_scale 4294967294, num_units_in_tick 2 (2147483647/2 fps).
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "quiet", "-y", "-i", CLIRunner.fixture("avc_baseline.h264"), "-c", "copy",
                            "-bsf:v", "h264_metadata=tick_rate=4294967294/2", stream]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        try #require(ffmpeg.terminationStatus == 0)
        let info = try CLIRunner.run(["info", stream])
        #expect(info.stdout.contains("2147483647/2"), "\(info.stdout)")
        let refused = try CLIRunner.run(["convert", stream, "--to", "mp4", "-o", output])
        #expect(refused.status != 0 && !refused.signalled)
        #expect(refused.stderr.contains("--fps"), "\(refused.stderr)")
        let converted = try CLIRunner.run(["convert", stream, "--to", "mp4", "--fps", "25", "-o", output])
        #expect(converted.status == 0, "\(converted.stderr)")
        let mp4 = try CLIRunner.run(["info", output])
        #expect(mp4.stdout.contains("timescale:     12800"), "\(mp4.stdout)")
    }
}
