import NALU
import NALUIO
import NALUMP4

/// MP4/MOV input for the commands that read streams: detection, and the track's NAL units with
/// their file offsets.
enum MP4Input {
    /// Extensions taken as MP4/MOV without looking.
    static let extensions = [".mp4", ".mov", ".m4v", ".3gp", ".3g2", ".mp4v", ".qt"]

    /// Box types an ISO BMFF or QuickTime file starts with.
    static let leadingBoxes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"]

    /// Whether `path` is an MP4/MOV file: by extension, or a regular file whose first 8 bytes
    /// look like a box header of a leading box type. Standard input is never MP4 (not seekable).
    static func isMP4(_ path: String) -> Bool {
        guard path != "-" else { return false }
        let lower = path.lowercased()
        if extensions.contains(where: lower.hasSuffix) { return true }
        guard let file = try? RandomAccessFile(path: path), file.size >= 8,
              let header = try? file.readBytes(at: 0, count: 8, field: "box header") else { return false }
        let type = String(decoding: header[4..<8], as: UTF8.self)
        let size = UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3])
        return leadingBoxes.contains(type) && (size == 0 || size == 1 || size >= 8)
    }

    /// Opens the first H.264/H.265 video track of `path`.
    static func open(_ path: String) throws -> MP4VideoTrackReader<RandomAccessFile> {
        try MP4VideoTrackReader(RandomAccessFile(path: path))
    }

    /// The frame rate the track's timing implies: its timescale over the first sample's
    /// duration (constant-frame-rate files), or `nil`.
    static func frameRate(_ reader: MP4VideoTrackReader<RandomAccessFile>) throws -> Rational? {
        var iterator = reader.samples()
        guard let first = try iterator.next(), first.duration > 0 else { return nil }
        return Rational(Int64(reader.track.timescale), Int64(first.duration)).reduced
    }

    /// "MP4" or "QuickTime".
    static func containerName(_ reader: MP4VideoTrackReader<RandomAccessFile>) -> String {
        reader.fileType?.isQuickTime == true ? "QuickTime" : "MP4"
    }
}
