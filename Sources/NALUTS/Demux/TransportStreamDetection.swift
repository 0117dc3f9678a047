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
        return damagedPacketSize(of: prefix)
    }

    /// Packets looked at when the first ones are damaged (``damagedPacketSize(of:)``).
    public static let packetsToCheckWhenDamaged = 64

    /// The packet size of a transport stream with a few damaged packets near the start (issue 32):
    /// at one offset in the first packet, at least 7 of every 8 of the first
    /// ``packetsToCheckWhenDamaged`` packets in `prefix` (at least 16) have their `sync_byte`, and
    /// 5 in a row. Random bytes or an elementary stream do not (each position is 0x47 one time
    /// in 256).
    static func damagedPacketSize(of prefix: UnsafeRawBufferPointer) -> Int? {
        for size in [TransportStream.packetSize, TransportStream.timestampedPacketSize] {
            let syncOffset = size - TransportStream.packetSize
            let available = min(packetsToCheckWhenDamaged, (prefix.count - syncOffset) / size)
            guard available >= 16 else { continue }
            for first in 0..<size {
                var found = 0
                var run = 0
                var longest = 0
                for index in 0..<available {
                    let position = first + syncOffset + index * size
                    guard position < prefix.count else { break }
                    if prefix[position] == TransportStream.syncByte {
                        found += 1
                        run += 1
                        longest = max(longest, run)
                    } else {
                        run = 0
                    }
                }
                if found * 8 >= available * 7 && longest >= packetsToCheck { return size }
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
