import NALU
import NALUTS
import Testing

/// Issue 39 item 6: a PAT/PMT section that does not parse is, in the one error model, an
/// `invalidValue` naming its field (Docs/errors.md).
@Suite struct PSIErrorCodeTests {
    @Test func aSectionWithTheWrongTableIDIsAnInvalidValue() throws {
        // A PMT section (table_id 0x02) given to the PAT parser.
        let section: [UInt8] = [0x02, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00, 0, 0, 0, 0]
        do {
            _ = try section.withUnsafeBytes { try ProgramAssociationTable(section: $0) }
            Issue.record("parsed a PMT as a PAT")
        } catch let error as PSIError {
            #expect(error.code == .invalidValue)
            #expect(error.field == "table_id")
            #expect(error.naluError == NALUError(.invalidValue, field: "table_id", detail: error.detail))
            #expect(error.naluError.description == "table_id: invalid value (\(error.detail))")
        }
    }
}
