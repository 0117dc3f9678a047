/// Tells a transport stream by its content: `sync_byte` 0x47 at a stride of 188 bytes, or at
/// offset 4 of a stride of 192 (M2TS, whose packets start with a 4-byte `TP_extra_header`),
/// over several packets — whatever the file is called.
public enum TransportStreamDetection {
    /// Sync bytes in a row that make a transport stream (fewer when the input is shorter).
    public static let packetsToCheck = 5

    /// The packet size (188 or 192) of a transport stream whose first bytes are `prefix`, or
    /// `nil`. Up to one packet of leading bytes may come before the first sync byte. An input
    /// too short for ``packetsToCheck`` packets needs every packet it holds (at least 2) to be in
    /// sync, or 1 when `hinted` (the file name says TS).
    public static func packetSize(of prefix: UnsafeRawBufferPointer, hinted: Bool = false) -> Int? {
        for size in [TransportStream.packetSize, TransportStream.timestampedPacketSize] {
            let syncOffset = size - TransportStream.packetSize
            for first in 0..<size {
                var found = 0
                var position = first + syncOffset
                while found < packetsToCheck, position < prefix.count, prefix[position] == TransportStream.syncByte {
                    found += 1
                    position += size
                }
                let complete = found == packetsToCheck || position >= prefix.count
                if complete && (found >= 2 || (hinted && found == 1)) { return size }
                if first + size >= prefix.count { break }
            }
        }
        return nil
    }

    /// File name extensions of transport streams.
    public static let extensions = [".ts", ".m2ts", ".mts", ".m2t", ".tsv", ".trp"]

    /// Whether `path` names a transport stream by its extension.
    public static func hasExtension(_ path: String) -> Bool {
        let lower = path.lowercased()
        return extensions.contains(where: lower.hasSuffix)
    }
}
