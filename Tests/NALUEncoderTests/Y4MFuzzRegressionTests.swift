import Foundation
import Testing
import FuzzHarness

/// Replays the y4m fuzz target's regression inputs (`Tests/Fixtures/fuzz-regressions/y4m/`) and
/// its committed minimised corpus (`Fuzz/corpus/y4m/`) through the target's harness: every input
/// ends in frames, the end of input or a typed `EncoderError`.
@Suite struct Y4MFuzzRegressionTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func files(_ path: String) -> [URL] {
        let directory = repositoryRoot.appendingPathComponent(path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: ["Tests/Fixtures/fuzz-regressions/y4m", "Fuzz/corpus/y4m"])
    func replays(directory: String) throws {
        let harness = try #require(FuzzHarnesses.all["y4m"])
        for file in Self.files(directory) {
            let bytes = Array(try Data(contentsOf: file))
            #expect(throws: Never.self, "\(directory)/\(file.lastPathComponent)") { try harness(bytes) }
        }
    }
}
