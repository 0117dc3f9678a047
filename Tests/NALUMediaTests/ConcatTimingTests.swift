import NALU
import NALUMP4
import NALUMedia
import Testing

/// ``ConcatTiming`` on the real-world clips (Scripts/make-realworld-fixtures.sh): one edit where
/// no picture is hidden between inputs (issue 41, item 8), edit by edit where one is.
@Suite struct ConcatTimingTests {
    static func clip(_ name: String) throws -> MediaSource {
        try MediaSource(path: MediaSourceTests.fixture("realworld/" + name))
    }

    /// `frag.mp4` (no edit list; its first picture presents at its composition offset, 1024
    /// ticks of 15360) twice: the first input's start delay is the leading empty edit, and one
    /// edit shows both, the second input's start delay a gap inside it (its pictures start
    /// 1024 ticks after the first input's last one ends); a transport stream's time 0 is the
    /// first input's zero.
    @Test func fragmentedInputsShareOneEdit() throws {
        let timing = try #require(try ConcatTiming([try Self.clip("frag.mp4"), try Self.clip("frag.mp4")]))
        #expect(timing.timescale == 15360)
        #expect(timing.continuousJoins == 1)
        let edits = [MP4EditListEntry(segmentDuration: 1024, mediaTime: -1),
                     MP4EditListEntry(segmentDuration: 153_600 + 1024 + 153_600, mediaTime: 1024)]
        #expect(timing.editList(movieTimescale: 15360) == edits)
        #expect(timing.presentationOrigin == 0)
        // In a 48 kHz movie: 1024 ticks of 15360 are 3200.
        let inMovie: [UInt64] = timing.editList(movieTimescale: 48000).map(\.segmentDuration)
        let expected: [UInt64] = [3200, 480_000 + 3200 + 480_000]
        #expect(inMovie == expected)
    }

    /// `sscut.mp4` (`ffmpeg -ss 2.3 -c copy`) hides the pictures from the keyframe before 2.3 s:
    /// after `phone.mp4` they cannot sit before one edit's start, so the join keeps an edit for
    /// each input, and has no single time 0 for a transport stream.
    @Test func hiddenPicturesBetweenInputsKeepTheirOwnEdit() throws {
        let timing = try #require(try ConcatTiming([try Self.clip("phone.mp4"), try Self.clip("sscut.mp4")]))
        #expect(timing.continuousJoins == 0)
        #expect(timing.editList.filter { $0.mediaTime >= 0 }.count == 2)
        #expect(timing.presentationOrigin == nil)
        // The other way round, sscut's hidden pictures come first: one edit.
        let reversed = try #require(try ConcatTiming([try Self.clip("sscut.mp4"), try Self.clip("phone.mp4")]))
        #expect(reversed.continuousJoins == 1)
        #expect(reversed.editList.filter { $0.mediaTime >= 0 }.count == 1)
    }
}
