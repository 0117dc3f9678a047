import Foundation
import NALUTestSupport
import Testing

/// Paths, child processes and ffprobe for the export tests.
enum ExportTestSupport: ProcessTestSupport {
    static let scratchPrefix = "nalu-export"

    /// `ffprobe -v error ARGS` standard output, or a recorded issue.
    static func ffprobe(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/env", ["ffprobe", "-v", "error"] + arguments)
        #expect(result.status == 0, "ffprobe \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The video pictures' presentation times as ffprobe shows them (edit lists applied), in
    /// presentation order.
    static func pictureTimes(_ path: String) throws -> [String] {
        let text = try ffprobe(["-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        // One value a line (a frame with side data ends its line with a comma).
        let times = text.split(separator: "\n").compactMap { $0.split(separator: ",").first.map(String.init) }
        return times.sorted { (Double($0) ?? 0) < (Double($1) ?? 0) }
    }

    /// The first audio stream's packets: pts, duration, size and MD5 of the data (ffmpeg's
    /// framemd5 of a stream copy).
    static func audioPackets(_ path: String) throws -> [String] {
        let result = try run("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
        #expect(result.status == 0, "ffmpeg framemd5 \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The video stream's packet count (ffprobe -count_packets).
    static func videoPacketCount(_ path: String) throws -> Int {
        let text = try ffprobe(["-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        // A transport stream lists its streams once per program: the first line.
        return text.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// `Scripts/avsync.py SOURCE OUTPUT --at T --json`: the A/V shift of OUTPUT in milliseconds.
    static func avShift(source: String, output: String, at seconds: Double) throws -> Double? {
        let script = repositoryRoot.appendingPathComponent("Scripts/avsync.py").path
        let result = try run("/usr/bin/env", ["python3", script, source, output, "--at", String(seconds), "--json"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        guard let data = result.stdout.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (object["shift_ms"] as? Double) ?? (object["shift_ms"] as? NSNumber)?.doubleValue
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// x264's `asm` setting (`k=v` for `--x264-params`) for this machine's instruction sets up to
    /// AVX2, when it has AVX-512 (`nil` otherwise: nothing to leave out). libx264 build 164's
    /// AVX-512 code reads memory it never wrote, so its output varies from run to run there.
    static let x264WithoutAVX512: String? = {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
        let flags = Set(line.split(separator: " ").map(String.init))
        guard flags.contains("avx512f") else { return nil }
        // x264's names (common/cpu.c) and the kernel's for the same instruction sets.
        let names: [(x264: String, kernel: String)] = [
            ("MMX2", "sse"), ("SSE", "sse"), ("SSE2", "sse2"), ("SSE3", "pni"), ("SSSE3", "ssse3"),
            ("SSE4.1", "sse4_1"), ("SSE4.2", "sse4_2"), ("AVX", "avx"), ("LZCNT", "abm"), ("BMI1", "bmi1"),
            ("BMI2", "bmi2"), ("FMA3", "fma"), ("AVX2", "avx2"),
        ]
        return "asm=" + names.filter { flags.contains($0.kernel) }.map(\.x264).joined(separator: ",")
    }()
}
