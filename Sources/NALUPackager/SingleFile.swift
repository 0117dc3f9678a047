#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUMP4
import NALUMedia

extension Packager {
    /// `ticks` of `timescale` that a part may last at most: ``PackagerOptions/partDuration``
    /// rounded down, so a part never exceeds the `PART-TARGET` the playlist states.
    func partTicks(_ timescale: UInt32) -> Int64? {
        guard options.segmentType == .fmp4, let part = options.partDuration else { return nil }
        return max(1, Int64((part.doubleValue * Double(timescale)).rounded(.down)))
    }

    /// What follows a track's segments: its part target, its unlisted parts removed, its
    /// segments joined (``PackagerOptions/singleFile``).
    func finishTrack(_ track: inout PackagedTrack) throws {
        // Parts are CMAF chunks: TS segments have none.
        track.partTarget = options.segmentType == .fmp4 ? options.partDuration?.doubleValue : nil
        try removeUnlistedParts(&track)
        if options.singleFile { try joinSegments(&track) }
    }

    /// After a static package with parts: the part files whose parts the playlist does not list
    /// (older than three target durations from its end, RFC 8216bis 4.4.4.9) are removed.
    func removeUnlistedParts(_ track: inout PackagedTrack) throws {
        guard track.partTarget != nil else { return }
        let listedFrom = HLSMediaPlaylist(track: track, segmentType: options.segmentType).firstSegmentWithParts
        for index in track.segments.indices where index < listedFrom {
            for part in track.segments[index].parts { try folder.remove(part.name) }
            track.segments[index].parts = []
        }
    }

    /// `--single-file`: joins a track's init segment and media segments into one file,
    /// `<name>.mp4` (or `.ts`), and addresses them by byte range. An fMP4 file gets a segment
    /// index (`sidx`, ISO/IEC 14496-12 8.16.3) between the init segment and the first segment,
    /// one reference per segment, for DASH `SegmentBase@indexRange` (ISO/IEC 23009-1 5.3.9.2,
    /// the on-demand profile 8.3). The separate files are removed once the joined one is in place.
    func joinSegments(_ track: inout PackagedTrack) throws {
        let fileName = track.name + (options.segmentType == .fmp4 ? ".mp4" : ".ts")
        let sink = try folder.open(fileName)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        func copy(_ name: String) throws -> Int64 {
            let source = try FileSource(path: folder.file(name))
            var total: Int64 = 0
            while true {
                let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if count <= 0 { return total }
                try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                total += Int64(count)
            }
        }
        var removed: [String] = []
        if let initName = track.initName {
            track.initBytes = try copy(initName)
            removed.append(initName)
            let index = try Self.segmentIndex(track)
            track.indexOffset = sink.bytesWritten
            track.indexSize = Int64(index.count)
            try sink.write(index)
            track.initName = fileName
        }
        for position in track.segments.indices {
            let offset = sink.bytesWritten
            let bytes = try copy(track.segments[position].name)
            guard bytes == track.segments[position].bytes else {
                throw NALUError(.io, field: track.segments[position].name, detail: "\(bytes) bytes read back; \(track.segments[position].bytes) written")
            }
            removed.append(track.segments[position].name)
            track.segments[position].name = fileName
            track.segments[position].byteOffset = offset
            // Parts: byte ranges of their segment's (its bytes are theirs, one after the other).
            var partOffset = offset + bytes - track.segments[position].parts.reduce(Int64(0)) { $0 + $1.bytes }
            for index in track.segments[position].parts.indices {
                removed.append(track.segments[position].parts[index].name)
                track.segments[position].parts[index].name = fileName
                track.segments[position].parts[index].byteOffset = partOffset
                partOffset += track.segments[position].parts[index].bytes
            }
        }
        try sink.commit()
        for name in removed { try folder.remove(name) }
    }

    /// A `sidx` (version 1) of `track`'s segments: each a reference of type 0 (media) with its
    /// size and duration, starting with SAP type 1 when its first sample is a sync sample;
    /// `earliest_presentation_time` is the first segment's on the media timeline (the edit's
    /// `media_time` added back), `first_offset` 0 (the first segment follows the index).
    static func segmentIndex(_ track: PackagedTrack) throws -> [UInt8] {
        guard track.segments.count <= Int(UInt16.max) else {
            throw NALUError(.tooLarge, field: "sidx reference_count", detail: "\(track.segments.count) segments; a sidx holds 65535")
        }
        var references: [(size: UInt32, duration: UInt32, startsWithSAP: Bool)] = []
        for segment in track.segments {
            guard segment.bytes < 1 << 31, segment.duration >= 0, segment.duration <= Int64(UInt32.max) else {
                throw NALUError(.tooLarge, field: "sidx referenced_size", detail: "\(segment.name): \(segment.bytes) bytes, \(segment.duration) ticks")
            }
            references.append((UInt32(segment.bytes), UInt32(segment.duration), segment.startsWithSyncSample))
        }
        let earliest = UInt64(max(0, (track.segments.first?.presentationTime ?? 0) &+ track.presentationOffset))
        return CMAFBoxes.segmentIndex(referenceID: track.kind == .video ? 1 : 2, timescale: track.timescale,
                                      earliestPresentationTime: earliest, references: references)
    }
}
