import Testing
import FuzzHarness

/// The y4m fuzz target's harness on a real Y4M stream cut at every length: every input ends in
/// frames, the end of input or a typed `EncoderError`. (Regression inputs of every target,
/// y4m's included, are replayed by NALUTests' FuzzRegressionTests.)
@Suite struct Y4MFuzzRegressionTests {
    @Test func everyTruncationOfAStream() throws {
        let harness = try #require(FuzzHarnesses.all["y4m"])
        var stream = Array("YUV4MPEG2 W16 H8 F30000:1001 Ip A1:1 C420mpeg2\n".utf8)
        for frame in 0..<3 {
            stream += Array("FRAME\n".utf8) + (0..<192).map { UInt8(truncatingIfNeeded: $0 * 7 + frame) }
        }
        for length in 0...stream.count {
            // Chunk sizes 1, 7 and 64; the raw reader too (0x40).
            for mode: UInt8 in [0x00, 0x46, 0x7F] {
                #expect(throws: Never.self, "length \(length) mode \(mode)") { try harness([mode] + stream.prefix(length)) }
            }
        }
    }
}
