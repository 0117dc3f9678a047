import NALU
import Testing

/// Issue 39 item 6: `NALUError.Code` is an enum callers can switch over exhaustively, and each
/// case keeps the text it printed as a struct constant, so messages stay byte-identical.
@Suite struct ErrorCodeTests {
    /// The text of every case, by an exhaustive switch (no `default`: a new case does not
    /// compile until it is listed here with its text).
    static func text(_ code: NALUError.Code) -> String {
        switch code {
        case .truncated: "truncated"
        case .invalidValue: "invalid value"
        case .expGolombOverflow: "Exp-Golomb code too long"
        case .lengthPastEnd: "length past end"
        case .forbiddenZeroBit: "forbidden_zero_bit set"
        case .doesNotFit: "does not fit"
        case .missing: "missing"
        case .unrecognisedFormat: "unrecognised format"
        case .tooLarge: "too large"
        case .io: "I/O error"
        case .unsupported: "unsupported"
        case .cannotCreate: "cannot create"
        case .cancelled: "cancelled"
        }
    }

    @Test func everyCodeHasItsOwnNonEmptyDescription() {
        var seen = Set<String>()
        for code in NALUError.Code.allCases {
            #expect(!code.description.isEmpty)
            #expect(code.description == Self.text(code), "\(code)")
            #expect(code.rawValue == code.description)
            #expect(seen.insert(code.description).inserted, "\(code.description) is not unique")
            // The message shape is unchanged: `<field>: <code>[ (<detail>)] at byte <offset>`.
            #expect(NALUError(code, field: "sps", byteOffset: 7, detail: "d").description == "sps: \(Self.text(code)) (d) at byte 7")
        }
        #expect(seen.count == 13)
    }

    @Test func convertingKeepsANALUErrorAndNamesAnyOther() {
        struct Other: Error, CustomStringConvertible { var description: String { "other" } }
        let error = NALUError(.truncated, field: "slice_header", byteOffset: 3)
        #expect(NALUError.converting(error, field: "x") == error)
        let converted = NALUError.converting(Other(), field: "in.mp4")
        #expect(converted.code == .io)
        #expect(converted.description == "in.mp4: I/O error (other)")
        // A join's `isCancelled` (CancellationError) becomes `.cancelled`, not an I/O error.
        #expect(NALUError.converting(CancellationError(), field: "concat") == NALUError(.cancelled, field: "concat"))
    }
}
