import Foundation
import Testing

/// Issue 40, item 18: one NAL unit of 600 MB read from a pipe under `ulimit -v 1G`. The raw
/// readers buffered it up to their 1 GiB cap, so the allocation failed and the process aborted
/// (134); `--max-access-unit-size` (64 MiB by default) now bounds every NAL unit a raw or
/// transport stream input may hold, before its bytes are buffered: exit 65 naming the limit.
@Suite struct NALUnitLimitTests {
    /// `nalu ARGUMENTS` reading, from a pipe, a start code and an H.264 filler NAL unit header
    /// followed by `size` bytes of 0xFF, under a 1 GiB address-space limit.
    static func hugeUnit(size: Int, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let script = "ulimit -v 1048576; { printf '\\0\\0\\0\\1\\014'; head -c \(size) /dev/zero | tr '\\0' '\\377'; } | \"$0\" \"$@\" 2>&1 >/dev/null"
        let result = try runTool("/bin/sh", ["-c", script, CLIRunner.executable.path] + arguments)
        return (result.status, result.stdout)
    }

    @Test(arguments: [["convert", "--codec", "h264", "--to", "avcc", "-o", "/dev/null"],
                      ["nals", "--codec", "h264"]])
    func oneHugeNALUnitIsRefusedAtTheLimit(_ arguments: [String]) throws {
        let run = try Self.hugeUnit(size: 600 << 20, arguments)
        #expect(run.status == 65, "\(arguments[0]): \(run.stderr)")
        #expect(run.stderr.contains("nalu: error:"), "\(run.stderr)")
        #expect(run.stderr.contains("67108864"), "the limit is named: \(run.stderr)")
    }

    /// The option moves the limit: 8 MiB refuses a 16 MiB unit.
    @Test func theOptionSetsTheLimit() throws {
        let run = try Self.hugeUnit(size: 16 << 20, ["convert", "--codec", "h264", "--to", "avcc", "--max-access-unit-size", "8388608", "-o", "/dev/null"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("8388608"), "\(run.stderr)")
    }
}
