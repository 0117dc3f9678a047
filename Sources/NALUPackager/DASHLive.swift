#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMedia

extension DASHManifest {
    /// `seconds` since 1970 as an `xs:dateTime` in UTC ("2026-11-28T22:30:00Z").
    static func dateTime(_ seconds: Int) -> String {
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A dynamic MPD (ISO/IEC 23009-1 5.3.1.2, 5.4) for a live package: `type="dynamic"`,
    /// `availabilityStartTime` (when the first picture arrived: segment *n* is available once
    /// its end has passed on that clock), `publishTime` (now), `minimumUpdatePeriod` (one
    /// segment: it changes with every segment), `timeShiftBufferDepth` (the window), and a
    /// `SegmentTimeline` of the segments in the window whose `startNumber` is the first one's.
    /// `presentationTimeOffset` is the first segment's start, so the period starts with it.
    /// `startWithSAP` is 3 while a segment in the window starts with an open-GOP CRA (``OpenGOPPolicy/keep``).
    /// When the stream has ended (`ended`), the MPD becomes `type="static"` (5.3.1.2: it no
    /// longer changes, every segment it lists is available), as ffmpeg's own `-f dash
    /// -streaming 1` output does at its end: `minimumUpdatePeriod` and `timeShiftBufferDepth` go
    /// and `mediaPresentationDuration` comes, the span of the segments still listed (the window).
    /// A finished MPD left `dynamic` made ffmpeg's DASH demuxer wait for updates at 100% CPU.
    /// The audio rendition, if any, is a second adaptation set (`contentType="audio"`) whose
    /// timeline starts at `audioStartNumber`.
    /// `periodCodecs`, `periodSizes`: the video's `@codecs` in each period after the first
    /// (its new sets), and its picture size in each period.
    static func dynamicMPD(video: PackagedTrack, startNumber: Int, audio: PackagedTrack? = nil, audioStartNumber: Int = 1,
                           periodCodecs: [Int: String] = [:], periodSizes: [Int: (width: Int, height: Int)] = [:], availabilityStart: Int, publishTime: Int, segmentDuration: Double, window: Int, ended: Bool) -> String {
        var mpd = "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" type=\"\(ended ? "static" : "dynamic")\" "
        mpd += "availabilityStartTime=\"\(dateTime(availabilityStart))\" publishTime=\"\(dateTime(publishTime))\" "
        if ended {
            mpd += "mediaPresentationDuration=\"\(duration(max(video.duration, audio?.duration ?? 0)))\" "
        } else {
            mpd += "minimumUpdatePeriod=\"\(duration(segmentDuration))\" "
            mpd += "timeShiftBufferDepth=\"\(duration(segmentDuration * Double(window)))\" "
        }
        mpd += "minBufferTime=\"\(duration(segmentDuration))\">"
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", mpd]
        // One Period per run of segments with the same parameter sets (``PackagedSegment/period``;
        // 5.3.2): its start on the first period's timeline, its own init segment, its
        // presentationTimeOffset its first segment's tfdt. The first keeps id 0 and PT0S.
        let audioRuns = runs(audio?.segments ?? [])
        for run in runs(video.segments) {
            guard let first = run.segments.first else { continue }
            var part = video
            part.segments = Array(run.segments)
            part.initName = first.initName ?? video.initName
            part.codecs = periodCodecs[first.period] ?? video.codecs.split(separator: ",").first.map(String.init) ?? video.codecs
            if let size = periodSizes[first.period] { (part.width, part.height) = size }
            let seconds = first.period == 0 ? 0 : Double(first.decodeTime &- video.presentationOffset) / Double(max(video.timescale, 1))
            if first.period > 0 { part.presentationOffset = first.decodeTime }
            lines.append("  <Period id=\"\(first.period)\" start=\"\(first.period == 0 ? "PT0S" : duration(seconds))\">")
            lines.append("   <AdaptationSet id=\"0\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" startWithSAP=\"\(startWithSAP([part]))\">")
            lines += representation(part, startNumber: startNumber + run.offset)
            lines.append("   </AdaptationSet>")
            if var sound = audio, let audioRun = audioRuns.first(where: { $0.segments.first?.period == first.period }) {
                sound.segments = Array(audioRun.segments)
                if first.period > 0 {
                    sound.presentationOffset = CheckedNumber.rescale(first.decodeTime, from: Int64(video.timescale), to: Int64(sound.timescale)) ?? 0
                }
                lines.append("   <AdaptationSet id=\"1\" contentType=\"audio\" mimeType=\"audio/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">")
                lines += representation(sound, startNumber: audioStartNumber + audioRun.offset)
                lines.append("   </AdaptationSet>")
            }
            lines.append("  </Period>")
        }
        lines.append("</MPD>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `segments` cut where ``PackagedSegment/period`` changes, each run with its index in `segments`.
    static func runs(_ segments: [PackagedSegment]) -> [(offset: Int, segments: ArraySlice<PackagedSegment>)] {
        var result: [(offset: Int, segments: ArraySlice<PackagedSegment>)] = []
        var start = 0
        for index in segments.indices where index > 0 && segments[index].period != segments[index - 1].period {
            result.append((start, segments[start..<index]))
            start = index
        }
        if start < segments.count { result.append((start, segments[start...])) }
        return result
    }
}
