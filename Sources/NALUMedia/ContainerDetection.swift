public import NALU
import NALUTS

/// What an input's container is, told from its content (and, for the codec of a raw stream
/// whose headers do not say, its file name).
public enum ContainerDetection {
    /// Box types an ISO BMFF (ISO/IEC 14496-12 4.2) or QuickTime file starts with.
    static let leadingBoxes: Set<[UInt8]> = Set(["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"].map { Array($0.utf8) })

    /// File name extensions of MP4/MOV files.
    public static let mp4Extensions = [".mp4", ".mov", ".m4v", ".3gp", ".3g2", ".mp4v", ".qt"]

    /// Whether `prefix` (the first bytes of an input) starts like an MP4/MOV file: a box header
    /// (32-bit size 0, 1 or at least 8, then a leading box type).
    public static func looksLikeMP4(_ prefix: some Collection<UInt8>) -> Bool {
        let head = Array(prefix.prefix(8))
        guard head.count == 8 else { return false }
        let size = UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3])
        return leadingBoxes.contains(Array(head[4..<8])) && (size == 0 || size == 1 || size >= 8)
    }

    /// Whether `path` names an MP4/MOV file by its extension.
    public static func hasMP4Extension(_ path: String) -> Bool {
        let lower = path.lowercased()
        return mp4Extensions.contains(where: lower.hasSuffix)
    }

    /// File name extensions of MPEG transport streams (the content decides, see
    /// ``transportStreamPacketSize(_:path:)``; the name only helps a one-packet input).
    public static var transportStreamExtensions: [String] { TransportStreamDetection.extensions }

    /// The packet size (188, or 192 for M2TS) when `prefix` (the first bytes of an input) holds
    /// `sync_byte` 0x47 at that stride over several packets; `nil` otherwise.
    public static func transportStreamPacketSize(_ prefix: [UInt8], path: String = "") -> Int? {
        prefix.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0, hinted: TransportStreamDetection.hasExtension(path)) }
    }

    /// The codec a raw stream's file name suggests: `.h264`/`.264`/`.avc`/`.jsv`/`.26l` or
    /// `.h265`/`.265`/`.hevc`/`.bit`.
    public static func codec(fromExtension path: String) -> Codec? {
        let lower = path.lowercased()
        if [".h264", ".264", ".avc", ".jsv", ".26l"].contains(where: lower.hasSuffix) { return .h264 }
        if [".h265", ".265", ".hevc", ".bit"].contains(where: lower.hasSuffix) { return .hevc }
        return nil
    }
}
