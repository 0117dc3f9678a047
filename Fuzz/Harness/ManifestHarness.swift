// The streaming-package manifest parsers of `nalu doctor` (NALUDoctor PackageManifests): an HLS
// playlist (target hls: media and multivariant) and a DASH MPD (target dash), from any bytes.
// Properties: no trap; the segments and parts kept never exceed the declared-segment limit;
// every duration kept is finite, from 0 to the limit; every byte range ends within 2^63; every
// URI a template makes is bounded by the text (a `$Number%0<huge>d$` is refused, not allocated).
import NALU
import NALUMedia
import NALUDoctor

enum ManifestHarness {
    typealias Manifests = PackageManifests
    /// The allowance the harness reads with: the same code paths as the doctor's 1,000,000, but
    /// an `S@r` of 2^62 costs 1,000 segments per input instead of a million (at 10,000 such
    /// inputs ran at 27 a second and held the dash target to 11,552 executions in 7 minutes).
    static let segmentLimit = 1_000

    static func checkSegments(_ renditions: [Manifests.Rendition], _ reading: Manifests.Reading, textLength: Int) throws(FuzzPropertyViolation) {
        let count = renditions.reduce(0) { $0 + $1.segments.count + $1.parts.count }
        try fuzzCheck(count <= reading.segmentLimit, "\(count) segments kept, over the limit of \(reading.segmentLimit)")
        try fuzzCheck(reading.segmentsLeft >= 0, "the allowance went below 0")
        for rendition in renditions {
            for segment in rendition.segments {
                if let duration = segment.duration {
                    try fuzzCheck(duration.isFinite && duration >= 0 && duration <= Manifests.Limits.segmentSeconds, "duration \(duration) kept")
                }
                if let start = segment.start { try fuzzCheck(start.isFinite, "start \(start) kept") }
                if let range = segment.range {
                    try fuzzCheck(range.offset >= 0 && range.length >= 0 && range.offset <= Int64.max - range.length, "range \(range) kept")
                }
                // Each identifier adds at most a 20-digit number, a 255-digit padding, or an id or bandwidth from the text.
                try fuzzCheck(segment.uri.utf8.count <= textLength * (Manifests.Limits.templateWidth + textLength + 20) + 1,
                              "a URI of \(segment.uri.utf8.count) bytes from \(textLength) bytes of text")
            }
        }
    }

    static func hls(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        let text = String(decoding: bytes, as: UTF8.self)
        var reading = Manifests.Reading(segmentLimit: segmentLimit)
        var rendition = Manifests.Rendition(name: "v.m3u8", isVideo: true, codecs: [])
        Manifests.media(text, into: &rendition, reading: &reading)
        var renditions = Manifests.multivariant(text, reading: &reading)
        renditions.append(rendition)
        try checkSegments(renditions, reading, textLength: bytes.count)
    }

    static func dash(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        let text = String(decoding: bytes, as: UTF8.self)
        var reading = Manifests.Reading(segmentLimit: segmentLimit)
        let renditions = Manifests.mpd(text, reading: &reading)
        try checkSegments(renditions, reading, textLength: bytes.count)
    }
}
