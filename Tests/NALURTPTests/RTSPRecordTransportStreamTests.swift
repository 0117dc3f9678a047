import Foundation
import Testing
import NALU

/// `nalu record` of GStreamer's H.264 + AAC session (Scripts/rtsp-server.py `--audio`) into
/// MPEG-TS (`-o out.ts`) and a live HLS package (`-o DIR --hls`): ffprobe's picture and AAC
/// packet counts equal what the server sent, GStreamer's playbin plays the result, the HLS
/// playlists read with python's `m3u8` end with EXT-X-ENDLIST and cover the stream, and the
/// A/V sync by content (Scripts/avsync.py) is within 5 ms of the source's.
@Suite(.serialized)
struct RTSPRecordTransportStreamTests {
    static let fixture = RTSPRecordAudioTests.fixture

    /// GStreamer's playbin plays `path` to fakesinks without an error (60 s at most).
    static func plays(_ path: String, folder: URL) throws -> Bool {
        let gst = try #require(RTPPeers.tool("gst-launch-1.0"))
        let play = try RTPPeers.run(gst, ["-q", "playbin", "uri=file://" + path, "video-sink=fakesink", "audio-sink=fakesink"],
                                    folder: folder, name: "playbin-\(UUID().uuidString)", seconds: 60)
        return play.status == 0 && !play.output.contains("ERROR")
    }

    static func record(_ arguments: [String], folder: URL) throws {
        let (server, port) = try RTSPRecordTests.startServer(Self.fixture, codec: "h264", auth: "none", audio: true, folder: folder)
        defer { server.wait(seconds: 0) }
        let result = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://127.0.0.1:\(port)/test", "--wait", "15"] + arguments,
                                      folder: folder, name: "record", seconds: 60)
        #expect(result.status == 0, "\(result.output)")
    }

    static func expectCountsAndSync(_ path: String, folder: URL) throws {
        #expect(try RTSPRecordAudioTests.packets(path, "v", folder: folder) == RTSPRecordAudioTests.packets(Self.fixture, "v", folder: folder))
        #expect(try RTSPRecordAudioTests.packets(path, "a", folder: folder) == RTSPRecordAudioTests.gstreamerAudioFrames(Self.fixture, folder: folder))
        for at in [2.0, 7.0] {
            let shift = try RTSPRecordAudioTests.shift(Self.fixture, path, at: at, folder: folder)
            #expect(abs(shift) <= 5, "A/V shift \(shift) ms at \(at) s")
        }
    }

    @Test(.enabled(if: RTSPRecordAudioTests.available))
    func recordsIntoMPEGTS() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("recorded.ts").path
        try Self.record(["-o", out], folder: folder)
        try Self.expectCountsAndSync(out, folder: folder)
        #expect(try Self.plays(out, folder: folder))
    }

    @Test(.enabled(if: RTSPRecordAudioTests.available))
    func recordsIntoALiveHLSPackage() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("live").path
        try Self.record(["-o", package, "--hls", "--segment-duration", "2", "--window", "100", "--transport", "udp"], folder: folder)
        let master = package + "/master.m3u8"
        // The playlists as python's m3u8 reads them: every media playlist ended, its segments
        // covering the 10 s stream.
        let python = try #require(RTSPRecordAudioTests.numpyPython)
        let script = """
        import json, m3u8, sys
        master = m3u8.load(sys.argv[1])
        uris = [p.uri for p in master.playlists] + [m.uri for m in master.media if m.uri]
        out = {}
        for uri in uris:
            media = m3u8.load(sys.argv[1].rsplit('/', 1)[0] + '/' + uri)
            out[uri] = {'segments': len(media.segments), 'endlist': media.is_endlist, 'duration': sum(s.duration for s in media.segments)}
        print(json.dumps(out))
        """
        let parsed = try RTPPeers.run(python[0], Array(python.dropFirst()) + ["-c", script, master], folder: folder, name: "m3u8")
        #expect(parsed.status == 0, "\(parsed.output)")
        let line = try #require(parsed.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(parsed.output)")
        let playlists = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: Any]])
        #expect(Set(playlists.keys) == ["v0.m3u8", "a0.m3u8"])
        for (uri, facts) in playlists {
            #expect(facts["endlist"] as? Bool == true, "\(uri)")
            #expect((facts["segments"] as? Int ?? 0) >= 4, "\(uri)")
            let duration = facts["duration"] as? Double ?? 0
            #expect(abs(duration - 10) < 0.1, "\(uri): \(duration) s")
        }
        try Self.expectCountsAndSync(master, folder: folder)
        #expect(try Self.plays(master, folder: folder))
    }
}
