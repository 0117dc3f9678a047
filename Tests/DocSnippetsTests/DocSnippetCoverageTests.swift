import Foundation
import Testing

/// Issue 39 item 7: every Swift code block in `Docs/` and the DocC articles is compiled by the
/// test suite. A ```swift block passes when its text, whitespace-normalised and without its
/// `import` lines, is contained in a Swift file the package compiles (this target, `Samples/`,
/// `Sources/`) that imports the same modules; a package manifest (`// swift-tools-version:`)
/// passes when `swift package dump-package` compiles it. Blocks that are no Swift take another
/// fence language (`sh`, `text`, `swift-avfoundation` for Apple-only code); an untagged block
/// that looks like nalu Swift fails, so no example hides from the check.
@Suite("DocSnippets")
struct DocSnippetCoverageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Block: CustomStringConvertible {
        var file: String
        var line: Int
        var language: String
        var text: String
        var description: String { "\(file):\(line)" }
    }

    /// The fenced blocks of a Markdown file (CommonMark 4.5: ``` fences, info string's first word).
    static func blocks(in path: String) throws -> [Block] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [Block] = []
        var open: (line: Int, language: String, indent: Int, body: [String])?
        for (number, line) in lines.enumerated() {
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if var current = open {
                if trimmed.hasPrefix("```"), trimmed.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(Block(file: path, line: current.line, language: current.language, text: current.body.joined(separator: "\n")))
                    open = nil
                } else {
                    current.body.append(line)
                    open = current
                }
            } else if trimmed.hasPrefix("```") {
                let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
                open = (number + 1, String(info.split(separator: " ").first ?? ""), indent, [])
            }
        }
        return blocks
    }

    /// Every Markdown file of Docs/ and of the DocC catalogues under Sources/.
    static func documents() -> [String] {
        var paths: [String] = []
        for folder in ["Docs", "Sources"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".md") {
                if folder == "Sources" && !relative.contains(".docc/") { continue }
                paths.append(base.appendingPathComponent(relative).path)
            }
        }
        return paths.sorted()
    }

    /// The compiled Swift files: this target, the samples, the sources.
    static func compiledFiles() -> [(path: String, text: String, imports: Set<String>)] {
        var files: [(String, String, Set<String>)] = []
        for folder in ["Tests/DocSnippetsTests", "Samples", "Sources"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = base.appendingPathComponent(relative).path
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                files.append((path, normalised(withoutImports(text)), imports(text)))
            }
        }
        return files
    }

    /// Runs of whitespace as one space, the ends trimmed.
    static func normalised(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    /// `text` without its `import` lines (a block quotes a file's imports apart from its code).
    static func withoutImports(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { imports(String($0)).isEmpty }.joined(separator: "\n")
    }

    /// The modules `text` imports (`import X`, `public import X`, …).
    static func imports(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                  words[..<index].allSatisfy({ ["public", "internal", "package", "@testable", "@preconcurrency"].contains(String($0)) }) else { return nil }
            return String(words[index + 1])
        })
    }

    /// Fence languages of blocks that are not compiled.
    static let otherLanguages: Set<String> = ["sh", "text", "yaml", "json", "swift-avfoundation", "m3u8", "xml", "python"]

    @Test("every ```swift block of Docs/ and the DocC articles is compiled code of the package")
    func everySwiftBlockIsCompiled() throws {
        let files = Self.compiledFiles()
        var checked = 0
        for document in Self.documents() {
            for block in try Self.blocks(in: document) where block.language == "swift" {
                if block.text.hasPrefix("// swift-tools-version:") { continue }  // the manifest test
                let imports = Self.imports(block.text)
                let body = Self.normalised(Self.withoutImports(block.text))
                #expect(!body.isEmpty, "\(block): empty block")
                let found = files.first { $0.text.contains(body) && imports.isSubset(of: $0.imports) }
                #expect(found != nil, "\(block): this ```swift block is in no compiled Swift file (Tests/DocSnippetsTests, Samples, Sources) importing \(imports.sorted()); put it in one, or fence it as another language")
                checked += 1
            }
        }
        // The documents have more than 20 Swift examples: the scan found them.
        #expect(checked >= 20, "only \(checked) Swift blocks found")
    }

    @Test("no fence is untagged Swift, and every other language is a known one")
    func fencesAreTagged() throws {
        for document in Self.documents() {
            for block in try Self.blocks(in: document) where block.language != "swift" {
                if block.language.isEmpty {
                    let looksLikeSwift = block.text.split(separator: "\n").contains { line in
                        let text = line.trimmingCharacters(in: .whitespaces)
                        return text.hasPrefix("import NALU") || text.hasPrefix("let ") && text.contains("= try ") || text.hasPrefix("try ")
                            || text.hasPrefix("func ") || text.hasPrefix("var ") && text.contains(" = ")
                    }
                    #expect(!looksLikeSwift, "\(block): an untagged block of Swift: fence it ```swift (and compile it) or as another language")
                } else {
                    #expect(Self.otherLanguages.contains(block.language), "\(block): fence language \(block.language)")
                }
            }
        }
    }

    @Test("a package manifest in the docs compiles (swift package dump-package)")
    func manifestsCompile() throws {
        var manifests = 0
        for document in Self.documents() {
            for block in try Self.blocks(in: document) where block.language == "swift" && block.text.hasPrefix("// swift-tools-version:") {
                manifests += 1
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-manifest-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                try block.text.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                try process.run()
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(block): \(String(decoding: data, as: UTF8.self).prefix(600))")
            }
        }
        #expect(manifests >= 1)
    }
}
