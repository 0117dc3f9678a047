import Foundation
import Testing
import NALU
import NALUIO

/// FileSink's buffered write path: small writes gathered in its buffer, large ones sent with the
/// buffered bytes in one writev(2); the file holds exactly the bytes written, in order.
@Suite struct FileSinkWritePathTests {
    @Test func mixedWriteSizesArriveInOrder() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("nalu-filesink-\(UInt64.random(in: 0...UInt64.max)).bin").path
        defer { unlink(path) }
        // Sizes around the 4 KiB buffer and the 64 KiB write-through threshold, including a
        // write larger than the buffer but below the threshold.
        let sizes = [4, 100, 4_000, 4, 96, 10_000, 4, 65_535, 65_536, 3, 200_000, 1, 4_096, 4_097, 0, 70_000, 5]
        var expected: [UInt8] = []
        let sink = try FileSink(path: path, bufferSize: 4096)
        for (index, size) in sizes.enumerated() {
            let chunk = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            try sink.write(chunk)
            expected += chunk
        }
        try sink.commit()
        #expect(sink.bytesWritten == Int64(expected.count))
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count == expected.count)
        #expect(written == expected)
    }
}
