// avcC and hvcC: parsing (by codec and auto-detected) and, for every record that parses, the
// round trip: its bytes parse again to the same record; building a record from its parameter
// sets, and a converter from them, returns a value or a typed error. The first byte picks the
// optional steps; the rest is the record.
import NALU

enum RecordsHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())

        if let record = try? AVCDecoderConfigurationRecord(parsing: bytes) {
            let again = try? AVCDecoderConfigurationRecord(parsing: record.bytes)
            try fuzzCheck(again == record, "avcC round trip differs")
            if mode & 1 == 1 {
                _ = try? AVCDecoderConfigurationRecord(sequenceParameterSets: record.sequenceParameterSets,
                                                       pictureParameterSets: record.pictureParameterSets,
                                                       lengthSize: record.lengthSize)
            }
        }
        if let record = try? HEVCDecoderConfigurationRecord(parsing: bytes) {
            let again = try? HEVCDecoderConfigurationRecord(parsing: record.bytes)
            try fuzzCheck(again == record, "hvcC round trip differs")
            if mode & 1 == 1 {
                _ = try? HEVCDecoderConfigurationRecord(parameterSets: record.parameterSets,
                                                        arrayCompleteness: mode & 2 == 2, lengthSize: record.lengthSize)
            }
        }
        if let record = try? DecoderConfigurationRecord(parsing: bytes) {
            if mode & 4 == 4 {
                // The record's parameter sets into the converter, as `nalu convert` does.
                _ = try? LengthPrefixedToAnnexB(codec: record.codec, outOfBandParameterSets: record.parameterSets)
            }
        }
    }
}
