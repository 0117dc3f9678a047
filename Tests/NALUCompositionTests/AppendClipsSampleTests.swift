import Foundation
import Testing

/// `append-clips-sample OUT IN…` (issue 39 item 7, a contract): the inputs end to end with their
/// audio, checked against what ffprobe reports of the inputs and by content (Scripts/avsync.py).
@Suite struct AppendClipsSampleTests {
    static let sample = CompositionTestSupport.executable("append-clips-sample")

    /// Appends `inputs`, then checks that the output shows every picture of each input, in
    /// order, lasts their durations, and keeps each input's audio in sync where it plays.
    func appendAndCheck(_ inputs: [String], codec: String) throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("joined.mp4").path
        let run = try CompositionTestSupport.run(Self.sample, [output] + inputs)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CompositionTestSupport.contents(directory) == ["joined.mp4"])
        let joined = try CompositionTestSupport.pictureTimes(output)
        let sources = try inputs.map { try CompositionTestSupport.pictureTimes($0) }
        #expect(joined.count == sources.reduce(0) { $0 + $1.count }, "pictures: \(joined.count), inputs: \(sources.map(\.count))")
        #expect(run.stdout.contains("\(joined.count) pictures"))
        #expect(try CompositionTestSupport.codecName(output, stream: "v:0") == codec)
        #expect(try CompositionTestSupport.codecName(output, stream: "a:0") == "aac")
        // Each input starts where the one before ends (its pictures' durations), within a frame.
        var start = joined.first ?? 0
        for input in inputs {
            let duration = try #require(try CompositionTestSupport.streamDuration(input, stream: "v:0"))
            // A/V sync by content a second into each input's part: the join keeps each input's
            // audio where its video is, within half an AAC frame (10.7 ms at 48 kHz).
            let shift = try #require(try CompositionTestSupport.avShift(source: input, output: output, at: start - (joined.first ?? 0) + 1))
            #expect(abs(shift) < 10.7, "\(input): A/V shift \(shift) ms")
            start += duration
        }
        let total = try #require(try CompositionTestSupport.streamDuration(output, stream: "v:0"))
        let expected = try inputs.reduce(0.0) { $0 + (try CompositionTestSupport.streamDuration($1, stream: "v:0") ?? 0) }
        #expect(abs(total - expected) < 1.0 / 29, "duration \(total) s, inputs \(expected) s")
        let audio = try #require(try CompositionTestSupport.streamDuration(output, stream: "a:0"))
        #expect(abs(audio - total) < 0.025, "audio \(audio) s, video \(total) s")
    }

    @Test("two H.264 files with AAC, of other frame rates, joined end to end with their audio")
    func twoFiles() throws {
        try appendAndCheck([CompositionTestSupport.fixture("realworld/phone.mp4"), CompositionTestSupport.fixture("realworld/avc_2997.mov")],
                           codec: "h264")
    }

    @Test("an HEVC clip after an H.264 one is re-encoded into H.264, its audio kept in sync")
    func otherCodec() throws {
        try appendAndCheck([CompositionTestSupport.fixture("realworld/phone.mp4"), CompositionTestSupport.fixture("realworld/hevc_2997.mov")],
                           codec: "h264")
    }

    @Test("usage: exit 64 without an input")
    func usage() throws {
        let run = try CompositionTestSupport.run(Self.sample, ["out.mp4"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("usage: append-clips-sample OUT IN"))
    }
}
