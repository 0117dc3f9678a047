import Foundation
import Testing

/// Issue 39 item 7: `live-hls-sample DIR SECONDS` (AVCaptureSession + AVAssetWriter HLS) writes
/// LL-HLS that python `m3u8` reads with every segment listed from the first (sequence 1), parts, and
/// EXT-X-ENDLIST; ffprobe sees video and audio lasting SECONDS; the beeps start with the flashes
/// (A/V sync by content: Scripts/live-hls-facts.py, and Scripts/avsync.py against the sound given).
@Suite("LiveHLSSample", .serialized)
struct LiveHLSSampleTests {
    struct Facts: Decodable {
        struct Segment: Decodable {
            var uri: String
            var duration: Double
            var parts: Int
            var exists: Bool
        }
        struct Playlist: Decodable {
            var segments: [Segment]
            var mediaSequence: Int
            var endList: Bool
            var partTarget: Double?
        }
        var playlists: [String: Playlist]
        var streams: [String]
        var duration: Double
        var frames: Int
        var flashes: [Double]
        var onsets: [Double]
    }

    @Test("3 s live: every segment listed, parts, ENDLIST; video + audio of 3 s; beeps on the flashes")
    func threeSeconds() throws {
        let directory = try SamplesTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("live").path
        let began = Date()
        let run = try SamplesTestSupport.run(SamplesTestSupport.executable("live-hls-sample"), [folder, "3"])
        let elapsed = Date().timeIntervalSince(began)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(elapsed >= 2.9, "the capture runs in real time: \(elapsed) s")  // 90 frames at 30 fps
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        let master = try #require(names.first { $0.hasSuffix(".m3u8") && $0.hasPrefix("master") }, "no master playlist in \(names)")
        let script = SamplesTestSupport.repositoryRoot.appendingPathComponent("Scripts/live-hls-facts.py").path
        let reference = directory.appendingPathComponent("reference.mkv").path
        let output = try SamplesTestSupport.run("/usr/bin/env", ["python3", script, "\(folder)/\(master)", "--reference", reference])
        #expect(output.status == 0, "\(output.stderr)")
        let facts = try JSONDecoder().decode(Facts.self, from: output.data)

        #expect(facts.playlists.count == 2, "video and audio playlists: \(facts.playlists.keys.sorted())")
        for (name, playlist) in facts.playlists {
            // No sliding window: every segment from the first is listed and on disk.
            #expect(playlist.mediaSequence == 1, "\(name)")
            #expect(playlist.segments.first?.uri.hasSuffix("_00001.m4s") == true, "\(name): \(playlist.segments.first?.uri ?? "none")")
            #expect(playlist.endList, "\(name): no EXT-X-ENDLIST")
            #expect(playlist.segments.allSatisfy { $0.exists }, "\(name)")
            let total = playlist.segments.reduce(0) { $0 + $1.duration }
            #expect(abs(total - 3) < 0.1, "\(name): \(total) s listed")
            #expect(playlist.segments.count == 3, "\(name): \(playlist.segments.count) segments of 1 s")
            #expect(playlist.partTarget == 0.2, "\(name): PART-TARGET")
            // LL-HLS parts of 200 ms (5 or more a 1 s segment) on the segments within three target
            // durations of the end (RFC 8216bis 4.4.4.9: older ones may drop theirs, as the
            // audio playlist does for its first).
            #expect(playlist.segments.suffix(2).allSatisfy { $0.parts >= 5 }, "\(name): parts \(playlist.segments.map { $0.parts })")
        }
        #expect(facts.streams == ["audio", "video"])
        #expect(abs(facts.duration - 3) < 0.1, "duration \(facts.duration)")
        #expect(facts.frames == 90)
        // A/V sync by content: the flash at each whole second and the beep that starts with it.
        #expect(facts.flashes.count == 3, "flashes at \(facts.flashes)")
        #expect(facts.onsets.count == 3, "beeps at \(facts.onsets)")
        for flash in facts.flashes.dropFirst() {
            let onset = try #require(facts.onsets.min { abs($0 - flash) < abs($1 - flash) })
            #expect(abs(onset - flash) < 0.010, "the beep starts \((onset - flash) * 1000) ms after the flash at \(flash) s")
        }
        // Scripts/avsync.py against the sound the sample was given, in sync with the same
        // pictures by construction (each second's beep has its own pitch, so each window is
        // found once): measured 0.0 ms.
        let avsync = SamplesTestSupport.repositoryRoot.appendingPathComponent("Scripts/avsync.py").path
        for at in ["1.0", "2.0"] {
            let measured = try SamplesTestSupport.run("/usr/bin/env", ["python3", avsync, reference, "\(folder)/\(master)", "--at", at, "--json"])
            #expect(measured.status == 0, "\(measured.stderr)")
            let shift = (try? JSONSerialization.jsonObject(with: measured.data) as? [String: Any])?["shift_ms"] as? Double
            #expect(shift.map { abs($0) < 1 } == true, "A/V shift at \(at) s: \(shift.map { "\($0) ms" } ?? measured.text)")
        }
    }

    @Test("usage: exit 64")
    func usage() throws {
        let run = try SamplesTestSupport.run(SamplesTestSupport.executable("live-hls-sample"), ["only-one-argument"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("usage: live-hls-sample DIR SECONDS"))
    }
}
