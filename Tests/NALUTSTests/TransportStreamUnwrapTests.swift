import Testing
import NALU
import NALUTS

/// Issue 32 item 5 through the demuxer API: the time stamps it hands out are unwrapped 64-bit
/// values, so a clock that passes 2^33 still gives increasing decoding times.
@Suite struct TransportStreamUnwrapTests {
    /// `ts_pts_wrap.ts` (Scripts/make-ts-damage.py) is `ts_cc_duplicate.ts`'s stream with every
    /// PTS/DTS moved by a constant so that 2^33 falls after the 6th picture.
    @Test func timestampsIncreasePastTheWrap() throws {
        let wrapped = try Demuxed(try TSFixture.bytes("ts_pts_wrap.ts"), packetSize: 188).reader.demuxer.firstTimestamps
        let plain = try Demuxed(try TSFixture.bytes("ts_cc_duplicate.ts"), packetSize: 188).reader.demuxer.firstTimestamps
        #expect(wrapped.count == 20 && plain.count == 20)
        let decoding = wrapped.compactMap(\.effectiveDecoding)
        #expect(zip(decoding, decoding.dropFirst()).allSatisfy { $0 < $1 })
        #expect(decoding.first.map { $0 < TransportStream.timestampModulus } == true)
        #expect(decoding.last.map { $0 > TransportStream.timestampModulus } == true)
        // The same steps as the stream that does not wrap, presentation and decoding times alike.
        let shift = try #require(wrapped.first?.presentation) - (try #require(plain.first?.presentation))
        #expect(wrapped.map { $0.presentation.map { $0 - shift } } == plain.map(\.presentation))
        #expect(wrapped.map { $0.effectiveDecoding.map { $0 - shift } } == plain.map(\.effectiveDecoding))
    }

    /// A stream whose first sync bytes are damaged is still told by its content.
    @Test func damagedStartIsDetected() throws {
        let bytes = try TSFixture.bytes("ts_damaged_start.ts")
        #expect(bytes.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0) } == 188)
        // Random bytes are not.
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<(188 * 64)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(noise.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0) } == nil)
    }
}
