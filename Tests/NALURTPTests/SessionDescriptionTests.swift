import Foundation
import Testing
import NALU
@testable import NALURTP

/// SDP (RFC 8866) with the H.264 (RFC 6184 8.1) and H.265 (RFC 7798 7.1) parameters: written
/// from real parameter sets, read back; descriptions as ffmpeg and GStreamer write them read.
@Suite struct SessionDescriptionTests {
    @Test func h264RoundTripsWithParameterSetsFromTheStream() throws {
        let (_, _, sets, _) = try RTPTestSupport.accessUnits("avc_high_bframes.mp4")
        let description = SessionDescription(address: "127.0.0.1", video: RTPVideoDescription(codec: .h264, port: 5004, payloadType: 96, parameterSets: sets))
        let text = description.text
        #expect(text.contains("m=video 5004 RTP/AVP 96\r\n"))
        #expect(text.contains("a=rtpmap:96 H264/90000\r\n"))
        // High profile (100), level from the SPS.
        #expect(text.contains("profile-level-id=64"))
        let read = try SessionDescription(parsing: text)
        #expect(read.video.parameterSets == sets)
        #expect(read.video.packetizationMode == .nonInterleaved)
        #expect(read.video.profileLevelID?.first == 100)
        // sprop-max-don-diff is an H.264 parameter too (RFC 6184 8.1; found by the sdp fuzz target).
        var interleaved = description
        interleaved.video.packetizationMode = .interleaved
        interleaved.video.maxDonDiff = 5
        let again = try SessionDescription(parsing: interleaved.text)
        #expect(again.video.maxDonDiff == 5 && again.video.packetizationMode == .interleaved)
        #expect(read.address == "127.0.0.1")
    }

    @Test func h265RoundTrips() throws {
        let (_, _, sets, _) = try RTPTestSupport.accessUnits("hevc_main.mp4")
        let description = SessionDescription(address: "127.0.0.1", video: RTPVideoDescription(codec: .hevc, port: 6000, payloadType: 98, parameterSets: sets))
        let text = description.text
        #expect(text.contains("a=rtpmap:98 H265/90000"))
        #expect(text.contains("profile-id=1") && text.contains("tier-flag=0") && text.contains("sprop-vps="))
        let read = try SessionDescription(parsing: text)
        #expect(read.video.parameterSets == sets)
        #expect(read.video.profileID == 1 && read.video.maxDonDiff == 0)
        var withDON = description
        withDON.video.maxDonDiff = 3
        #expect(try SessionDescription(parsing: withDON.text).video.payloadFormat.maxDonDiff == 3)
    }

    @Test func readsFfmpegStyleDescriptions() throws {
        // ffmpeg's rtpenc writes "; " between parameters, LF line ends, and a media-level c=.
        let text = """
        v=0
        o=- 0 0 IN IP4 127.0.0.1
        s=No Name
        t=0 0
        a=tool:libavformat
        m=audio 5006 RTP/AVP 97
        c=IN IP4 127.0.0.1
        b=AS:63
        a=rtpmap:97 MPEG4-GENERIC/48000/2
        a=fmtp:97 profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3; config=119056E500
        m=video 5004 RTP/AVP 96
        c=IN IP4 127.0.0.1
        b=AS:200
        a=rtpmap:96 H264/90000
        a=fmtp:96 packetization-mode=1; sprop-parameter-sets=Z0LAHtkDxWhAAAADAEAAAAwDxYuS,aMuMsg==; profile-level-id=42C01E

        """
        let read = try SessionDescription(parsing: text)
        #expect(read.video.port == 5004 && read.video.payloadType == 96)
        #expect(read.video.parameterSets.count == 2)
        #expect(read.video.parameterSets[1] == [0x68, 0xCB, 0x8C, 0xB2])
        #expect(read.video.profileLevelID == [0x42, 0xC0, 0x1E])
        #expect(read.otherMedia == ["m=audio 5006 RTP/AVP 97"])
        // The AAC stream (the fmtp line as ffmpeg 5.1 writes it for tracks_avc_aac.mp4's audio).
        let audio = try #require(read.audio)
        #expect(audio.port == 5006 && audio.payloadType == 97 && audio.sampleRate == 48_000 && audio.channels == 2)
        #expect(audio.audioSpecificConfig == [0x11, 0x90, 0x56, 0xE5, 0x00])
        #expect(audio.sizeLength == 13 && audio.indexLength == 3 && audio.indexDeltaLength == 3)
        // Written with the video and read back.
        let again = try SessionDescription(parsing: read.text)
        #expect(again.audio == audio)
        #expect(again.video.parameterSets == read.video.parameterSets)
        let badConfig = text.replacingOccurrences(of: "config=119056E500", with: "config=11905")
        #expect { try SessionDescription(parsing: badConfig) } throws: { ($0 as? NALUError)?.field == "config" }
    }

    @Test func refusesWhatIsNotADescriptionOfVideo() {
        #expect { try SessionDescription(parsing: "v=0\nm=audio 5 RTP/AVP 0\n") } throws: { ($0 as? NALUError)?.field == "m=video" }
        #expect { try SessionDescription(parsing: "v=0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\n") } throws: { ($0 as? NALUError)?.field == "c=" }
        #expect { try SessionDescription(parsing: "c=IN IP4 1.2.3.4\nm=video 70000 RTP/AVP 96\n") } throws: { ($0 as? NALUError)?.field == "m=" }
        let badBase64 = "c=IN IP4 1.2.3.4\nm=video 5 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 sprop-parameter-sets=Z0**\n"
        #expect { try SessionDescription(parsing: badBase64) } throws: {
            let error = $0 as? NALUError
            return error?.field == "sprop-parameter-sets" && error?.byteOffset == 61
        }
        let badMode = "c=IN IP4 1.2.3.4\nm=video 5 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=7\n"
        #expect { try SessionDescription(parsing: badMode) } throws: { ($0 as? NALUError)?.field == "packetization-mode" }
    }

    @Test func base64RoundTrips() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64.decode(Substring(Base64.encode(bytes))) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64.decode("Zm9vY") == nil)
        #expect(Base64.decode("Zm=9") == nil)
    }
}
