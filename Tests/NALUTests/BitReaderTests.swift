import Testing
@testable import NALU

@Suite struct BitReaderTests {
    @Test func readsFixedWidthAndExpGolomb() throws {
        // 101 | 1 (ue 0) | 010 (ue 1) | 011 (ue 2) | 00100 (ue 3) | 00101 (se -2)... built by BitWriter
        var writer = BitWriter()
        writer.u(3, 0b101)
        writer.ue(0); writer.ue(1); writer.ue(2); writer.ue(3); writer.ue(4_294_967_294)
        writer.se(-2); writer.se(3); writer.se(Int32.max)
        writer.rbspTrailingBits()
        var reader = BitReader(RBSP(escaped: RBSP.escape(writer.bytes)))
        #expect(try reader.u(3, "a") == 5)
        #expect(try reader.ue("b") == 0)
        #expect(try reader.ue("c") == 1)
        #expect(try reader.ue("d") == 2)
        #expect(try reader.ue("e") == 3)
        #expect(try reader.ue("f") == 4_294_967_294)
        #expect(try reader.se("g") == -2)
        #expect(try reader.se("h") == 3)
        #expect(try reader.se("i") == Int32.max)
        #expect(reader.moreRBSPData == false)
        try reader.rbspTrailingBits()
        #expect(reader.bitsLeft == 0)
    }

    @Test func rejectsMoreThan31LeadingZeros() {
        // 32 zero bits then a 1: ue(v) would exceed 32 bits.
        let bytes: [UInt8] = [0, 0, 0, 0, 0x80, 0, 0, 0, 0]
        var reader = BitReader(RBSP(escaped: bytes))
        #expect(throws: NALUError.self) { _ = try reader.ue("seq_parameter_set_id") }
        do {
            _ = try reader.ue("seq_parameter_set_id")
        } catch {
            #expect(error.code == .expGolombOverflow)
            #expect(error.field == "seq_parameter_set_id")
            #expect(error.bitOffset == 0)
        }
    }

    @Test func truncatedReadNamesFieldAndOffset() throws {
        var reader = BitReader(RBSP(escaped: [0xFF]))
        #expect(try reader.u(4, "a") == 15)
        do {
            _ = try reader.u(8, "level_idc")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.field == "level_idc")
            #expect(error.bitOffset == 4)
            #expect(error.byteOffset == 0)
        }
    }

    @Test func rangeCheckedExpGolomb() {
        var writer = BitWriter()
        writer.ue(40)
        writer.rbspTrailingBits()
        var reader = BitReader(RBSP(escaped: RBSP.escape(writer.bytes)))
        #expect(throws: NALUError.self) { _ = try reader.ue("seq_parameter_set_id", in: 0...31) }
    }

    @Test func moreRBSPDataIgnoresCabacZeroWords() {
        // one bit of data (1), stop bit, alignment, then trailing zero bytes.
        let bytes: [UInt8] = [0b1100_0000, 0x00, 0x00]
        var reader = BitReader(RBSP(escaped: bytes))
        #expect(reader.moreRBSPData)
        _ = try? reader.u(1, "x")
        #expect(!reader.moreRBSPData)
    }
}

@Suite struct RBSPTests {
    @Test func unescapeWithoutEscapesSharesStorage() {
        let rbsp = RBSP(escaped: [0x67, 0x00, 0x00, 0x04, 0x01])
        #expect(Array(rbsp.bytes) == [0x67, 0x00, 0x00, 0x04, 0x01])
        #expect(rbsp.removedBefore.isEmpty)
    }

    @Test func unescapeRemovesEmulationPreventionBytes() {
        let escaped: [UInt8] = [0x65, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03]
        let rbsp = RBSP(escaped: escaped)
        #expect(Array(rbsp.bytes) == [0x65, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(rbsp.removedBefore == [3, 5, 8])
        // RBSP byte 5 (the 0x01) sits at escaped offset 7.
        #expect(rbsp.escapedOffset(of: 5) == 7)
        #expect(rbsp.escapedOffset(of: 2) == 2)
    }

    @Test func escapeInsertsThreeBytesAndCabacZeroWordGuard() {
        #expect(RBSP.escape([0x00, 0x00, 0x00]) == [0x00, 0x00, 0x03, 0x00, 0x03])
        #expect(RBSP.escape([0x00, 0x00, 0x01, 0x00, 0x00, 0x04]) == [0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x04])
        #expect(RBSP.escape([0x00, 0x00, 0x03]) == [0x00, 0x00, 0x03, 0x03])
    }

    @Test func escapeThenUnescapeRoundTrips() {
        var state: UInt32 = 12345
        for _ in 0..<200 {
            var bytes = [UInt8]()
            for _ in 0..<64 {
                state = state &* 1_103_515_245 &+ 12345
                bytes.append(UInt8(truncatingIfNeeded: state >> 16) & 0x03)
            }
            if bytes.last == 0 { bytes.append(0x80) }
            let escaped = RBSP.escape(bytes)
            #expect(Array(RBSP(escaped: escaped).bytes) == bytes)
        }
    }
}
