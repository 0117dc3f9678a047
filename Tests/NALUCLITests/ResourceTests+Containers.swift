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
