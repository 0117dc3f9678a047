import NALU
import NALUEncoder
import NALUX265
import Testing

/// Issue 18 rows 11–15: the encoder front end refuses what the codecs cannot do, with one
/// clear message, and quotes input safely.
@Suite struct FrontEndLimitTests {
    // Row 11: x265 needs one CTU in each direction ("Picture size must be at least one CTU").
    @Test func hevcSmallerThanOneCTUIsOneError() throws {
        var configuration = EncoderConfiguration(codec: .hevc, width: 32, height: 32)
        #expect(configuration.hevcCTUSize == 64)
        do {
            _ = try EncoderSession(configuration: configuration, factory: X265BackendFactory())
            Issue.record("32x32 with 64x64 CTUs accepted")
        } catch {
            #expect(error.code == .invalidConfiguration && error.field == "size", "\(error)")
            #expect(error.detail?.contains("ultrafast") == true)
        }
        // 32x32 CTUs fit (not opened here: x265 wants one CTU size per process while encoders are open).
        configuration.preset = "ultrafast"
        #expect(configuration.hevcCTUSize == 32)
        configuration.width = 64
        try configuration.validate()
    }

    // Issue 40 item 1: libx265 writes past its lookahead's arrays below 50 samples of width
    // (valgrind on its own CLI: 34 and 48 wide, invalid writes; 50 and up, none).
    @Test func hevcNarrowerThan50IsRefused() throws {
        var configuration = EncoderConfiguration(codec: .hevc, width: 48, height: 1000)
        configuration.preset = "ultrafast"
        do {
            try configuration.validate()
            Issue.record("48 wide accepted")
        } catch {
            #expect(error.field == "size" && error.detail?.contains("50") == true, "\(error)")
        }
        configuration.width = 50
        try configuration.validate()
    }

    // Row 13: the frame-count hint is a 64-bit count; the backends clamp what they pass on.
    @Test func frameCountHintPast2To31() throws {
        var configuration = EncoderConfiguration(codec: .hevc, width: 64, height: 64)
        configuration.expectedFrameCount = 3_000_000_000
        try configuration.validate()
        configuration.expectedFrameCount = -1
        #expect(throws: EncoderError.self) { try configuration.validate() }
    }

    // Row 12: header bytes quoted in messages have their control characters escaped.
    @Test func y4mHeaderMessagesEscapeControlBytes() {
        let line = Array("YUV4MPEG2 W16 H16 F25:1\u{1B}[2J\r C420".utf8)
        do {
            _ = try Y4MHeader(line: line)
            Issue.record("accepted")
        } catch {
            let text = "\(error)"
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 }, "\(text)")
            #expect(text.contains("\\x1B[2J\\x0D"), "\(text)")
        }
    }

    // Row 15: interlaced Y4M is refused, not coded as progressive frames.
    @Test func interlacedY4MIsRefused() throws {
        for tag in ["It", "Ib", "Im"] {
            do {
                _ = try Y4MHeader(line: Array("YUV4MPEG2 W16 H16 F25:1 \(tag)".utf8))
                Issue.record("\(tag) accepted")
            } catch {
                #expect(error.code == .invalidInput && error.field == "Y4M header I" && error.detail?.contains("interlaced") == true, "\(error)")
            }
        }
        #expect(try Y4MHeader(line: Array("YUV4MPEG2 W16 H16 F25:1 Ip".utf8)).interlacing == "p")
    }
}
