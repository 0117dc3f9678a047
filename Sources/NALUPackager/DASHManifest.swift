import NALU
import NALUMedia

/// A static DASH MPD (ISO/IEC 23009-1) over a package's CMAF segments: one adaptation set for
/// the video renditions and one for the audio, each representation with a `SegmentTemplate`
/// (`$Number%05d$`) and a `SegmentTimeline` of the segments' decoding times and durations.
public enum DASHManifest {
    /// The MPD's file name.
    public static let name = "manifest.mpd"

    /// ISO 8601 duration with milliseconds ("PT10.000S").
    static func duration(_ seconds: Double) -> String { "PT" + Packager.format3(seconds) + "S" }

    /// The decoding time after `segment` and `repeats` more of its duration (`nil` past 64 bits).
    static func after(_ segment: PackagedSegment, repeats: Int) -> Int64? {
        CheckedNumber.product(Int64(repeats) + 1, segment.duration).flatMap { CheckedNumber.sum(segment.decodeTime, $0) }
    }

    /// 5.3.9.6 Segment timeline: `S` elements with `t` on the first of each run and `r` repeats.
    static func timeline(_ track: PackagedTrack) -> [String] {
        var lines: [String] = []
        var index = 0
        var expected: Int64?
        while index < track.segments.count {
            let segment = track.segments[index]
            var repeats = 0
            while index + repeats + 1 < track.segments.count, track.segments[index + repeats + 1].duration == segment.duration,
                  track.segments[index + repeats + 1].decodeTime == Self.after(segment, repeats: repeats) {
                repeats += 1
            }
            var element = "<S"
            if expected != segment.decodeTime { element += " t=\"\(segment.decodeTime)\"" }
            element += " d=\"\(segment.duration)\""
            if repeats > 0 { element += " r=\"\(repeats)\"" }
            lines.append(element + "/>")
            expected = Self.after(segment, repeats: repeats)
            index += repeats + 1
        }
        return lines
    }

    static func representation(_ track: PackagedTrack, startNumber: Int = 1) -> [String] {
        var attributes = "id=\"\(track.name)\" bandwidth=\"\(track.peakBandwidth)\" codecs=\"\(track.codecs)\""
        if track.kind == .video {
            attributes += " width=\"\(track.width)\" height=\"\(track.height)\""
            if let rate = track.frameRate { attributes += " frameRate=\"\(Packager.format3(rate))\"" }
        }
        var lines = ["    <Representation \(attributes)>"]
        if track.kind == .audio, let channels = track.channels {
            lines.append("      <AudioChannelConfiguration schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_configuration:2011\" value=\"\(channels)\"/>")
        }
        if let initBytes = track.initBytes, let indexOffset = track.indexOffset {
            // One file (--single-file): the on-demand profile's SegmentBase over its sidx (5.3.9.2).
            lines.append("      <BaseURL>\(track.initName ?? "")</BaseURL>")
            lines.append("      <SegmentBase timescale=\"\(track.timescale)\" presentationTimeOffset=\"\(track.presentationOffset)\" "
                         + "indexRange=\"\(indexOffset)-\(indexOffset + track.indexSize - 1)\" indexRangeExact=\"true\">")
            lines.append("        <Initialization range=\"0-\(initBytes - 1)\"/>")
            lines.append("      </SegmentBase>")
            lines.append("    </Representation>")
            return lines
        }
        lines.append("      <SegmentTemplate timescale=\"\(track.timescale)\" presentationTimeOffset=\"\(track.presentationOffset)\" "
                     + "initialization=\"\(track.initName ?? "")\" media=\"\(track.name)_$Number%05d$.m4s\" startNumber=\"\(startNumber)\">")
        lines.append("        <SegmentTimeline>")
        lines += timeline(track).map { "          " + $0 }
        lines.append("        </SegmentTimeline>")
        lines.append("      </SegmentTemplate>")
        lines.append("    </Representation>")
        return lines
    }

    /// `startWithSAP` of the video adaptation set (ISO/IEC 23009-1 5.3.3.2, Annex I of
    /// ISO/IEC 14496-12): 1 when every segment starts with a sync sample, else 3 (an open-GOP
    /// CRA kept by `--open-gop keep`: its RASL pictures follow it in decoding order).
    static func startWithSAP(_ video: [PackagedTrack]) -> Int {
        video.allSatisfy { $0.segments.allSatisfy(\.startsWithSyncSample) } ? 1 : 3
    }

    /// The MPD of type `static` (5.3.1.2), profile `isoff-live` (8.4), or `isoff-on-demand` (8.3)
    /// for one file per track (``PackagerOptions/singleFile``).
    public static func staticMPD(video: [PackagedTrack], audio: PackagedTrack?, segmentDuration: Double) -> String {
        staticMPD(video: video, audio: audio.map { [$0] } ?? [], segmentDuration: segmentDuration)
    }

    /// The static MPD with one audio `AdaptationSet` per audio rendition (ids 1, 2, …), each with
    /// its `lang` (5.3.3.2: RFC 5646, the ISO 639-2 code) when known.
    public static func staticMPD(video: [PackagedTrack], audio renditions: [PackagedTrack], segmentDuration: Double) -> String {
        let total = (video + renditions).map(\.duration).max() ?? 0
        // One file per track (SegmentBase): the on-demand profile (8.3); else the live profile (8.4).
        let profile = video.first?.initBytes != nil ? "on-demand" : "live"
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-\(profile):2011\" type=\"static\" "
                     + "mediaPresentationDuration=\"\(duration(total))\" minBufferTime=\"\(duration(segmentDuration))\">",
                     "  <Period id=\"0\" start=\"PT0S\">"]
        if !video.isEmpty {
            lines.append("   <AdaptationSet id=\"0\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" startWithSAP=\"\(startWithSAP(video))\">")
            for track in video { lines += representation(track) }
            lines.append("   </AdaptationSet>")
        }
        for (index, audio) in renditions.enumerated() {
            let lang = audio.language.map { " lang=\"\($0)\"" } ?? ""
            lines.append("   <AdaptationSet id=\"\(index + 1)\" contentType=\"audio\"\(lang) mimeType=\"audio/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">")
            lines += representation(audio)
            lines.append("   </AdaptationSet>")
        }
        lines.append("  </Period>")
        lines.append("</MPD>")
        return lines.joined(separator: "\n") + "\n"
    }
}
