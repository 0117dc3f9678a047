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

    /// Lent runs (``ByteSink/write(lent:)``) interleaved with copied writes of every size, runs
    /// adjacent in the lender's memory (merged into one vector) and not, more runs than the sink
    /// holds vectors for, and a return before the lender changes its memory: the file holds the
    /// bytes in the order written, including the lent bytes as they were when lent.
    @Test func lentRunsArriveInOrderWithCopies() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("nalu-filesink-lent-\(UInt64.random(in: 0...UInt64.max)).bin").path
        defer { unlink(path) }
        let lender = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { lender.deallocate() }
        var expected: [UInt8] = []
        let sink = try FileSink(path: path, bufferSize: 4096)
        var position = 0
        for round in 0..<3 {
            for index in 0..<lender.count { lender[index] = UInt8(truncatingIfNeeded: index &* 7 &+ round) }
            position = 0
            for (index, size) in [4, 830, 4, 830, 100, 5_000, 70_000, 1, 4_096, 2].enumerated() {
                for _ in 0..<40 {
                    // A copied write between some runs; runs sometimes adjacent, sometimes with a gap.
                    if index % 3 == 0 {
                        let chunk = (0..<(index + 1)).map { UInt8(truncatingIfNeeded: $0 &+ round &+ 200) }
                        try sink.write(chunk)
                        expected += chunk
                    }
                    guard position + size + 3 <= lender.count else { break }
                    let run = UnsafeRawBufferPointer(rebasing: lender[position..<(position + size)])
                    try sink.write(lent: run)
                    expected += Array(run)
                    position += size + (index % 2 == 0 ? 0 : 3)
                }
            }
            // The lender is about to overwrite its memory.
            try sink.returnLent()
        }
        try sink.commit()
        #expect(sink.bytesWritten == Int64(expected.count))
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count == expected.count)
        #expect(written == expected)
    }
}
