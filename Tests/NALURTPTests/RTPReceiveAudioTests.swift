import Foundation
import Testing
import NALU
import NALURTP
import NALURTPMedia

/// `nalu rtp receive` of an SDP with an AAC stream (`m=audio … MPEG4-GENERIC`): the audio is
/// received on its own port and placed against the video by both streams' RTCP sender reports
/// (RFC 3550 6.4.1), into MP4 and MPEG-TS. Measured by content (Scripts/avsync.py) on
/// `realworld/phone.mp4` (H.264 with B-frames + AAC 48 kHz, 10 s).
@Suite(.serialized)
struct RTPReceiveAudioTests {
    static let fixture = RTSPRecordAudioTests.fixture

    /// A receiver started on the session `nalu rtp send` describes for the fixture (its SDP written
    /// by a run into the void, so the receiver listens before the packets come), writing
    /// `received.<format>` with `arguments`; waits until its video and audio ports are bound.
    static func startReceiver(in folder: URL, format: String = "mp4", _ arguments: [String]) throws
        -> (receiver: RTPPeers.Running, port: UInt16, out: String) {
        let port = try RTPPeers.freePort()
        let sdp = folder.appendingPathComponent("session.sdp").path
        let dry = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", fixture, "--to", "127.0.0.1:\(port)", "--sdp", sdp], folder: folder, name: "dry")
        #expect(dry.status == 0, "\(dry.output)")
        let out = folder.appendingPathComponent("received.\(format)").path
        let receiver = try RTPPeers.Running(RTPPeers.nalu, ["rtp", "receive", "--sdp", sdp, "-o", out] + arguments, folder: folder, name: "receive")
        try RTPPeers.waitUntilBound(port: port)
        try RTPPeers.waitUntilBound(port: port + 2)
        return (receiver, port, out)
    }

    /// Every picture of the fixture in `out`, and A/V in sync by content within 5 ms at 2 s and 7 s.
    static func expectPicturesAndSync(_ out: String, folder: URL) throws {
        #expect(try RTSPRecordAudioTests.packets(out, "v", folder: folder) == RTSPRecordAudioTests.packets(fixture, "v", folder: folder))
        for at in [2.0, 7.0] {
            let shift = try RTSPRecordAudioTests.shift(fixture, out, at: at, folder: folder)
            #expect(abs(shift) <= 5, "A/V shift \(shift) ms at \(at) s")
        }
    }

    /// Two sender reports of the same instant give the same RTP time; reports taken apart move
    /// the audio's RTP time by the time between them, across the 32-bit wrap.
    @Test func alignmentFromSenderReports() throws {
        let instant = try #require(NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000))
        let video = RTCPSenderClock(ntpTimestamp: instant, rtpTimestamp: 90_000)
        let same = try #require(RTPStreamAlignment(video: video, audio: RTCPSenderClock(ntpTimestamp: instant, rtpTimestamp: 7, clockRate: 48_000)))
        #expect(same == RTPStreamAlignment(videoRTPTime: 90_000, audioRTPTime: 7, audioClockRate: 48_000))
        // The audio's report 0.5 s after the video's, its RTP time 1000: at the video's instant
        // the audio clock read 1000 − 24000 (wrapping below 0).
        let later = try #require(NTPTimestamp(unixNanoseconds: 1_700_000_000_500_000_000))
        let apart = try #require(RTPStreamAlignment(video: video, audio: RTCPSenderClock(ntpTimestamp: later, rtpTimestamp: 1_000, clockRate: 48_000)))
        #expect(apart.audioRTPTime == UInt32(truncatingIfNeeded: 1_000 - 24_000))
        // An AAC frame the sender stamped at its report's instant presents 0.5 s after the
        // picture of the video's report.
        #expect(apart.audioOffset(audioTime: 1_000, videoOrigin: 90_000) == 24_000)
        // Reports further apart than 2^31 audio ticks are not used.
        let far = try #require(NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000 + 50_000 * 1_000_000_000))
        #expect(RTPStreamAlignment(video: video, audio: RTCPSenderClock(ntpTimestamp: far, rtpTimestamp: 0, clockRate: 48_000)) == nil)
    }

    /// The SDP's audio section gives the audio's RTCP port: `a=rtcp:` or its RTP port + 1.
    @Test func audioRTCPPort() throws {
        let sdp = """
        v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video 5000 RTP/AVP 96\r\na=rtcp:6001\r\n\
        a=rtpmap:96 H264/90000\r\nm=audio 5002 RTP/AVP 97\r\na=rtpmap:97 MPEG4-GENERIC/48000/2\r\n\
        a=fmtp:97 streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190\r\n
        """
        let description = try SessionDescription(parsing: sdp)
        let audio = try #require(description.audio)
        #expect(RTCPDescription(sdp: sdp, video: description.video).port == 6001)
        #expect(RTCPDescription(sdp: sdp, audio: audio).port == 5003)
        #expect(RTCPDescription(sdp: sdp.replacingOccurrences(of: "a=rtpmap:97", with: "a=rtcp:7003\r\na=rtpmap:97"), audio: audio).port == 7003)
    }

