public import NALU
public import NALUMP4

/// A track of an MP4/MOV file other than the video track read: what a conversion to an
/// elementary stream (or to a one-track MP4) leaves out.
public struct MP4OtherTrack: Hashable, Sendable, CustomStringConvertible {
    /// `tkhd` track_ID.
    public var trackID: UInt32
    /// `hdlr` handler_type: `soun`, `vide`, `text`, `subt`, `meta`, ….
    public var handler: String
    /// The first sample entry's type (`mp4a`, `avc1`, …), if any.
    public var sampleEntry: String?

    /// "track 2 (soun, mp4a)".
    public var description: String {
        "track \(trackID) (\(handler)" + (sampleEntry.map { ", \($0)" } ?? "") + ")"
    }

    /// The tracks of `reader`'s movie other than its video track, in file order. Boxes that do not
    /// parse are skipped: this list is informative.
    public static func list(in reader: MP4VideoTrackReader<some RandomAccessByteSource>) -> [MP4OtherTrack] {
        let source = reader.source
        guard let traks = try? MP4BoxHeader.children(of: reader.movieBox, in: source, depth: 1) else { return [] }
        var tracks: [MP4OtherTrack] = []
        for trak in traks where trak.type == FourCC("trak") {
            guard let children = try? MP4BoxHeader.children(of: trak, in: source, depth: 2),
                  let tkhd = children.first(where: { $0.type == FourCC("tkhd") }),
                  let trackID = try? Self.trackID(tkhd, in: source),
                  trackID != reader.track.trackID else { continue }
            var handler = "?"
            var entry: String?
            if let mdia = children.first(where: { $0.type == FourCC("mdia") }),
               let media = try? MP4BoxHeader.children(of: mdia, in: source, depth: 3) {
                if let hdlr = media.first(where: { $0.type == FourCC("hdlr") }), var payload = try? MP4BoxPayloadReader(hdlr, in: source, limit: 1 << 16) {
                    _ = try? payload.fullBoxHeader()
                    try? payload.skip(4, "pre_defined")
                    if let type = try? payload.fourCC("handler_type") { handler = type.description }
                }
                entry = Self.firstSampleEntry(media, in: source)
            }
            tracks.append(MP4OtherTrack(trackID: trackID, handler: handler, sampleEntry: entry))
        }
        return tracks
    }

    /// 8.3.2 Track Header Box: track_ID after the times (64-bit in version 1).
    private static func trackID(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) -> UInt32 {
        var payload = try MP4BoxPayloadReader(box, in: source, limit: 1 << 12)
        let (version, _) = try payload.fullBoxHeader()
        try payload.skip(version == 1 ? 16 : 8, "creation_time, modification_time")
        return try payload.u32("track_ID")
    }

    /// minf → stbl → stsd: the first entry's type.
    private static func firstSampleEntry(_ media: [MP4BoxHeader], in source: some RandomAccessByteSource) -> String? {
        guard let minf = media.first(where: { $0.type == FourCC("minf") }),
              let stbl = try? MP4BoxHeader.children(of: minf, in: source, depth: 4).first(where: { $0.type == FourCC("stbl") }),
              let stsd = try? MP4BoxHeader.children(of: stbl, in: source, depth: 5).first(where: { $0.type == FourCC("stsd") }),
              var payload = try? MP4BoxPayloadReader(stsd, in: source, limit: 1 << 16) else { return nil }
        guard (try? payload.fullBoxHeader()) != nil, let count = try? payload.u32("entry_count"), count > 0,
              (try? payload.u32("size")) != nil, let type = try? payload.fourCC("type") else { return nil }
        return type.description.trimmingCharacters(in: " ")
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = Substring(self)
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
