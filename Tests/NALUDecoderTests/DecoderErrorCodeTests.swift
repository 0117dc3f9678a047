import NALUDecoder
import NALUEncoder
import Testing

/// Issue 39 item 6: `DecoderError.Code` is an enum (exhaustively switchable) whose cases keep
/// their texts, and the faults the encoder also has carry the same names and texts there.
@Suite struct DecoderErrorCodeTests {
    /// The text of every case, by an exhaustive switch (no `default`).
    static func text(_ code: DecoderError.Code) -> String {
        switch code {
        case .unsupported: "unsupported"
        case .libraryUnavailable: "library unavailable"
        case .backendCreationFailed: "backend creation failed"
        case .invalidSession: "invalid session"
        case .decodeFailed: "decode failed"
        case .invalidParameterSet: "invalid parameter set"
        case .tooManyFailures: "too many failures"
        }
    }

    @Test func everyCodeHasItsOwnNonEmptyDescription() {
        var seen = Set<String>()
        for code in DecoderError.Code.allCases {
            #expect(!code.description.isEmpty)
            #expect(code.description == Self.text(code), "\(code)")
            #expect(seen.insert(code.description).inserted, "\(code.description) is not unique")
            #expect(DecoderError(code, field: "avcodec_send_packet", accessUnitIndex: 4).description
                    == "avcodec_send_packet: \(Self.text(code)) in access unit 4")
        }
        #expect(seen.count == 7)
    }

    /// The same fault has the same case name and text in both types (Docs/errors.md).
    @Test func sharedFaultsHaveTheEncodersNames() {
        let shared: [(DecoderError.Code, EncoderError.Code)] = [
            (.unsupported, .unsupported), (.libraryUnavailable, .libraryUnavailable),
            (.backendCreationFailed, .backendCreationFailed), (.invalidSession, .invalidSession),
            (.tooManyFailures, .tooManyFailures),
        ]
        for (decoder, encoder) in shared {
            // The same case name (the pairs above compile) and the same text in messages.
            #expect(decoder.rawValue == encoder.rawValue)
        }
        var encoderTexts = Set<String>()
        for code in EncoderError.Code.allCases {
            #expect(!code.description.isEmpty)
            #expect(encoderTexts.insert(code.description).inserted, "\(code.description) is not unique")
        }
    }
}
