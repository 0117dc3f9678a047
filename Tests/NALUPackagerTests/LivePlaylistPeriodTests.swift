import Testing
@testable import NALUPackager

/// A live playlist across a parameter-set change (issue 41 item 17): the open segment's parts
/// of the new period follow an `EXT-X-DISCONTINUITY` and the new `EXT-X-MAP` (RFC 8216 4.3.2.3,
/// 4.3.2.5) before the new period has a complete segment, and once the window starts inside
/// the new period, its first `EXT-X-MAP` is the new init segment and `EXT-X-DISCONTINUITY-SEQUENCE`
/// counts the change (6.2.2). The end-to-end behaviour with ffmpeg and GStreamer is in
/// NALUCLITests/PackageLiveAudioTests.
@Suite struct LivePlaylistPeriodTests {
    static func segment(_ number: Int, period: Int, initName: String?) -> PackagedSegment {
        PackagedSegment(name: "v0_0000\(number).m4s", decodeTime: Int64(number) * 90_000, presentationTime: Int64(number) * 90_000,
                        duration: 90_000, bytes: 1000, samples: 30, startsWithSyncSample: true, period: period, initName: initName)
    }

    static func playlist(segments: [PackagedSegment], openPeriod: Int, openInit: String?) -> [String] {
        var track = PackagedTrack(kind: .video, inputPath: "-", name: "v0", initName: "v0_init.mp4", timescale: 90_000, codecs: "avc1.4d400d")
        track.segments = segments
        track.partTarget = 0.5
        var playlist = HLSMediaPlaylist(track: track, segmentType: .fmp4)
        playlist.live = true
        playlist.ended = false
        playlist.openPeriod = openPeriod
        playlist.openInitName = openInit
        playlist.openParts = [PackagedPart(name: "v0_00003.p1.m4s", duration: 45_000, bytes: 500, independent: true)]
        return playlist.text.split(separator: "\n").map(String.init)
    }

    @Test func openPartsOfANewPeriodFollowADiscontinuity() {
        let lines = Self.playlist(segments: [Self.segment(1, period: 0, initName: nil), Self.segment(2, period: 0, initName: nil)],
                                  openPeriod: 1, openInit: "v0_init_2.mp4")
        let part = lines.firstIndex { $0.hasPrefix("#EXT-X-PART:") && $0.contains("v0_00003.p1.m4s") }
        #expect(part != nil)
        guard let part else { return }
        #expect(Array(lines[(part - 2)..<part]) == ["#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"v0_init_2.mp4\""], "\(lines)")
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
        #expect(lines.contains("#EXT-X-MAP:URI=\"v0_init.mp4\"") && !lines.contains { $0.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE") })
    }

    @Test func aWindowInsideTheNewPeriodCountsTheChange() {
        let lines = Self.playlist(segments: [Self.segment(4, period: 1, initName: "v0_init_2.mp4"),
                                             Self.segment(5, period: 1, initName: "v0_init_2.mp4")],
                                  openPeriod: 1, openInit: "v0_init_2.mp4")
        #expect(lines.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1"), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-MAP") } == ["#EXT-X-MAP:URI=\"v0_init_2.mp4\""], "\(lines)")
        #expect(!lines.contains("#EXT-X-DISCONTINUITY"))
    }
}
