import Testing
@testable import NALUMedia
import NALU
import NALUTS

/// ``SampleClock``: a transport stream's 33-bit PTS/DTS (ISO/IEC 13818-1 2.4.3.7) unwrapped.
@Suite struct SampleClockTests {
    static let period: Int64 = 1 << 33

    @Test func unwrapTakesTheValueNearestTheReference() {
        // Just before the wrap, and just after it (the counter restarted at 0).
        #expect(SampleClock.unwrap(Self.period - 3000, near: Self.period - 6000) == Self.period - 3000)
        #expect(SampleClock.unwrap(1000, near: Self.period - 2000) == Self.period + 1000)
        // A PTS before a DTS that has wrapped (B pictures around the wrap).
        #expect(SampleClock.unwrap(Self.period - 1500, near: Self.period + 1000) == Self.period - 1500)
        // Far from a wrap: unchanged.
        #expect(SampleClock.unwrap(126_000, near: 123_000) == 126_000)
        // Second wrap.
        #expect(SampleClock.unwrap(500, near: 2 * Self.period - 100) == 2 * Self.period + 500)
    }

    @Test func transportStreamTimesRunOnAcrossTheWrap() {
        // DTS 3000 apart crossing 2^33; PTS one frame later; one access unit without stamps.
        var stamps: [Int64: PESTimestampsForTest] = [:]
        let first = Self.period - 6000
        for index in 0..<5 where index != 3 {
            let dts = (first + Int64(index) * 3000) & (Self.period - 1)
            stamps[Int64(index * 100)] = PESTimestampsForTest(pts: (dts + 3000) & (Self.period - 1), dts: dts)
        }
        let clock = SampleClock(transportStream: { offset in stamps[offset].map { .init(presentation: $0.pts, decoding: $0.dts) } })
        let times = (0..<5).compactMap { clock.timing(at: Int64($0 * 100)) }
        #expect(times.map(\.decode) == (0..<5).map { first + Int64($0) * 3000 })
        #expect(times.map { $0.presentation - $0.decode } == Array(repeating: 3000, count: 5))
        #expect(times.allSatisfy { $0.timescale == 90_000 })
    }
}

struct PESTimestampsForTest { var pts: Int64; var dts: Int64 }

/// ``MediaSource/forEachAccessUnit(nalUnit:_:)`` gives every access unit of a container its times.
@Suite struct AccessUnitTimingTests {
    /// The transport stream's 300 access units: DTS strictly rising 3000 apart (30 fps at
    /// 90 kHz), PTS at or after DTS; the MP4 copy of the same clip: its `stts`/`ctts` times.
    @Test func transportStreamAndMP4AccessUnitsCarryTheirTimes() throws {
        var ts: [SampleTiming] = []
        try MediaSource(path: MediaSourceTests.fixture("realworld/phone.ts")).forEachAccessUnit { unit in
            if let timing = unit.timing { ts.append(timing) }
        }
        #expect(ts.count == 300)
        #expect(zip(ts, ts.dropFirst()).allSatisfy { $1.decode - $0.decode == 3000 })
        #expect(ts.allSatisfy { $0.presentation >= $0.decode && $0.timescale == 90_000 })
        var mp4: [SampleTiming] = []
        try MediaSource(path: MediaSourceTests.fixture("realworld/vfr.mp4")).forEachAccessUnit { unit in
            if let timing = unit.timing { mp4.append(timing) }
        }
        #expect(mp4.count == 300)
        // Variable frame rate: the durations of ffprobe's packets (256 and 1024 ticks of 1/15360 s).
        #expect(Set(mp4.map(\.duration)).isSuperset(of: [256, 1024]))
        #expect(zip(mp4, mp4.dropFirst()).allSatisfy { $1.decode == $0.decode + $0.duration })
    }
}
