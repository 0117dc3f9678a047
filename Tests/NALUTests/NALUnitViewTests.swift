import Testing
import NALU

/// Views are lent, never built from a pointer by callers (`NALUnitView.withNALUnit`).
@Suite struct NALUnitViewTests {
    @Test func lendsTheBytesWithTheirPlace() throws {
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]
        let seen = NALUnitView.withNALUnit(sps, offset: 40, prefixLength: 4) { ($0.array, $0.offset, $0.prefixLength, $0.firstByte) }
        #expect(seen.0 == sps && seen.1 == 40 && seen.2 == 4 && seen.3 == 0x67)
        let stream: [UInt8] = [0, 0, 1, 0x68, 0xCE]
        let pps = stream.withUnsafeBytes { raw in
            NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: raw[3...]), offset: 3, prefixLength: 3) { ($0.array, $0.offset) }
        }
        #expect(pps.0 == [0x68, 0xCE] && pps.1 == 3)
    }

    /// The body's typed error comes out as that type.
    @Test func passesTypedErrorsThrough() {
        let error = NALUError(.truncated, field: "pic_parameter_set_id", byteOffset: 3)
        #expect(throws: error) {
            try NALUnitView.withNALUnit([0x68]) { (_: NALUnitView) throws(NALUError) in throw error }
        }
    }
}
