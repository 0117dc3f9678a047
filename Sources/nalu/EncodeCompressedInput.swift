#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import NALUExport
import NALUMedia

/// Compressed input to `nalu encode`: told by content (``isCompressed(_:)``) and decoded by
/// ``NALUExport/DecodedVideoInput``.
enum CompressedInput {
    /// Whether `path` is an input nalu reads (told by content: MP4/MOV, MPEG-TS, Annex-B,
    /// length-prefixed H.264/H.265).
    /// Raw video is refused as before (a usage error asking for its size): an elementary stream
    /// must be named as one (.h264, .265…) or start with a start code; MP4/MOV and MPEG-TS are
    /// told by their structure.
    static func isCompressed(_ path: String) -> Bool {
        var options = MediaSourceOptions()
        options.readsAhead = false
        guard let source = try? MediaSource(path: path, options: options) else { return false }
        if source.container.isMP4 || source.container.isTransportStream { return true }
        if Naming.codec(forExtensionOf: path) != nil { return true }
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0xFF, count: 4)
        let count = fread(&head, 1, 4, file)
        return count == 4 && head[0] == 0 && head[1] == 0 && (head[2] == 1 || (head[2] == 0 && head[3] == 1))
    }
}

/// `--scale WxH`: a size, `-1` for a side that keeps the display aspect ratio.
struct ScaleSize: ExpressibleByArgument, Hashable {
    var width: Int?
    var height: Int?

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width == -1 || (1...16384).contains(width), height == -1 || (1...16384).contains(height), width != -1 || height != -1 else { return nil }
        self.width = width == -1 ? nil : width
        self.height = height == -1 ? nil : height
    }
}

