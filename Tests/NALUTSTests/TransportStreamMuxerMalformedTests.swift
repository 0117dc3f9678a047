import Foundation
import Testing
import NALU
import NALUTS

/// The muxer on every damaged Annex-B stream of `Tests/Fixtures/malformed/` (truncations, bit
/// flips, impossible Exp-Golomb values, forbidden bits, …): it either writes whole packets or
/// throws a `NALUError`; it never traps (a trap would end the test process).
@Suite("MPEG-TS mux: malformed input")
struct TransportStreamMuxerMalformedTests {
    static let directory = TransportStreamMuxTests.fixtures.appendingPathComponent("malformed")

    @Test func everyDamagedStreamMuxesOrFailsWithAnError() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".h264") || $0.hasSuffix(".h265") }.sorted()
        #expect(names.count == 236)
        var muxed = 0
        var refused = 0
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(name)))
            let codec: Codec = name.hasSuffix(".h264") ? .h264 : .hevc
            do {
                let muxer = try TransportStreamMuxer(codec: codec, sink: MemorySink())
                try bytes.withUnsafeBytes { raw in
                    try AnnexB.forEachNALUnit(in: raw) { range in
                        try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: raw[range]), offset: Int64(range.lowerBound)) {
                            try muxer.push($0)
                        }
                    }
                }
                let summary = try muxer.finish()
                let output = try #require(muxer.output).bytes
                #expect(output.count == Int(summary.writer.packets) * 188, "\(name)")
                muxed += 1
            } catch is NALUError {
                refused += 1
            } catch {
                Issue.record("\(name): \(error) is not a NALUError")
            }
        }
        // Both outcomes occur: some damage leaves a decodable stream.
        #expect(muxed > 0 && refused > 0)
    }
}
