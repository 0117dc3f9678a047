import Foundation
import Testing
import NALU
import NALURTP
import NALURTPMedia

/// `nalu record` of an H.264 + AAC session from GStreamer's RTSP server (Scripts/rtsp-server.py
/// `--audio`: `rtph264pay` and `rtpmp4gpay`, RFC 3640 AAC-hbr) on 127.0.0.1, over TCP and UDP:
/// the recording has the source's video frames and AAC packets (ffprobe), its slices equal the
/// file's, its A/V sync by content (Scripts/avsync.py) is within 5 ms of the source's, and
/// `ffmpeg -rtsp_transport tcp -i rtsp://… -c copy` from the same server records as many.
@Suite(.serialized)
struct RTSPRecordAudioTests {
    static let avsync = RTPTestSupport.repositoryRoot.appendingPathComponent("Scripts/avsync.py").path
    /// H.264 High with B-frames + AAC 48 kHz stereo, 10 s (Scripts/make-realworld-fixtures.sh).
    static let fixture = RTPTestSupport.fixture("realworld/phone.mp4")

    /// A python3 with numpy (Scripts/avsync.py needs it; the server's, /usr/bin/python3 with
    /// python3-gi, may not have it).
    /// The command: `python3` as PATH finds it, else /usr/bin/python3.
    static let numpyPython: [String]? = [["/usr/bin/env", "python3"], ["/usr/bin/python3"]].first { python in
        (try? RTPPeers.run(python[0], Array(python.dropFirst()) + ["-c", "import numpy"], folder: FileManager.default.temporaryDirectory,
                           name: "numpy-check-\(UUID().uuidString)", seconds: 20).status) == 0
    }

    static var available: Bool {
        RTSPRecordTests.available && RTPPeers.tool("ffmpeg") != nil && numpyPython != nil
    }

    /// ffprobe's packet count of the first stream of `kind` (`v` or `a`).
    static func packets(_ path: String, _ kind: String, folder: URL) throws -> Int {
        let ffprobe = try #require(RTPPeers.tool("ffprobe"))
        let result = try RTPPeers.run(ffprobe, ["-v", "error", "-count_packets", "-select_streams", "\(kind):0", "-show_entries", "stream=nb_read_packets",
                                                "-of", "csv=p=0", path], folder: folder, name: "ffprobe-\(UUID().uuidString)")
        // A transport stream's program lists the stream again: the first count.
        let first = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
        return try #require(Int(first), "\(result.output)")
    }

    /// The AAC frames GStreamer's `qtdemux ! aacparse` hands out of `path` (what the server's
    /// `rtpmp4gpay` sends): the frames inside the file's edit list, so fewer than ffprobe counts
    /// when the list trims the priming frame.
    static func gstreamerAudioFrames(_ path: String, folder: URL) throws -> Int {
        let gst = try #require(RTPPeers.tool("gst-launch-1.0"))
        let result = try RTPPeers.run(gst, ["filesrc", "location=\(path)", "!", "qtdemux", "name=d", "d.audio_0", "!", "aacparse", "!",
                                            "fakesink", "silent=false", "-v"], folder: folder, name: "gst-count-\(UUID().uuidString)", seconds: 60)
        return result.output.components(separatedBy: "last-message = chain").count - 1
    }

    /// Scripts/avsync.py's shift of `output` against `source` at `at` seconds, in ms.
    static func shift(_ source: String, _ output: String, at: Double, folder: URL) throws -> Double {
        let python = try #require(numpyPython)
        let result = try RTPPeers.run(python[0], Array(python.dropFirst()) + [avsync, source, output, "--at", String(at), "--json"], folder: folder,
                                      name: "avsync-\(UUID().uuidString)", seconds: 120)
        #expect(result.status == 0, "avsync: \(result.output)")
        let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "avsync said \(result.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(json["shift_ms"] as? Double)
    }

