import NALUMP4
import Testing

/// Durations in checked integer arithmetic (issue 18 rows 1 and 2).
@Suite struct MP4DurationTests {
    @Test func secondsText() {
        #expect(MP4Duration.secondsText(3, timescale: 2) == "1.5")
        #expect(MP4Duration.secondsText(2, timescale: 3) == "0.667")
        #expect(MP4Duration.secondsText(30_720, timescale: 15_360) == "2")
        #expect(MP4Duration.secondsText(1, timescale: 100_000) == "0")
        #expect(MP4Duration.secondsText(1_000, timescale: 1_001) == "0.999")
        #expect(MP4Duration.secondsText(9_995, timescale: 10_000) == "1")
        #expect(MP4Duration.secondsText(UInt64.max, timescale: 1) == "18446744073709551615")
        #expect(MP4Duration.secondsText(UInt64.max, timescale: UInt32.max) == "4294967297")
        #expect(MP4Duration.secondsText(5, timescale: 0) == nil)
    }
}
