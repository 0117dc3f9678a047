import Testing
@testable import NALU

/// Parameter sets past 4 KiB are stored without the bytes after their syntax (issue 18 rows 8, 9).
@Suite struct ParameterSetSizeTests {
    static func sps(id: UInt32) -> [UInt8] {
        var writer = BitWriter()
        writer.u(8, 66); writer.u(8, 0xC0); writer.u(8, 30)
        writer.ue(id); writer.ue(0); writer.ue(2); writer.ue(1); writer.flag(false)
        writer.ue(3); writer.ue(3); writer.flag(true); writer.flag(true); writer.flag(false); writer.flag(false)
        writer.rbspTrailingBits()
        return [0x67] + writer.bytes
    }

    @Test func junkPastTheSyntaxIsTrimmed() throws {
        let clean = Self.sps(id: 3)
        var store = ParameterSetStore(codec: .h264)
        // Small sets are kept as they are, junk included.
        try store.add(clean + [0xFF, 0xFF])
        #expect(store.avcSPS[3]?.nalUnit == clean + [0xFF, 0xFF])
        // A large one keeps only its syntax.
        #expect(try store.add(clean + [UInt8](repeating: 0xFF, count: 100_000)) == .changed)
        #expect(store.avcSPS[3]?.nalUnit == clean)
        #expect(try store.add(clean) == .unchanged)
    }

    @Test func zeroJunkIsTrimmedToo() throws {
        let clean = Self.sps(id: 1)
        var store = ParameterSetStore(codec: .h264)
        try store.add(clean + [UInt8](repeating: 0, count: 70_000) + [0x80])
        #expect(store.avcSPS[1]?.nalUnit == clean)
    }
}