    @Test(.enabled(if: available), arguments: ["tcp", "udp"])
    func recordsTheAudioInSync(transport: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try RTSPRecordTests.startServer(Self.fixture, codec: "h264", auth: "none", audio: true, folder: folder)
        defer { server.wait(seconds: 0) }
        let url = "rtsp://127.0.0.1:\(port)/test"
        let out = folder.appendingPathComponent("recorded.mp4").path
        let record = try RTPPeers.run(RTPPeers.nalu, ["record", url, "-o", out, "--transport", transport, "--wait", "15", "--verbose"],
                                      folder: folder, name: "record", seconds: 60)
        #expect(record.status == 0, "\(record.output)")
        // Every AAC frame the server sent: those GStreamer's demuxer reads from the file (468 of
        // ffprobe's 470: the priming frame before the edit list and the last one are not sent).
        let sourceAudio = try Self.gstreamerAudioFrames(Self.fixture, folder: folder)
        let fileAudio = try Self.packets(Self.fixture, "a", folder: folder)
        #expect(sourceAudio > 400 && sourceAudio <= fileAudio)
        #expect(try Self.packets(out, "a", folder: folder) == sourceAudio)
        #expect(try Self.packets(out, "v", folder: folder) == Self.packets(Self.fixture, "v", folder: folder))
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(Self.fixture))
        for at in [2.0, 7.0] {
            let shift = try Self.shift(Self.fixture, out, at: at, folder: folder)
            #expect(abs(shift) <= 5, "A/V shift \(shift) ms at \(at) s")
        }
        if transport == "tcp" {
            // ffmpeg's recording of the same server: as many packets.
            let ffmpeg = try #require(RTPPeers.tool("ffmpeg"))
            let copy = folder.appendingPathComponent("ffmpeg.mp4").path
            let result = try RTPPeers.run(ffmpeg, ["-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-y", copy],
                                          folder: folder, name: "ffmpeg", seconds: 60)
            #expect(result.status == 0, "\(result.output)")
            #expect(try Self.packets(copy, "a", folder: folder) == sourceAudio)
            #expect(try Self.packets(copy, "v", folder: folder) == Self.packets(out, "v", folder: folder))
        }
    }

    /// `--video-only` leaves the audio out on purpose: one track, exit 0; an Annex-B output has
    /// no place for the audio: exit 2 naming what was not written.
    @Test(.enabled(if: available))
    func videoOnlyAndAnnexB() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = RTPTestSupport.fixture("tracks_avc_aac.mp4")
        let (server, port) = try RTSPRecordTests.startServer(fixture, codec: "h264", auth: "none", audio: true, folder: folder)
        defer { server.wait(seconds: 0) }
        let url = "rtsp://127.0.0.1:\(port)/test"
        let out = folder.appendingPathComponent("video.mp4").path
        let videoOnly = try RTPPeers.run(RTPPeers.nalu, ["record", url, "-o", out, "--video-only"], folder: folder, name: "record-video", seconds: 40)
        #expect(videoOnly.status == 0, "\(videoOnly.output)")
        let ffprobe = try #require(RTPPeers.tool("ffprobe"))
        let streams = try RTPPeers.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", out], folder: folder, name: "streams")
        #expect(streams.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } == ["video"])
        let annexB = folder.appendingPathComponent("video.h264").path
        let refused = try RTPPeers.run(RTPPeers.nalu, ["record", url, "-o", annexB], folder: folder, name: "record-annexb", seconds: 40)
        #expect(refused.status == 2 && refused.output.contains("AAC access units not written"), "\(refused.output)")
        #expect(try RTPPeers.slices(annexB) == RTPPeers.slices(fixture))
    }

    /// The PLAY response's RTP-Info as GStreamer writes it, and the alignment read from it.
    @Test func rtpInfoAlignment() {
        let entries = RTSPRTPInfo.parse("url=rtsp://127.0.0.1:8554/test/stream=0;seq=29305;rtptime=3375529357, "
                                        + "url=rtsp://127.0.0.1:8554/test/stream=1;seq=1640;rtptime=2123776013")
        #expect(entries.count == 2)
        let video = RTSPRTPInfo.entry(for: "rtsp://127.0.0.1:8554/test/stream=0", in: entries)
        #expect(video?.rtpTime == 3_375_529_357 && video?.sequenceNumber == 29305)
        #expect(RTSPRTPInfo.entry(for: "rtsp://127.0.0.1:8554/test/stream=1", in: entries)?.rtpTime == 2_123_776_013)
        #expect(RTSPRTPInfo.entry(for: "rtsp://127.0.0.1:8554/test/stream=10", in: entries) == nil)
        // Audio 0.5 s (24 000 ticks at 48 kHz) after its RTP-Info time, video 0.25 s after its:
        // the audio presents 0.25 s (12 000 ticks) after the first picture; across the 32-bit wrap.
        let alignment = RTPStreamAlignment(videoRTPTime: UInt32.max - 100, audioRTPTime: 10, audioClockRate: 48_000)
        #expect(alignment.audioOffset(audioTime: 24_010, videoOrigin: (UInt32.max - 100) &+ 22_500) == 12_000)
        #expect(alignment.audioOffset(audioTime: 10, videoOrigin: (UInt32.max - 100) &+ 45_000) == -24_000)
    }
}
