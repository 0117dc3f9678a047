import Foundation
import Testing

/// Issue 32 item 3: the `--extradata` record is an input. `-o` or `--extradata-out` naming it
/// (by any path: here through a symbolic link too) is refused as an output naming the input is
/// (73), and the record keeps its bytes; convert, concat and edit alike.
@Suite struct ExtradataRecordIsInputTests {
    /// The command's arguments before its outputs.
    static func arguments(_ command: String, stream: String, record: String) -> [String] {
        switch command {
        case "edit": ["edit", stream, "--extradata", record, "--color-range", "pc"]
        case "concat": ["concat", stream, stream, "--extradata", record]
        default: ["convert", stream, "--extradata", record]
        }
    }

    @Test(arguments: ["convert", "edit", "concat"], ["-o", "--extradata-out", "-o via link"])
    func outputNamingTheRecordIsRefused(command: String, option: String) throws {
        let folder = try EncodeCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stream = folder.appendingPathComponent("in.lp").path
        let record = folder.appendingPathComponent("rec.avcC").path
        try FileManager.default.copyItem(atPath: CLIRunner.fixture("avc_main.lp"), toPath: stream)
        try FileManager.default.copyItem(atPath: CLIRunner.fixture("avc_main.avcC"), toPath: record)
        let original = try Data(contentsOf: URL(fileURLWithPath: record))
        let link = folder.appendingPathComponent("link.avcC").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: record)
        let base = Self.arguments(command, stream: stream, record: record)
        let outputs: [String]
        switch option {
        case "-o": outputs = ["--to", "avcc", "-o", record]
        case "--extradata-out": outputs = ["--to", "avcc", "-o", folder.appendingPathComponent("out.lp").path, "--extradata-out", record]
        default: outputs = ["--to", "avcc", "-o", link]
        }
        // concat has no --extradata-out: its record comes from the inputs' only.
        if command == "concat", option == "--extradata-out" { return }
        let result = try CLIRunner.run(base + outputs)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("refusing to overwrite it"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: record)) == original)
        // The same command with another output works (the refusal is about the path only).
        let fine = try CLIRunner.run(base + ["--to", "avcc", "-o", folder.appendingPathComponent("fine.lp").path])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
