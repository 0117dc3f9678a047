import Foundation
import Testing

/// The encoder libraries are not linked into `nalu` (loaded with dlopen by `nalu encode` at
/// first use): no `DT_NEEDED` entry names them, a missing one is `nalu: error: …` with exit 69
/// (EX_UNAVAILABLE) and the package to install, and `nalu doctor --encoders` reports each.
@Suite struct EncoderLibraryTests {
    /// Libraries only the encoders need (loading them cost every run ~1 ms; Docs/performance.md),
    /// and libstdc++, which libx265 needs (nalu itself does not name it: the shared Swift
    /// runtime brings it, or `--static-swift-stdlib` links it).
    static let encoderLibraries = ["libx264", "libx265", "libopenh264", "libnuma", "libstdc++"]

    #if os(Linux)
    @Test func naluNeedsNoEncoderLibraryAtStart() throws {
        let needed = try ELFDynamicSection.neededLibraries(of: CLIRunner.executable.path)
        // The dynamic section was found and read: every Linux executable needs libc.
        #expect(needed.contains("libc.so.6"), "DT_NEEDED: \(needed)")
        let encoders = needed.filter { name in Self.encoderLibraries.contains { name.hasPrefix($0 + ".") } }
        #expect(encoders.isEmpty, "nalu links \(encoders); the backends should dlopen them")
    }

    @Test func theELFReaderFindsTheLibrariesOfALinkedBinary() throws {
        // The encoder library itself names its dependencies: the reader is not blind.
        let needed = try ELFDynamicSection.neededLibraries(of: "/usr/lib/x86_64-linux-gnu/libx265.so.199")
        #expect(needed.contains("libnuma.so.1") && needed.contains("libstdc++.so.6"), "\(needed)")
    }
    #endif

    @Test func aMissingLibraryIsExitSixtyNineNamingThePackage() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-missing-\(UUID().uuidString).h264").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try CLIRunner.run(["encode", "--test-pattern", "--size", "64x64", "--frames", "2", "-o", output],
                                    environment: ["NALU_LIBX264": "/nonexistent/libx264.so.164"])
        #expect(run.status == 69)
        #expect(run.stderr == """
            nalu: error: /nonexistent/libx264.so.164: cannot open shared object file: No such file or directory
            hint: install libx264-164 (Debian/Ubuntu; libx264-dev brings it too)

            """)
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))

        let openH264 = try CLIRunner.run(["encode", "--encoder", "openh264", "--test-pattern", "--size", "64x64", "--frames", "2", "-o", output],
                                         environment: ["NALU_LIBOPENH264": "libnalu-missing-openh264.so.7"])
        #expect(openH264.status == 69)
        #expect(openH264.stderr.hasPrefix("nalu: error: libnalu-missing-openh264.so.7: cannot open shared object file"))
        #expect(openH264.stderr.hasSuffix("hint: install libopenh264-7 (Debian/Ubuntu; libopenh264-dev brings it too)\n"))
    }

    @Test func doctorReportsEachLibrary() throws {
        let run = try CLIRunner.run(["doctor", "--encoders"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("x264: libx264.so.164 (API build 164)\nx265: libx265.so.199 (API build 199, 8/10/12-bit)\nopenh264: libopenh264.so.7 (2."))
        #expect(run.stdout.hasSuffix(")\nencoders: all 3 libraries load\n"))

        let missing = try CLIRunner.run(["doctor", "--encoders"], environment: ["NALU_LIBX265": "libnalu-missing-x265.so"])
        #expect(missing.status == 0)
        #expect(missing.stdout.contains("""
            warning[encoder-unavailable] x265: libnalu-missing-x265.so: cannot open shared object file: No such file or directory
              fix: install libx265-199 (Debian/Ubuntu; libx265-dev brings it too)

            """))
        #expect(missing.stdout.hasSuffix("encoders: 1 of 3 libraries cannot be loaded\n"))
    }

    @Test func doctorJSONKeepsTheSummaryObject() throws {
        let run = try CLIRunner.run(["doctor", "--encoders", "--json"], environment: ["NALU_LIBX264": "libnalu-missing-x264.so"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 4)
        #expect(lines[0]?["encoder"] as? String == "x264")
        #expect(lines[0]?["available"] as? Bool == false)
        #expect(lines[0]?["library"] as? String == "libnalu-missing-x264.so")
        #expect(lines[0]?["fix"] as? String == "install libx264-164 (Debian/Ubuntu; libx264-dev brings it too)")
        #expect(lines[1]?["available"] as? Bool == true)
        #expect(lines[1]?["version"] as? String == "API build 199, 8/10/12-bit")
        #expect(lines[2]?["encoder"] as? String == "openh264")
        let summary = lines[3]?["summary"] as? [String: Any]
        #expect(summary?["errors"] as? Int == 0)
        #expect(summary?["warnings"] as? Int == 1)
    }

    @Test func doctorEncodersTakesNoInput() throws {
        let run = try CLIRunner.run(["doctor", "--encoders", CLIRunner.fixture("hevc_open_gop.h265")])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("nalu: error: --encoders checks the encoder libraries; it takes no input and no --target.\n"))
    }
}

#if os(Linux)
/// The `DT_NEEDED` entries of a 64-bit little-endian ELF file (`readelf -d`'s "Shared library"
/// lines), read from its section headers: the `SHT_DYNAMIC` section and the string table it
/// links to (ELF-64 Object File Format, "Sections" and "Dynamic Table").
enum ELFDynamicSection {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func neededLibraries(of path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func integer(_ offset: Int, _ size: Int) throws -> Int {
            guard offset >= 0, size <= 8, offset <= bytes.count - size else { throw Malformed(description: "\(path): read past the end at \(offset)") }
            var value: UInt64 = 0
            for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
            guard value <= UInt64(Int.max) else { throw Malformed(description: "\(path): value out of range at \(offset)") }
            return Int(value)
        }
        // e_ident: magic, ELFCLASS64 (2), ELFDATA2LSB (1).
        guard bytes.count >= 64, bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            throw Malformed(description: "\(path): not a 64-bit little-endian ELF file")
        }
        let sectionHeaders = try integer(0x28, 8), entrySize = try integer(0x3A, 2), count = try integer(0x3C, 2)
        guard entrySize >= 64 else { throw Malformed(description: "\(path): section header size \(entrySize)") }
        func section(_ index: Int) -> Int { sectionHeaders + index * entrySize }
        var needed: [String] = []
        for index in 0..<count where try integer(section(index) + 4, 4) == 6 { // SHT_DYNAMIC
            let offset = try integer(section(index) + 0x18, 8), size = try integer(section(index) + 0x20, 8)
            let link = try integer(section(index) + 0x28, 4)
            guard link < count else { throw Malformed(description: "\(path): string table index \(link)") }
            let strings = try integer(section(link) + 0x18, 8)
            for entry in stride(from: offset, to: offset + size - 15, by: 16) {
                let tag = try integer(entry, 8)
                if tag == 0 { break } // DT_NULL
                guard tag == 1 else { continue } // DT_NEEDED
                var end = strings + (try integer(entry + 8, 8))
                let start = end
                while end < bytes.count, bytes[end] != 0 { end += 1 }
                needed.append(String(decoding: bytes[start..<end], as: UTF8.self))
            }
        }
        return needed
    }
}
#endif
