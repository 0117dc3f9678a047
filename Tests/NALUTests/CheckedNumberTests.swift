import NALU
import Testing

@Suite struct CheckedNumberTests {
    @Test func doublesThatAreNotNumbersOrTooLargeAreNil() {
        #expect(CheckedNumber.int64(Double.nan) == nil)
        #expect(CheckedNumber.int64(Double.infinity) == nil)
        #expect(CheckedNumber.int64(-Double.infinity) == nil)
        #expect(CheckedNumber.int64(1e19) == nil)
        #expect(CheckedNumber.int64(1e300) == nil)
        #expect(CheckedNumber.int64(Double(Int64.max)) == nil)
        #expect(CheckedNumber.int64(2.5) == 3)
        #expect(CheckedNumber.int64(-2.4) == -2)
        #expect(CheckedNumber.int(9.0e18) == 9_000_000_000_000_000_000)
    }

    @Test func ticks() {
        #expect(CheckedNumber.ticks(seconds: 1.5, timescale: 90_000) == 135_000)
        #expect(CheckedNumber.ticks(seconds: 1e300, timescale: 1) == nil)
        #expect(CheckedNumber.ticks(seconds: 1, timescale: 0) == nil)
        #expect(CheckedNumber.ticks(seconds: .nan, timescale: 1000) == nil)
    }

    @Test func integerArithmetic() {
        #expect(CheckedNumber.sum(Int64.max, 1) == nil)
        #expect(CheckedNumber.product(1 << 62, 4) == nil)
        #expect(CheckedNumber.int64(UInt64.max) == nil)
        #expect(CheckedNumber.int64(UInt64(5)) == 5)
    }

    @Test func rescale() {
        #expect(CheckedNumber.rescale(1 << 62, from: 1, to: 90_000) == nil)
        #expect(CheckedNumber.rescale(1 << 62, from: 90_000, to: 90_000) == 1 << 62)
        #expect(CheckedNumber.rescale(3003, from: 30_000, to: 90_000) == 9009)
        #expect(CheckedNumber.rescale(-1001, from: 30_000, to: 1000) == -33)
        #expect(CheckedNumber.rescale(5, from: 0, to: 1) == nil)
        #expect(CheckedNumber.rescale(Int64.min, from: 1, to: 1) == Int64.min)
        #expect(CheckedNumber.rescale(Int64.max, from: 3, to: 2) == 6_148_914_691_236_517_204)
    }
}
