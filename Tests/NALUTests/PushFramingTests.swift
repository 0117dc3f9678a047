import Foundation
import NALU
import Testing

/// Issue 14: the push framers and the access-unit assembler give exactly what whole-stream
/// parsing gives, for every fixture and random chunkings; the pull reader resumes after a
/// source that returned 0.
@Suite struct PushFramingTests {
    /// Every Annex-B stream under Tests/Fixtures (.h264, .h265), with its codec.
    static let annexBFiles: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path)) ?? []
        return files.filter { $0.hasSuffix(".h264") || $0.hasSuffix(".h265") }.sorted()
    }()

    static func load(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixture.directory.appendingPathComponent(file)))
    }

    /// Chunk sizes from a seeded generator: mostly small (start codes split at every position),
    /// some large.
    static func chunkings(count: Int, seed: UInt64) -> [[Int]] {
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in
            (0..<64).map { _ in next() % 4 == 0 ? 1 + next() % 65_536 : 1 + next() % 17 }
        }
    }

    static func chunks(_ bytes: [UInt8], sizes: [Int]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var position = 0
        var index = 0
        while position < bytes.count {
            let size = min(sizes[index % sizes.count], bytes.count - position)
            result.append(Array(bytes[position..<(position + size)]))
            position += size
            index += 1
        }
        return result
    }

    @Test(arguments: annexBFiles)
    func annexBFramerMatchesWholeStreamParsing(_ file: String) throws {
        let bytes = try Self.load(file)
        let expected = AnnexB.nalUnits(in: bytes).map { Array($0) }
        #expect(!expected.isEmpty)
        for (number, sizes) in Self.chunkings(count: 20, seed: UInt64(bytes.count)).enumerated() {
            var framer = AnnexBFramer()
            var units: [[UInt8]] = []
            for chunk in Self.chunks(bytes, sizes: sizes) { units += try framer.append(chunk) }
            units += framer.finish()
            #expect(units == expected, "chunking \(number)")
        }
        // The zero-copy form, with offsets and prefix lengths as the pull reader gives them.
        var reader = AnnexBReader(MemorySource(bytes))
        var pulled: [(Int64, Int, [UInt8])] = []
        try reader.forEachNALUnit { pulled.append(($0.offset, $0.prefixLength, $0.array)) }
        var framer = AnnexBFramer()
        var pushed: [(Int64, Int, [UInt8])] = []
        for chunk in Self.chunks(bytes, sizes: [1, 2, 3, 5, 7, 4096]) {
            try chunk.withUnsafeBytes { raw in try framer.append(raw) { pushed.append(($0.offset, $0.prefixLength, $0.array)) } }
        }
        framer.finish { pushed.append(($0.offset, $0.prefixLength, $0.array)) }
        #expect(pushed.map(\.0) == pulled.map(\.0))
        #expect(pushed.map(\.1) == pulled.map(\.1))
        #expect(pushed.map(\.2) == pulled.map(\.2))
        #expect(framer.leadingGarbageBytes == reader.leadingGarbageBytes)
        #expect(framer.emptyNALUnits == reader.emptyNALUnits)
    }

    @Test(arguments: Fixture.all)
    func lengthPrefixedFramerMatchesWholeStreamParsing(_ fixture: Fixture) throws {
        guard FileManager.default.fileExists(atPath: fixture.url("lp").path) else { return }
        let bytes = try fixture.lengthPrefixed()
        var expected: [[UInt8]] = []
        try bytes.withUnsafeBytes { raw in
            try LengthPrefixed.forEachNALUnit(in: raw, lengthSize: 4) { expected.append(Array(raw[$0])) }
        }
        #expect(!expected.isEmpty)
        for (number, sizes) in Self.chunkings(count: 20, seed: UInt64(bytes.count) &+ 7).enumerated() {
            var framer = try LengthPrefixedFramer(lengthSize: 4)
            var units: [[UInt8]] = []
            for chunk in Self.chunks(bytes, sizes: sizes) { units += try framer.append(chunk) }
            try framer.finish()
            #expect(units == expected, "chunking \(number)")
        }
    }

    @Test(arguments: Fixture.all)
    func accessUnitAssemblerMatchesTheSplitterOnTheWholeStream(_ fixture: Fixture) throws {
        let bytes = try fixture.annexB()
        // Reference: the splitter fed by the pull reader over the whole stream.
        var splitter = AccessUnitSplitter(codec: fixture.codec)
        var reader = AnnexBReader(MemorySource(bytes))
        var expected: [AccessUnitSummary] = []
        var expectedUnits: [[UInt8]] = []
        try reader.forEachNALUnit { unit in
            if let done = try splitter.push(unit).completed { expected.append(done) }
            expectedUnits.append(unit.array)
        }
        if let last = splitter.finish() { expected.append(last) }
        #expect(expected.count == (try fixture.facts().packets))
        for (number, sizes) in Self.chunkings(count: 5, seed: UInt64(bytes.count) &+ 3).enumerated() {
            var assembler = try AccessUnitAssembler(codec: fixture.codec)
            var units: [AccessUnit] = []
            for chunk in Self.chunks(bytes, sizes: sizes) { units += try assembler.append(chunk) }
            units += try assembler.finish()
            #expect(units.map(\.summary) == expected, "chunking \(number)")
            #expect(units.flatMap(\.nalUnits) == expectedUnits, "chunking \(number)")
            #expect(units.map(\.nalUnits.count) == expected.map(\.nalUnitCount))
        }
    }

    @Test func framersBoundTheirMemory() throws {
        // A NAL unit that never ends: appends beyond the limit throw and change nothing.
        var framer = AnnexBFramer(maxBufferedBytes: 1000)
        #expect(try framer.append([0, 0, 1, 0x65] + [UInt8](repeating: 0x55, count: 900)).isEmpty)
        let error = #expect(throws: NALUError.self) { try framer.append([UInt8](repeating: 0x55, count: 200)) }
        #expect(error?.code == .tooLarge)
        #expect(error?.byteOffset == 3)
        #expect(framer.bufferedByteCount == 901)
        #expect(try framer.append([0, 0, 1, 0x41]) == [[0x65] + [UInt8](repeating: 0x55, count: 900)])
        // A length above the NAL unit limit throws at its field, before buffering the unit.
        var lp = try LengthPrefixedFramer(lengthSize: 4, maxNALUnitSize: 100)
        #expect(try lp.append([0, 0, 0, 2, 0x65, 0x88]) == [[0x65, 0x88]])
        let lengthError = #expect(throws: NALUError.self) { try lp.append([0, 0, 1, 0, 0x65]) }
        #expect(lengthError?.code == .tooLarge)
        #expect(lengthError?.byteOffset == 6)
        #expect(lp.bufferedByteCount == 0)
        // Ending inside a NAL unit is an error naming the length field.
        #expect(try lp.append([0, 0, 0, 9, 0x65]).isEmpty)
        let truncated = #expect(throws: NALUError.self) { try lp.finish() }
        #expect(truncated?.code == .lengthPastEnd)
        #expect(truncated?.byteOffset == 6)
    }

    /// A source that returns 0 (nothing available yet) between chunks, as a non-blocking socket.
    struct PausingSource: ByteSource {
        var chunks: [[UInt8]]
        var index = 0
        var paused = false
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
            if paused || index >= chunks.count {
                paused = false
                return 0
            }
            let chunk = chunks[index]
            let count = min(chunk.count, buffer.count)
            chunk.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if count < chunk.count { chunks[index] = Array(chunk[count...]) } else { index += 1; paused = true }
            return count
        }
        var exhausted: Bool { index >= chunks.count }
    }

    @Test(arguments: annexBFiles.prefix(12))
    func annexBReaderResumesAfterASourceThatReturnedZero(_ file: String) throws {
        let bytes = try Self.load(file)
        let expected = AnnexB.nalUnits(in: bytes).map { Array($0) }
        let sizes = Self.chunkings(count: 1, seed: 99)[0]
        var reader = AnnexBReader(PausingSource(chunks: Self.chunks(bytes, sizes: sizes)), chunkSize: 64)
        var units: [[UInt8]] = []
        var calls = 0
        while calls < 1_000_000 {
            calls += 1
            try reader.forEachCompleteNALUnit { units.append($0.array) }
            if reader.bytesRead == Int64(bytes.count) { break }
        }
        try reader.finish { units.append($0.array) }
        #expect(calls > 1)
        #expect(units == expected)
    }

    @Test func forEachNALUnitAgainAfterAZeroReadNeverTruncatesSilently() throws {
        // A 0 ends forEachNALUnit's last NAL unit. If the source then continues that unit, the
        // next call says so; if it continues with a start code, reading simply goes on.
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE, 0x38, 0x80, 0, 0, 1, 0x65, 0x88, 0x84]
        var resumesAtStartCode = AnnexBReader(PausingSource(chunks: [Array(stream[..<13]), Array(stream[13...])]))
        var units: [[UInt8]] = []
        try resumesAtStartCode.forEachNALUnit { units.append($0.array) }
        try resumesAtStartCode.forEachNALUnit { units.append($0.array) }
        #expect(units == [[0x67, 0x42], [0x68, 0xCE, 0x38, 0x80], [0x65, 0x88, 0x84]])

        var continuesAUnit = AnnexBReader(PausingSource(chunks: [Array(stream[..<11]), Array(stream[11...])]))
        var first: [[UInt8]] = []
        try continuesAUnit.forEachNALUnit { first.append($0.array) }
        #expect(first == [[0x67, 0x42], [0x68, 0xCE]])
        let error = #expect(throws: NALUError.self) { try continuesAUnit.forEachNALUnit { _ in } }
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == 9)
    }
}
