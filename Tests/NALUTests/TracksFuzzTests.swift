import Foundation
import FuzzHarness
import Testing

/// The tracks fuzz target's harness (Fuzz/Harness/TracksHarness.swift) on the movies with
/// subtitle, timecode and audio tracks Scripts/make-tracks-fixtures.sh makes, whole, cut short
/// at every 97th byte, and with bytes of the `tmcd` sample entry and the `udta` changed: the
/// properties hold and nothing traps (issue 41 items 12, 14, 16).
@Suite struct TracksFuzzTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test(arguments: ["tracks/tc_sub_2997.mov", "tracks/hdr10.mp4", "tracks_mov_aac_pcm.mov", "realworld/rotated.mov"])
    func harnessHoldsOnRealMovies(_ name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
        let harness = try #require(FuzzHarnesses.all["tracks"])
        #expect(throws: Never.self) { try harness(bytes) }
        // The moov and what follows it, cut short: the reader refuses or reads less, nothing traps.
        var cuts: [[UInt8]] = []
        for length in stride(from: 0, to: min(bytes.count, 20_000), by: 97) { cuts.append(Array(bytes.prefix(length))) }
        // Every byte of the timecode entry and of the location changed in turn.
        for marker in [Array("tmcd".utf8), Array("\u{A9}xyz".utf8).suffix(3)] {
            guard let at = Self.find(Array(marker), in: bytes) else { continue }
            for offset in at..<min(bytes.count, at + 40) {
                var changed = bytes
                changed[offset] ^= 0xFF
                cuts.append(changed)
            }
        }
        for input in cuts { #expect(throws: Never.self) { try harness(input) } }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
