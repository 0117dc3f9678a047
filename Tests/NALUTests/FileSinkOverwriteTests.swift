import Foundation
import Testing
import NALU
import NALUIO

/// `FileSink.overwrite(_:at:)`: bytes already taken, written out or still buffered, are replaced
/// in place (what the MP4 writer does with an `mdat` size); outside what was taken, or on standard
/// output, it is refused.
@Suite struct FileSinkOverwriteTests {
    @Test func replacesWrittenAndBufferedBytes() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("nalu-overwrite-\(UInt64.random(in: 0...UInt64.max)).bin").path
        defer { unlink(path) }
        let sink = try FileSink(path: path, bufferSize: 4096)
        #expect(sink.canOverwrite)
        var expected = [UInt8](repeating: 0, count: 8) + (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try sink.write(expected)
        // At the start (on disk by now) and near the end (maybe still in the buffer).
        try [UInt8]([1, 2, 3, 4, 5, 6, 7, 8]).withUnsafeBytes { try sink.overwrite($0, at: 0) }
        expected.replaceSubrange(0..<8, with: [1, 2, 3, 4, 5, 6, 7, 8])
        try sink.write([9, 9, 9])
        expected += [9, 9, 9]
        try [UInt8]([0xAA, 0xBB]).withUnsafeBytes { try sink.overwrite($0, at: Int64(expected.count - 2)) }
        expected.replaceSubrange((expected.count - 2)..., with: [0xAA, 0xBB])
        // Past what was taken: refused, nothing changed.
        #expect(throws: NALUError.self) {
            try [UInt8]([0]).withUnsafeBytes { try sink.overwrite($0, at: Int64(expected.count)) }
        }
        try sink.commit()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test func standardOutputCannotBeOverwritten() throws {
        let sink = try FileSink(path: "-")
        #expect(!sink.canOverwrite)
        #expect(throws: NALUError.self) {
            try [UInt8]([0]).withUnsafeBytes { try sink.overwrite($0, at: 0) }
        }
    }
}
