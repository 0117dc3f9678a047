import NALU
import NALUMedia

/// HLS playlists (RFC 8216): media playlists of a package's tracks and the multivariant playlist
/// that lists the video renditions with their audio group.
public enum HLSPlaylist {
    /// The multivariant playlist's file name.
    public static let multivariantName = "master.m3u8"

    /// RFC 8216 4.3.3.1: the target duration, the largest `EXTINF` rounded to the nearest integer
    /// (halves up), at least 1.
    public static func targetDuration(_ track: PackagedTrack) -> Int {
        var target = 1
        for segment in track.segments {
            let seconds = Double(segment.duration) / Double(max(track.timescale, 1))
            target = max(target, CheckedNumber.int(seconds.rounded(.toNearestOrAwayFromZero)) ?? Int.max)
        }
        return target
    }

    /// `EXTINF` duration: seconds with 6 decimals (RFC 8216 4.3.2.1, decimal-floating-point).
    static func decimal(_ ticks: Int64, _ timescale: UInt32) -> String {
        // Times were checked on input (PackagedTime); what does not fit is shown as it is.
        let seconds = Double(ticks) / Double(max(timescale, 1))
        guard let micro = CheckedNumber.int64(seconds * 1_000_000), micro >= 0 else { return String(seconds) }
        let whole = micro / 1_000_000
        let digits = String(micro % 1_000_000)
        return "\(whole)." + String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// A VOD media playlist (RFC 8216 4.3.3, 4.3.2): version 7 (`EXT-X-MAP` in a playlist
    /// without `EXT-X-I-FRAMES-ONLY` needs 6), every segment with its real duration, the init
    /// segment in `EXT-X-MAP` (fMP4), `EXT-X-INDEPENDENT-SEGMENTS` when every segment starts
    /// with a sync sample, and `EXT-X-ENDLIST`.
    public static func media(_ track: PackagedTrack, segmentType: SegmentType) -> String {
        if track.partTarget != nil || track.initBytes != nil || track.segments.contains(where: { $0.byteOffset != nil }) {
            return HLSMediaPlaylist(track: track, segmentType: segmentType).text
        }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(segmentType == .fmp4 ? 7 : 3)", "#EXT-X-TARGETDURATION:\(targetDuration(track))",
                     "#EXT-X-MEDIA-SEQUENCE:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if track.segments.allSatisfy(\.startsWithSyncSample) { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let initName = track.initName { lines.append("#EXT-X-MAP:URI=\"\(initName)\"") }
        for segment in track.segments {
            lines.append("#EXTINF:\(decimal(segment.duration, track.timescale)),")
            lines.append(segment.name)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The multivariant playlist (RFC 8216 4.3.4): the audio rendition as `EXT-X-MEDIA`
    /// `TYPE=AUDIO` in group `audio`, and one `EXT-X-STREAM-INF` per video rendition with its
    /// peak and average bit rates (video plus audio, measured from the segments), `CODECS`,
    /// `RESOLUTION` and `FRAME-RATE`.
    public static func multivariant(video: [PackagedTrack], audio: PackagedTrack?) -> String {
        multivariant(video: video, audio: audio.map { [$0] } ?? [])
    }

    /// The multivariant playlist (RFC 8216 4.3.4) with several audio renditions: each an
    /// `EXT-X-MEDIA` `TYPE=AUDIO` in group `audio` with its `LANGUAGE` (RFC 5646: the ISO 639-2
    /// code), `NAME` (the language, else the rendition's name; unique in the group, 4.3.4.1.1),
    /// the first `DEFAULT=YES`; each `EXT-X-STREAM-INF` counts the largest audio rendition's bit
    /// rates and lists every audio codec.
    public static func multivariant(video: [PackagedTrack], audio renditions: [PackagedTrack]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7"]
        // Only when every segment starts with an independent picture (not so after --open-gop keep).
        if video.allSatisfy({ $0.segments.allSatisfy(\.startsWithSyncSample) }) { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        var names: Set<String> = []
        for (index, rendition) in renditions.enumerated() {
            var name = renditions.count == 1 ? "audio" : rendition.language ?? rendition.name
            if names.contains(name) { name += " (\(rendition.name))" }
            names.insert(name)
            var media = "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"\(name)\""
            if let language = rendition.language { media += ",LANGUAGE=\"\(language)\"" }
            media += ",DEFAULT=\(index == 0 ? "YES" : "NO"),AUTOSELECT=YES"
            if let channels = rendition.channels { media += ",CHANNELS=\"\(channels)\"" }
            media += ",URI=\"\(rendition.name).m3u8\""
            lines.append(media)
        }
        // The variant's bit rates with its largest audio rendition (what a client may pick).
        let audio = renditions.max { $0.peakBandwidth < $1.peakBandwidth }
        var audioCodecs: [String] = []
        for rendition in renditions where !audioCodecs.contains(rendition.codecs) { audioCodecs.append(rendition.codecs) }
        for track in video {
            var codecs = track.codecs
            if !audioCodecs.isEmpty { codecs += "," + audioCodecs.joined(separator: ",") }
            var info = "#EXT-X-STREAM-INF:BANDWIDTH=\(track.peakBandwidth + (audio?.peakBandwidth ?? 0))"
            info += ",AVERAGE-BANDWIDTH=\(track.averageBandwidth + (audio?.averageBandwidth ?? 0))"
            info += ",CODECS=\"\(codecs)\",RESOLUTION=\(track.width)x\(track.height)"
            if let rate = track.frameRate { info += ",FRAME-RATE=" + Packager.format3(rate) }
            if audio != nil { info += ",AUDIO=\"audio\"" }
            lines.append(info)
            lines.append(track.name + ".m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
