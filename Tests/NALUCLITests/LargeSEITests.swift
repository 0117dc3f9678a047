import Foundation
import Testing

/// Issue 32 item 12: an SEI NAL unit with more than 1,024 messages (the library's bound on how
/// many it splits) is passed through unread, not a rejected stream (before: `sei_message: too
/// large`, exit 65, from info, keyframes, convert and edit).
@Suite struct LargeSEITests {
    /// `avc_main.h264` with an SEI NAL unit of 1,100 user_data_unregistered messages (16 bytes
    /// each) before the first IDR slice.
    static func stream() throws -> (bytes: Data, sei: Data) {
        let fixture = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_main.h264")))
        var payload: [UInt8] = []
        for _ in 0..<1100 { payload += [5, 16] + (0..<16).map { UInt8($0) } }
        let sei = Data([0, 0, 0, 1, 0x06] + payload + [0x80])
        let idr = try #require(fixture.range(of: Data([0, 0, 1, 0x65])))
        let at = fixture[idr.lowerBound - 1] == 0 ? idr.lowerBound - 1 : idr.lowerBound
        return (fixture[..<at] + sei + fixture[at...], sei)
    }

    @Test func passedThroughNotRejected() throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (bytes, sei) = try Self.stream()
        let input = folder.appendingPathComponent("sei.h264").path
        try bytes.write(to: URL(fileURLWithPath: input))
        for command in ["info", "keyframes"] {
            let result = try CLIRunner.run([command, input])
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        // The access units are ffprobe's.
        let probe = try runTool("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", input])
        let info = try CLIRunner.run(["info", "--json", input])
        #expect(info.stdout.contains("\"access_units\": \(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"), "\(info.stdout.prefix(400))")

        let converted = folder.appendingPathComponent("out.h264").path
        let convert = try CLIRunner.run(["convert", input, "--to", "annexb", "-o", converted])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: converted)).range(of: sei.dropFirst(4)) != nil)

        let edited = folder.appendingPathComponent("edited.h264").path
        let edit = try CLIRunner.run(["edit", input, "--sei", "strip=5", "-o", edited])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stderr.contains("nalu: warning: --sei: 1 SEI NAL unit with more than 1024 messages kept unedited"), "\(edit.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)).range(of: sei.dropFirst(4)) != nil)
    }
}
