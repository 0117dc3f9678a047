import Foundation
import Testing

/// `nalu trim` and `nalu concat` on every file of `Tests/Fixtures/malformed/`
/// (Scripts/make-malformed.sh): each run exits (never a signal) with 0, 64 (a range with no
/// picture, a stream on standard input) or 65 (malformed input) and one `nalu: error:` line;
/// after a failure no output or temporary file is left.
@Suite struct TrimMalformedTests {
    /// Annex-B output of a cut shares the index and plan with MP4 output; it was run over the
    /// corpus too (clean) and is left out to keep the suite short.
    enum Run: String, CaseIterable, Sendable {
        case trimToMP4, concatToMP4
    }

    @Test(arguments: Run.allCases) func failsCleanlyOnEveryFile(_ run: Run) throws {
        let files = MalformedCorpusTests.files
        #expect(files.count >= 400)
        let failures = Locked<[String]>([])
        let statuses = Locked<[Int32: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let name = files[index]
            let input = MalformedCorpusTests.directory.appendingPathComponent(name).path
            do {
                let folder = try Scratch()
                let output = folder.file("out.mp4")
                var arguments: [String]
                switch run {
                case .trimToMP4: arguments = ["trim", input, "--start", "0.1", "--end", "0.4", "--fps", "30", "--no-audio", "--no-other-tracks", "-o", output]
                case .concatToMP4: arguments = ["concat", input, input, "--fps", "30", "--no-audio", "--no-other-tracks", "-o", output]
                }
                if name.hasSuffix(".lp") { arguments += ["--codec", name.contains("hevc") ? "hevc" : "h264"] }
                let result = try CLIRunner.run(arguments)
                statuses.update { $0[result.status, default: 0] += 1 }
                var problems: [String] = []
                if result.signalled { problems.append("signal \(result.status)") }
                if ![0, 64, 65].contains(result.status) { problems.append("status \(result.status): \(result.stderr)") }
                if result.status != 0 {
                    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("nalu: error:") }
                    if errors.count != 1 { problems.append("stderr: \(result.stderr)") }
                    if try folder.names() != [] { problems.append("left \(try folder.names())") }
                }
                if !problems.isEmpty { failures.update { $0.append("\(name): " + problems.joined(separator: "; ")) } }
            } catch {
                failures.update { $0.append("\(name): \(error)") }
            }
        }
        #expect(failures.value.sorted() == [])
        #expect(statuses.value[0, default: 0] > 0)
        #expect(statuses.value[65, default: 0] > 0)
    }
}
