import NALU
public import NALURTP

/// Where the audio stream's RTP time line sits against the video's: two RTP timestamps, one of
/// each stream, that present at the same instant. An RTSP server says it in the PLAY response's
/// `RTP-Info` (RFC 2326 12.33: each stream's `rtptime` at the start of the `Range`); without it
/// (or an RTCP sender report), the offset between two RTP streams is unknown.
public struct RTPStreamAlignment: Sendable, Hashable {
    /// The video's RTP timestamp (90 kHz) at the common instant.
    public var videoRTPTime: UInt32
    /// The audio's RTP timestamp (its clock rate) at the same instant.
    public var audioRTPTime: UInt32
    /// The audio's clock rate.
    public var audioClockRate: Int

    public init(videoRTPTime: UInt32, audioRTPTime: UInt32, audioClockRate: Int) {
        self.videoRTPTime = videoRTPTime
        self.audioRTPTime = audioRTPTime
        self.audioClockRate = audioClockRate
    }

    /// The alignment two RTCP sender reports give (RFC 3550 6.4.1): each pairs its stream's RTP
    /// timestamp with one wall clock (NTP), so the audio's RTP time at the instant of the video's
    /// report is the audio report's, moved by the time between the two reports. `nil` when the
    /// reports are further apart than 2^31 audio ticks (about 12 hours at 48 kHz) or the clock
    /// rate is not positive.
    public init?(video: RTCPSenderClock, audio: RTCPSenderClock) {
        guard audio.clockRate > 0, audio.clockRate <= Int64(Int32.max) else { return nil }
        let apart = video.ntpTimestamp.unixNanoseconds &- audio.ntpTimestamp.unixNanoseconds
        guard let ticks = CheckedNumber.rescale(apart, from: 1_000_000_000, to: audio.clockRate),
              let distance = Int32(exactly: ticks) else { return nil }
        self.init(videoRTPTime: video.rtpTimestamp, audioRTPTime: audio.rtpTimestamp &+ UInt32(bitPattern: distance),
                  audioClockRate: Int(audio.clockRate))
    }

    /// How far after the video picture of RTP time `videoOrigin` the audio of RTP time
    /// `audioTime` presents, in ticks of the audio clock (negative: before it). Each time is
    /// read within ±2^31 ticks of the alignment's (about 6 hours at 90 kHz).
    public func audioOffset(audioTime: UInt32, videoOrigin: UInt32) -> Int64 {
        let audio = RTPSequence.timestampDistance(from: audioRTPTime, to: audioTime)
        let video = RTPSequence.timestampDistance(from: videoRTPTime, to: videoOrigin)
        let videoInAudioTicks = CheckedNumber.rescale(video, from: 90_000, to: Int64(max(1, audioClockRate))) ?? 0
        return audio - videoInAudioTicks
    }
}

/// One stream's entry of an RTSP `RTP-Info` header (RFC 2326 12.33; RFC 7826 18.45): `url`,
/// `seq`, `rtptime`.
public struct RTSPRTPInfo: Sendable, Hashable {
    public var url: String
    public var sequenceNumber: UInt16?
    public var rtpTime: UInt32?

    /// The entries of a header value (`url=…;seq=…;rtptime=…, url=…`); malformed ones skipped,
    /// at most 16 read.
    public static func parse(_ value: String) -> [RTSPRTPInfo] {
        var entries: [RTSPRTPInfo] = []
        for item in value.split(separator: ",").prefix(16) {
            var info = RTSPRTPInfo(url: "")
            for part in item.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                let key = pair[0].trimmingCharacters().lowercased()
                let text = pair[1].trimmingCharacters()
                switch key {
                case "url": info.url = text
                case "seq": info.sequenceNumber = UInt16(text)
                case "rtptime": info.rtpTime = UInt32(text)
                default: continue
                }
            }
            if !info.url.isEmpty { entries.append(info) }
        }
        return entries
    }

    /// The entry of `entries` for the stream set up at `control` (the same URL, or one ending
    /// with the other: servers write the control absolute or relative).
    public static func entry(for control: String, in entries: [RTSPRTPInfo]) -> RTSPRTPInfo? {
        entries.first { $0.url == control } ?? entries.first { control.hasSuffix("/" + $0.url) || $0.url.hasSuffix("/" + Self.lastPart(control)) }
    }

    private static func lastPart(_ url: String) -> String {
        String(url.split(separator: "/").last ?? Substring(url))
    }
}
