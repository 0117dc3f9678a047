import Foundation
import Testing
import NALU

/// A stored PPS stays parseable under the SPS it refers to: when that SPS arrives or changes, the
/// store parses its PPSs again and drops the ones that no longer parse (7.4.2.2).
@Suite struct ParameterSetStorePPSTests {
    /// The stream the mp4 fuzzer found (2026-11-24): SPS id 0 changes between pictures, and a PPS
    /// parsed under the earlier SPS does not parse under a later one. The muxer wrote that PPS
    /// into the `avcC` record, and `MP4ToAnnexB` then rejected the file at `delta_scale`.
    static let stream = FuzzRegressionTests.regressions
        .appendingPathComponent("mp4/muxed-file-fails-to-convert")

    @Test func everyStoredPPSParsesUnderItsCurrentSPS() throws {
        let bytes = Array(try Data(contentsOf: Self.stream).dropFirst()) // the harness's mode byte
        var store = ParameterSetStore(codec: .h264)
        var added = 0
        var dropped = 0
        var failures: [String] = []
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                let nalUnit = Array(buffer[range])
                guard let first = nalUnit.first, store.codec.isParameterSet(nalUnit) else { return }
                let before = store.avcPPS.count
                guard (try? store.add(nalUnit)) != nil else { return }
                added += 1
                if AVCNALUnitType(rawValue: first) == .sps, store.avcPPS.count < before { dropped += 1 }
                let sps = store.avcSPS
                for (id, entry) in store.avcPPS {
                    do {
                        let reparsed = try AVCPictureParameterSet(nalUnit: entry.nalUnit, sps: { sps[$0]?.parsed })
                        if reparsed != entry.parsed { failures.append("PPS \(id) after byte \(range.lowerBound): stored form differs") }
                    } catch {
                        failures.append("PPS \(id) after byte \(range.lowerBound): \(error)")
                    }
                }
            }
        }
        #expect(added == 81)
        #expect(dropped == 7)
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }
}
