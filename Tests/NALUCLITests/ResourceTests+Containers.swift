import Foundation
import Testing

/// Issue 32's resource rows for containers: MPEG-TS output whose size follows the input whatever
/// timing the stream claims (item 7), and `concat` over many inputs under `ulimit -n` (item 11).
extension ResourceTests {
    /// A temporary directory, removed by the caller.
    static func scratchDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? Int.max }

    // Row 16 (issue 32 item 7): the 18,165-byte fixture with a VUI claiming 0.01 fps (100 s per
    // picture) became a 939 MB transport stream of PCR-only packets and tables filling the gaps.
    // The output is now the input plus a bounded overhead per access unit.
    @Test func transportStreamSizeFollowsTheInputWhateverItsTiming() throws {
        let directory = try Self.scratchDirectory("ts-amplification")
        defer { try? FileManager.default.removeItem(at: directory) }
        let slow = directory.appendingPathComponent("slow.h264").path
        let edit = try CLIRunner.run(["edit", CLIRunner.fixture("avc_main.h264"), "--fps", "1/100", "-o", slow])
        try #require(edit.status == 0, "\(edit.stderr)")
        let stream = Array(try Data(contentsOf: URL(fileURLWithPath: slow)))
        let output = directory.appendingPathComponent("out.ts").path
        var sizes: [Int] = []
        // 20 access units, then 200 (the stream ten times: each copy starts with an IDR).
        for (copies, pictures) in [(1, 20), (10, 200)] {
            let input = try ResourceRunner.write(Array([[UInt8]](repeating: stream, count: copies).joined()), name: "slow-\(copies).h264")
            defer { try? FileManager.default.removeItem(atPath: input) }
            let result = try ResourceRunner.run(["convert", input, "-o", output])
            #expect(result.signal == nil && result.status == 0, "\(result.stderr)")
            #expect(result.peakRSS <= 64 * Self.mib, "peak RSS \(result.peakRSS / Self.mib) MiB")
            let written = Self.size(output)
            // Each 184-byte payload in a 188-byte packet, plus per access unit at most PAT, PMT,
            // a delimiter, the PES header and one packet of stuffing.
            #expect(written <= stream.count * copies * 188 / 184 + pictures * 4 * 188, "\(written) bytes from \(stream.count * copies)")
            sizes.append(written)
            print("resource ts-amplification: \(stream.count * copies) B at 0.01 fps → \(written) B, \(result.peakRSS / 1024) KiB, \(result.cpuSeconds) s")
        }
    }
}

extension ResourceTests {
    // Row 17 (issue 32 item 11): `concat` of 100 and 1,100 one-picture Annex-B inputs with at
    // most 64 descriptors (`ulimit -n 64`). Every input used to stay open for the whole run: the
    // 61st failed ("Too many open files", exit 74), and memory grew by ~140 KB per input. Now
    // each is opened when its turn comes: both joins succeed and the peak RSS does not follow
    // the number of inputs.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
    func concatOfManyInputsOpensOneAtATime() throws {
        let directory = try Self.scratchDirectory("concat-many")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("one.h264").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=25", "-frames:v", "1",
                            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", input]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        try #require(ffmpeg.terminationStatus == 0)
        let output = directory.appendingPathComponent("joined.h264").path
        var peaks: [Int] = []
        for count in [100, 1_100] {
            let result = try ResourceRunner.run(["concat"] + Array(repeating: input, count: count) + ["-o", output], openFiles: 64)
            #expect(result.signal == nil && result.status == 0, "\(count) inputs: exit \(result.status); \(result.stderr)")
            let info = try CLIRunner.run(["info", output])
            #expect(info.stdout.contains("access units:  \(count) "), "\(info.stdout)")
            peaks.append(result.peakRSS)
            print("resource concat-many: \(count) inputs under ulimit -n 64 → \(result.peakRSS / 1024) KiB, \(result.cpuSeconds) s")
        }
        // 1,000 more inputs: a few KiB each at most (their paths, the report), not ~140 KB.
        #expect(peaks[1] <= peaks[0] + 8 * Self.mib, "\(peaks[0] / 1024) KiB → \(peaks[1] / 1024) KiB")
        #expect(peaks[1] <= 64 * Self.mib)
    }
}