    /// `nalu rtp send --realtime` into `nalu rtp receive` (MP4 and MPEG-TS): every picture and
    /// every AAC frame of the file, and A/V in sync by content within 5 ms at 2 s and 7 s (the
    /// receiver of the same two streams without RTCP cannot place the audio: exit 2, naming it).
    @Test(.enabled(if: RTSPRecordAudioTests.available), arguments: ["mp4", "ts"])
    func naluSenderIntoReceiver(format: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receiver, port, out) = try Self.startReceiver(in: folder, format: format, ["--verbose"])
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", Self.fixture, "--to", "127.0.0.1:\(port)", "--realtime"], folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        // The senders' BYEs end the reception.
        #expect(receiver.wait(seconds: 20) == 0, "\(receiver.output)")
        #expect(receiver.output.contains("sender reports read"), "\(receiver.output)")
        #expect(try RTSPRecordAudioTests.packets(out, "a", folder: folder) == RTSPRecordAudioTests.packets(Self.fixture, "a", folder: folder))
        try Self.expectPicturesAndSync(out, folder: folder)
    }

    /// Without RTCP the two RTP time lines cannot be lined up: the audio is written with the
    /// first picture and the exit status is 2, naming it.
    @Test(.enabled(if: RTSPRecordAudioTests.available))
    func withoutRTCPTheAudioPlaceIsNamed() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receiver, port, out) = try Self.startReceiver(in: folder, ["--no-rtcp", "--idle", "1"])
        let send = try RTPPeers.run(RTPPeers.nalu, ["rtp", "send", Self.fixture, "--to", "127.0.0.1:\(port)", "--realtime", "--no-rtcp"],
                                    folder: folder, name: "send")
        #expect(send.status == 0, "\(send.output)")
        #expect(receiver.wait(seconds: 20) == 2, "\(receiver.output)")
        #expect(receiver.output.contains("the audio's place against the video is not known"), "\(receiver.output)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// GStreamer's `rtpbin` sends the two streams with sender reports on one clock (the
    /// pipeline's): nalu receives every picture and every AAC frame GStreamer sends, in sync
    /// by content within 5 ms.
    @Test(.enabled(if: RTSPRecordAudioTests.available && RTPPeers.tool("gst-launch-1.0") != nil))
    func gstreamerSenderIntoReceiver() throws {
        let gst = try #require(RTPPeers.tool("gst-launch-1.0"))
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The SDP nalu writes for the file names what GStreamer sends (payload types 96 and 97,
        // the file's parameter sets and AudioSpecificConfig, AAC-hbr).
        let (receiver, port, out) = try Self.startReceiver(in: folder, ["--verbose", "--idle", "2"])
        let pipeline = "rtpbin name=rb filesrc location=\(Self.fixture) ! qtdemux name=d "
            + "d.video_0 ! queue ! h264parse ! rtph264pay pt=96 config-interval=-1 ! rb.send_rtp_sink_0 "
            + "rb.send_rtp_src_0 ! udpsink host=127.0.0.1 port=\(port) rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=\(port + 1) sync=false async=false "
            + "d.audio_0 ! queue ! aacparse ! rtpmp4gpay pt=97 ! rb.send_rtp_sink_1 "
            + "rb.send_rtp_src_1 ! udpsink host=127.0.0.1 port=\(port + 2) rb.send_rtcp_src_1 ! udpsink host=127.0.0.1 port=\(port + 3) sync=false async=false"
        let send = try RTPPeers.run(gst, ["-q"] + pipeline.split(separator: " ").map(String.init), folder: folder, name: "gst", seconds: 40)
        #expect(send.status == 0, "\(send.output)")
        #expect(receiver.wait(seconds: 20) == 0, "\(receiver.output)")
        // Every frame GStreamer sends: 468 of the file's 470, as its RTSP server does (RTSPRecordAudioTests).
        let audio = try RTSPRecordAudioTests.packets(out, "a", folder: folder)
        let fileAudio = try RTSPRecordAudioTests.packets(Self.fixture, "a", folder: folder)
        #expect(audio >= fileAudio - 2, "\(audio) AAC frames")
        #expect(receiver.output.contains("audio: \(audio) access units"), "\(receiver.output)")
        try Self.expectPicturesAndSync(out, folder: folder)
    }
}
