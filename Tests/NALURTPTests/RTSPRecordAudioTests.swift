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

    static var available: Bool {
        RTSPRecordTests.available && RTPPeers.tool("ffmpeg") != nil
            && (try? RTPPeers.run("/usr/bin/python3", ["-c", "import numpy"], folder: FileManager.default.temporaryDirectory,
                                  name: "numpy-check-\(UUID().uuidString)", seconds: 20).status) == 0
    }

    /// ffprobe's packet count of the first stream of `kind` (`v` or `a`).
    static func packets(_ path: String, _ kind: String, folder: URL) throws -> Int {
        let ffprobe = try #require(RTPPeers.tool("ffprobe"))
        let result = try RTPPeers.run(ffprobe, ["-v", "error", "-count_packets", "-select_streams", "\(kind):0", "-show_entries", "stream=nb_read_packets",
                                                "-of", "csv=p=0", path], folder: folder, name: "ffprobe-\(UUID().uuidString)")
        return try #require(Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.output)")
    }

    /// Scripts/avsync.py's shift of `output` against `source` at `at` seconds, in ms.
    static func shift(_ source: String, _ output: String, at: Double, folder: URL) throws -> Double {
        let result = try RTPPeers.run("/usr/bin/python3", [avsync, source, output, "--at", String(at), "--json"], folder: folder,
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
        let sourceAudio = try Self.packets(Self.fixture, "a", folder: folder)
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
