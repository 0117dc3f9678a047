import Foundation
import NALU
import NALUIO
import NALUMedia
import Testing

/// Regular files read through memory-mapped windows (``FileSource``/``InputFile`` with
/// `mappedWindowSize`) give exactly what `read(2)` gives: the same NAL units at the same offsets,
/// and byte-identical conversions through lent views (whose start codes or lengths are rewritten
/// in the window, a private mapping), on every elementary-stream fixture, with windows so small
/// that NAL units and start codes straddle window edges everywhere. A file that shrinks under a
/// window is a typed error, not a `SIGBUS`.
@Suite struct MappedInputTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Every Annex-B and length-prefixed fixture.
    static let streams: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return names.filter { $0.hasSuffix(".h264") || $0.hasSuffix(".h265") || $0.hasSuffix(".lp") }.sorted()
    }()

    /// 1 and 3 bytes: every start code straddles an edge somewhere; 4096 + 5: windows that do not
    /// begin on a page; 64 KiB: several NAL units per window.
    static let windowSizes = [1, 3, 4101, 64 << 10]

    struct Unit: Equatable {
        let offset: Int64
        let prefixLength: Int
        let bytes: [UInt8]
    }

    static func units(_ path: String, windowSize: Int, lending: Bool) throws -> [Unit] {
        let source = try FileSource(path: path, mappedWindowSize: windowSize)
        #expect(source.lendsWindows == (windowSize > 0))
        var reader = try ElementaryStreamReader(source)
        var units: [Unit] = []
        try reader.forEachNALUnit(beforeReuse: lending ? {} : nil) { unit in
            units.append(Unit(offset: unit.offset, prefixLength: unit.prefixLength, bytes: unit.array))
        }
        return units
    }

    @Test func fixturesAreFound() {
        #expect(Self.streams.count > 50)
    }

    /// The same NAL units (offset, prefix, bytes) through windows of every size as through `read(2)`.
    @Test(arguments: streams)
    func sameNALUnits(file: String) throws {
        let path = Self.fixtures.appendingPathComponent(file).path
        let expected = try Self.units(path, windowSize: 0, lending: false)
        #expect(!expected.isEmpty)
        for windowSize in Self.windowSizes {
            #expect(try Self.units(path, windowSize: windowSize, lending: windowSize % 2 == 1) == expected, "\(file), windows of \(windowSize)")
        }
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nalu-mapped-\(UInt64.random(in: 0...UInt64.max)).bin").path
    }

    /// What `convert --to avcc` / `--to annexb` writes (lent runs rewritten in place, `FileSink`),
    /// through windows and through `read(2)`.
    static func converted(_ path: String, windowSize: Int) throws -> [UInt8] {
        let output = temporaryPath()
        defer { unlink(output) }
        let source = try FileSource(path: path, mappedWindowSize: windowSize)
        var reader = try ElementaryStreamReader(source)
        let sink = try FileSink(path: output, bufferSize: 4096)
        var writer = sink
        switch reader.format {
        case .annexB:
            var converter = try AnnexBToLengthPrefixed(codec: reader.codec)
            try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.convert(unit, to: &writer) }
        case .lengthPrefixed:
            var converter = try LengthPrefixedToAnnexB(codec: reader.codec)
            try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.push(unit, to: &writer) }
            try converter.finish(to: &writer)
        }
        try sink.commit()
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// Byte-identical conversions, and the input file itself unchanged by the in-place rewrites.
    @Test(arguments: streams)
    func sameConversion(file: String) throws {
        let path = Self.fixtures.appendingPathComponent(file).path
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected = try Self.converted(path, windowSize: 0)
        #expect(!expected.isEmpty)
        for windowSize in [3, 64 << 10, defaultMappedWindowSize] {
            #expect(try Self.converted(path, windowSize: windowSize) == expected, "\(file), windows of \(windowSize)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    /// `MediaSource` (what `info` and `convert` open) reads a regular file through windows.
    @Test func mediaSourceReadsThroughWindows() throws {
        let path = Self.fixtures.appendingPathComponent("avc_main.h264").path
        let input = try InputFile(path: path)
        #expect(input.lendsWindows)
        let pipeLike = try InputFile(path: path, mappedWindowSize: 0)
        #expect(!pipeLike.lendsWindows)
        let source = try MediaSource(path: path)
        var count = 0
        try source.forEachNALUnit { _ in count += 1 }
        #expect(count == (try Self.units(path, windowSize: 0, lending: false)).count)
    }

    /// A file truncated while a window is mapped: the reader touches pages past the new end (a
    /// `SIGBUS`, turned into zeros by the handler) and throws ``NALUError`` `.io` naming the
    /// path and a byte offset past the new end; the process lives on.
    @Test func truncatedUnderTheWindow() throws {
        let path = Self.temporaryPath()
        defer { unlink(path) }
        let fixture = try Data(contentsOf: Self.fixtures.appendingPathComponent("avc_main.h264"))
        var data = Data()
        while data.count < 1 << 20 { data.append(fixture) }
        try data.write(to: URL(fileURLWithPath: path))
        let newSize = 8192
        let source = try FileSource(path: path, mappedWindowSize: 512 << 10)
        var reader = AnnexBReader(source)
        var truncated = false
        var lastOffset: Int64 = 0
        do {
            try reader.forEachNALUnit(beforeReuse: {}) { unit in
                lastOffset = unit.offset
                if !truncated {
                    truncated = true
                    #expect(truncate(path, off_t(newSize)) == 0)
                }
            }
            Issue.record("no error after the file shrank")
        } catch let error as NALUError {
            #expect(error.code == .io)
            #expect(error.field == path)
            #expect(error.detail?.contains("input file shrank while being read") == true, "\(error)")
            #expect((error.byteOffset ?? 0) >= Int64(newSize), "\(error)")
            #expect((error.byteOffset ?? .max) < 512 << 10, "\(error)")
        }
        #expect(truncated)
        #expect(lastOffset < 512 << 10)
    }

    /// A file truncated between windows: the next window finds it shorter than the bytes
    /// already read and throws the same error.
    @Test func truncatedBetweenWindows() throws {
        let path = Self.temporaryPath()
        defer { unlink(path) }
        let fixture = try Data(contentsOf: Self.fixtures.appendingPathComponent("avc_main.h264"))
        var data = Data()
        while data.count < 1 << 20 { data.append(fixture) }
        try data.write(to: URL(fileURLWithPath: path))
        let source = try FileSource(path: path, mappedWindowSize: 64 << 10)
        var reader = AnnexBReader(source)
        var hooks = 0
        var truncated = false
        do {
            // The first call comes before the first window; the second after it was scanned.
            try reader.forEachNALUnit(beforeReuse: {
                hooks += 1
                if hooks == 2 {
                    truncated = true
                    #expect(truncate(path, 1000) == 0)
                }
            }) { _ in }
            Issue.record("no error after the file shrank")
        } catch let error as NALUError {
            #expect(error.code == .io)
            #expect(error.detail?.contains("shrank while being read") == true, "\(error)")
        }
        #expect(truncated)
    }
}
