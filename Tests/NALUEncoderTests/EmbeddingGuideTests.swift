import Foundation
import Testing

/// Docs/embedding-an-encoder.md quotes whole sample programs; the package builds them, and this
/// checks that every quoted block is its file, word for word, so the guide's code compiles.
@Suite struct EmbeddingGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everySnippetIsABuiltSample() throws {
        let guide = try String(contentsOf: Self.root.appendingPathComponent("Docs/embedding-an-encoder.md"), encoding: .utf8)
        let marker = "<!-- snippet: "
        var checked = 0
        var rest = Substring(guide)
        while let start = rest.range(of: marker) {
            let afterMarker = rest[start.upperBound...]
            let pathEnd = try #require(afterMarker.range(of: " -->"))
            let path = String(afterMarker[..<pathEnd.lowerBound])
            let afterPath = afterMarker[pathEnd.upperBound...]
            let open = try #require(afterPath.range(of: "```swift\n"))
            let between = afterPath[..<open.lowerBound]
            #expect(between.allSatisfy { $0.isWhitespace }, "\(path): the code block must follow its marker")
            let body = afterPath[open.upperBound...]
            let close = try #require(body.range(of: "```\n"))
            let quoted = String(body[..<close.lowerBound])
            let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            #expect(quoted == file, "\(path) and its quote in the guide differ")
            // The sample is an executable target of the package.
            let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
            let directory = path.split(separator: "/").dropLast().joined(separator: "/")
            #expect(manifest.contains("path: \"\(directory)\""), "\(path) is not a target in Package.swift")
            checked += 1
            rest = body[close.upperBound...]
        }
        #expect(checked == 4)
    }
}
