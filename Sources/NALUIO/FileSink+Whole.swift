public import NALU

extension FileSink {
    /// Writes a small file whole (an avcC/hvcC record, a report) at `path` (`"-"`: standard
    /// output) through the same rules as every output: an exclusive temporary name, registered
    /// for removal on signals, renamed into place when written; nothing at `path` on a failure.
    public static func writeWhole(_ bytes: [UInt8], to path: String) throws(NALUError) {
        let file = try FileSink(path: path)
        try file.write(bytes)
        try file.commit()
    }
}
