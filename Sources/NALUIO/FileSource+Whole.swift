public import NALU

extension FileSource {
    /// Reads a small file whole (an avcC/hvcC record, a cut list), refusing anything over
    /// `limit` bytes: memory stays bounded whatever the file holds.
    /// - Throws: ``NALU/NALUError`` `.io` naming `path` when it cannot be opened or read,
    ///   `.tooLarge` when it holds more than `limit` bytes.
    public static func readWhole(path: String, limit: Int) throws(NALUError) -> [UInt8] {
        let source = try FileSource(path: path)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                throw NALUError.converting(error, field: path)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else {
                throw NALUError(.tooLarge, field: path, detail: "more than \(limit) bytes")
            }
        }
        return bytes
    }
}
