public import NALU
import NALUIO
public import NALURTP

extension SessionDescription {
    /// Reads and parses the SDP file (RFC 8866) at `path`, at most ``SessionDescription/maxSize`` bytes.
    /// - Throws: `NALUError` from opening or reading the file; `NALUError` with field `SDP`
    ///   for a file too large or a description that does not parse (its error in the detail).
    public init(readingFile path: String) throws(NALUError) {
        let source = try FileSource(path: path)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try NALUError.typed(field: path) { try chunk.withUnsafeMutableBytes { try source.read(into: $0) } }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= SessionDescription.maxSize else {
                throw NALUError(.tooLarge, field: "SDP", byteOffset: Int64(SessionDescription.maxSize),
                                detail: "larger than \(SessionDescription.maxSize) bytes: not an SDP description")
            }
        }
        do {
            try self.init(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw NALUError(.invalidValue, field: "SDP", detail: error.description)
        }
    }
}
