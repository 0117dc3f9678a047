import Testing
@testable import NALU

/// The one length-prefixed walker (``LengthPrefixed``) and the readers built on it.
@Suite struct LengthPrefixedWalkerTests {
    /// Two NAL units, a zero-length one between them, 2-byte lengths.
    static let stream: [UInt8] = [0, 2, 0x67, 0x42, 0, 0, 0, 3, 0x68, 0xCE, 0x3C]

    @Test func wholeBufferGivesViewsAtTheirOffsets() throws {
        var units: [(Int64, Int, [UInt8])] = []
        try Self.stream.withUnsafeBytes { raw in
            try LengthPrefixed.forEachNALUnit(in: raw, lengthSize: 2, baseOffset: 1000) {
                units.append(($0.offset, $0.prefixLength, $0.array))
            }
        }
        #expect(units.map(\.0) == [1002, 1008])
        #expect(units.map(\.1) == [2, 2])
        #expect(units.map(\.2) == [[0x67, 0x42], [0x68, 0xCE, 0x3C]])
    }

    @Test func errorsNameTheLengthFieldAndItsOffset() throws {
        func error(_ bytes: [UInt8], within: String? = nil) -> NALUError? {
            do {
                try bytes.withUnsafeBytes { raw in
                    try LengthPrefixed.forEachNALUnit(in: raw, lengthSize: 2, baseOffset: 100, within: within) { _ in }
                }
                return nil
            } catch {
                return error as? NALUError
            }
        }
        #expect(error(Self.stream + [0]) == NALUError(.truncated, field: "NAL unit length", byteOffset: 111,
                                                     detail: "1 of 2 bytes before the end"))
        #expect(error(Self.stream + [0, 9, 1], within: "sample") == NALUError(.lengthPastEnd, field: "NAL unit length", byteOffset: 111,
                                                                              detail: "length 9, 1 bytes left in the sample"))
        #expect(error(Self.stream + [0], within: "sample")?.detail == "1 of 2 bytes before the end of the sample")
        #expect(throws: NALUError(.invalidValue, field: "length size", detail: "3; must be 1, 2 or 4")) {
            try Self.stream.withUnsafeBytes { try LengthPrefixed.forEachNALUnit(in: $0, lengthSize: 3, baseOffset: 0) { _ in } }
        }
    }

    /// The walk stops at a partial NAL unit and at a length over the limit, and a unit whose
    /// `body` threw counts as consumed.
    @Test func partialWalkStopsWhereTheBytesEnd() throws {
        struct Stop: Error {}
        var zero = 0
        var position = 0
        var seen: [Int64] = []
        (Self.stream + [0, 5, 1]).withUnsafeBytes { raw in
            LengthPrefixed.forEachCompleteNALUnit(in: raw, position: &position, lengthSize: 2, baseOffset: 0,
                                                  zeroLengthNALUnits: &zero) { seen.append($0.offset) }
        }
        #expect(seen == [2, 8])
        #expect(position == 11)
        #expect(zero == 1)
        position = 0
        Self.stream.withUnsafeBytes { raw in
            LengthPrefixed.forEachCompleteNALUnit(in: raw, position: &position, lengthSize: 2, baseOffset: 0,
                                                  maxNALUnitSize: 2, zeroLengthNALUnits: &zero) { _ in }
        }
        #expect(position == 6)
        position = 0
        #expect(throws: Stop.self) {
            try Self.stream.withUnsafeBytes { raw in
                try LengthPrefixed.forEachCompleteNALUnit(in: raw, position: &position, lengthSize: 2, baseOffset: 0,
                                                          zeroLengthNALUnits: &zero) { (_: NALUnitView) throws(Stop) in throw Stop() }
            }
        }
        #expect(position == 4)
    }

    /// A push framer whose callback throws does not lend the same NAL unit twice.
    @Test func framerDoesNotRepeatAUnitWhoseCallbackThrew() throws {
        struct Stop: Error {}
        var framer = try LengthPrefixedFramer(lengthSize: 2)
        var seen: [[UInt8]] = []
        #expect(throws: Stop.self) {
            try Self.stream.withUnsafeBytes { raw in
                try framer.append(raw) { unit in
                    seen.append(unit.array)
                    throw Stop()
                }
            }
        }
        try [UInt8]().withUnsafeBytes { raw in try framer.append(raw) { seen.append($0.array) } }
        try framer.finish()
        #expect(seen == [[0x67, 0x42], [0x68, 0xCE, 0x3C]])
    }
}
