import NALUMedia

/// An HLS media playlist with what the plain VOD one (``HLSPlaylist/media(_:segmentType:)``)
/// leaves out: low-latency parts (RFC 8216bis 4.4.4.9 `EXT-X-PART`, 4.4.3.7 `EXT-X-PART-INF`,
/// 4.4.3.8 `EXT-X-SERVER-CONTROL`, 4.4.5.3 `EXT-X-PRELOAD-HINT`), byte ranges into one media file
/// per track (4.4.4.2 `EXT-X-BYTERANGE`, 4.4.4.5 `EXT-X-MAP` `BYTERANGE`) and a live sliding
/// window (4.4.3.2 `EXT-X-MEDIA-SEQUENCE`, no `EXT-X-PLAYLIST-TYPE`, no `EXT-X-ENDLIST` until
/// the input ends).
///
/// Parts are listed only for the segments that start within three target durations of the end
/// of the playlist (4.4.4.9: older parts SHOULD be removed), then for the open segment's parts.
/// `PART-HOLD-BACK` is three part targets, the least 4.4.3.8 allows.
public struct HLSMediaPlaylist: Sendable {
    /// The track; its ``PackagedTrack/segments`` are the segments listed (a live window: the last ones).
    public var track: PackagedTrack
    public var segmentType: SegmentType
    /// The media sequence number of the first segment listed.
    public var mediaSequence = 1
    /// Parts of the segment being written (live).
    public var openParts: [PackagedPart] = []
    /// The part to come (live: `EXT-X-PRELOAD-HINT:TYPE=PART`).
    public var preloadHint: String?
    /// Whether the playlist is complete (`EXT-X-ENDLIST`).
    public var ended = true
    /// Whether it is a live playlist (no `EXT-X-PLAYLIST-TYPE:VOD`).
    public var live = false
    /// `EXT-X-TARGETDURATION`, when the segments listed do not decide it (live: the longest
    /// segment so far, which may have left the window).
    public var targetDuration: Int?
    /// Live: the period (``PackagedSegment/period``) and init segment of the open segment's parts.
    public var openPeriod = 0
    public var openInitName: String?

    public init(track: PackagedTrack, segmentType: SegmentType) {
        self.track = track
        self.segmentType = segmentType
    }

    /// `PART-TARGET` (and `EXT-X-PART` `DURATION`) seconds: 6 decimals, trailing zeros dropped.
    static func seconds(_ value: Double) -> String {
        var text = HLSPlaylist.decimal(Int64((value * 1_000_000).rounded()), 1_000_000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// `EXT-X-TARGETDURATION`.
    var target: Int { max(targetDuration ?? 1, HLSPlaylist.targetDuration(track)) }

    /// The index of the first segment whose parts are listed: the first that starts within three
    /// target durations of the playlist's end (4.4.4.9).
    var firstSegmentWithParts: Int {
        let scale = Double(max(track.timescale, 1))
        let total = Double(track.segments.reduce(Int64(0)) { $0 + $1.duration } + openParts.reduce(Int64(0)) { $0 + $1.duration }) / scale
        let partsFrom = total - 3 * Double(target)
        var start = 0.0
        for (index, segment) in track.segments.enumerated() {
            if start + 1e-9 >= partsFrom { return index }
            start += Double(segment.duration) / scale
        }
        return track.segments.count
    }

    /// The playlist text.
    public var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(segmentType == .fmp4 ? 7 : 4)", "#EXT-X-TARGETDURATION:\(target)"]
        if let part = track.partTarget {
            lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=" + Self.seconds(3 * part))
            lines.append("#EXT-X-PART-INF:PART-TARGET=" + Self.seconds(part))
        }
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        // 4.3.3.3: each period change (a parameter-set change, ``PackagedSegment/period``) is a
        // discontinuity; those before the first segment listed are counted here, so a segment
        // keeps its discontinuity sequence number as the window slides (6.2.2).
        let firstPeriod = track.segments.first?.period ?? openPeriod
        if firstPeriod > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(firstPeriod)") }
        if !live { lines.append("#EXT-X-PLAYLIST-TYPE:VOD") }
        if track.segments.allSatisfy(\.startsWithSyncSample), openParts.first?.independent ?? true {
            lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        }
        if let initName = track.segments.first?.initName ?? (track.segments.isEmpty ? openInitName : nil) ?? track.initName {
            if let initBytes = track.initBytes {
                lines.append("#EXT-X-MAP:URI=\"\(initName)\",BYTERANGE=\"\(initBytes)@0\"")
            } else {
                lines.append("#EXT-X-MAP:URI=\"\(initName)\"")
            }
        }
        let partsFrom = firstSegmentWithParts
        var period = firstPeriod
        // 4.4.2.3, 4.4.4.5: a new period starts with `EXT-X-DISCONTINUITY` and its own `EXT-X-MAP`.
        func discontinuity(_ next: Int, initName: String?) {
            guard next != period else { return }
            period = next
            lines.append("#EXT-X-DISCONTINUITY")
            if let map = initName ?? track.initName { lines.append("#EXT-X-MAP:URI=\"\(map)\"") }
        }
        for (index, segment) in track.segments.enumerated() {
            discontinuity(segment.period, initName: segment.initName)
            if index >= partsFrom { lines += segment.parts.map(partLine) }
            lines.append("#EXTINF:\(HLSPlaylist.decimal(segment.duration, track.timescale)),")
            if let offset = segment.byteOffset { lines.append("#EXT-X-BYTERANGE:\(segment.bytes)@\(offset)") }
            lines.append(segment.name)
        }
        if !openParts.isEmpty { discontinuity(openPeriod, initName: openInitName) }
        lines += openParts.map(partLine)
        if let preloadHint, !ended { lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(preloadHint)\"") }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    private func partLine(_ part: PackagedPart) -> String {
        let duration = HLSPlaylist.decimal(part.duration, track.timescale)
        var line = "#EXT-X-PART:DURATION=\(duration),URI=\"\(part.name)\""
        if part.independent { line += ",INDEPENDENT=YES" }
        if let offset = part.byteOffset { line += ",BYTERANGE=\"\(part.bytes)@\(offset)\"" }
        return line
    }
}
