public import NALU

extension DecoderConfigurationRecord {
    /// Reads and parses an avcC/hvcC record file (`--extradata`) of at most 1 MiB: as `codec`'s
    /// record when given, else told by its content (ISO/IEC 14496-15 5.3.3.1, 8.3.3.1).
    /// - Throws: ``NALU/NALUError``; a parse error's field is prefixed with `path` (`x.avcC:
    ///   numOfSequenceParameterSets`), a read error names the file.
    public init(contentsOf path: String, codec: Codec?) throws(NALUError) {
        let bytes = try FileSource.readWhole(path: path, limit: 1 << 20)
        do {
            if let codec { self = try DecoderConfigurationRecord(parsing: bytes, codec: codec) } else { self = try DecoderConfigurationRecord(parsing: bytes) }
        } catch {
            throw NALUError(error.code, field: "\(path): \(error.field)", byteOffset: error.byteOffset, detail: error.detail)
        }
    }
}
