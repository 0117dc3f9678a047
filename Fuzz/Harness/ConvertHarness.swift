// Conversion both ways. The first byte picks codec, direction and options; the rest is the input.
// Annex-B → length-prefixed: the output is a well-formed length-prefixed stream with as many NAL
// units and bytes as the statistics say, and converting it back (with its record) returns output
// or a typed error. Length-prefixed → Annex-B: streaming (small reads) and in memory agree.
import NALU

enum ConvertHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        let codec: Codec = mode & 1 == 0 ? .h264 : .hevc
        let lengthSize = [4, 2, 1, 4][Int(mode >> 1 & 3)]
        let delimiters: AccessUnitDelimiterPolicy = [.keep, .strip, .insert, .keep][Int(mode >> 4 & 3)]
        let insertion = ParameterSetInsertion.allCases[Int(mode >> 6) % ParameterSetInsertion.allCases.count]

        if mode & 8 == 0 {
            guard var converter = try? AnnexBToLengthPrefixed(codec: codec, options: .init(lengthSize: lengthSize, keepParameterSets: mode & 64 != 0,
                                                                                          accessUnitDelimiters: delimiters)),
                  let output = try? converter.convert(bytes) else { return }
            var count = 0
            let valid = (try? output.withUnsafeBytes { buffer in
                try LengthPrefixed.forEachNALUnit(in: buffer, lengthSize: lengthSize) { _ in count += 1 }
            }) != nil
            try fuzzCheck(valid, "converter output is not a valid length-prefixed stream")
            try fuzzCheck(count == converter.statistics.nalUnitsOut, "\(count) NAL units written, \(converter.statistics.nalUnitsOut) counted")
            try fuzzCheck(Int64(output.count) == converter.statistics.bytesOut, "bytesOut")
            let record = try? converter.decoderConfigurationRecord()
            let parameterSets = record.flatMap { try? DecoderConfigurationRecord(parsing: $0.bytes, codec: codec) }?.parameterSets ?? []
            if var back = try? LengthPrefixedToAnnexB(codec: codec, options: .init(parameterSets: insertion, accessUnitDelimiters: delimiters),
                                                      outOfBandParameterSets: parameterSets) {
                _ = try? back.convert(output, lengthSize: lengthSize)
            }
        } else {
            let options = LengthPrefixedToAnnexB.Options(parameterSets: insertion, accessUnitDelimiters: delimiters)
            var memoryResult: [UInt8]?
            if var converter = try? LengthPrefixedToAnnexB(codec: codec, options: options) {
                memoryResult = try? converter.convert(bytes, lengthSize: lengthSize)
            }
            if var converter = try? LengthPrefixedToAnnexB(codec: codec, options: options),
               var reader = try? LengthPrefixedReader(MemorySource(bytes, chunkSizes: [1 + Int(mode % 7), 13]), lengthSize: lengthSize, chunkSize: 64) {
                var sink = MemorySink()
                let streamed: [UInt8]? = (try? converter.convert(&reader, to: &sink)) == nil ? nil : sink.bytes
                try fuzzCheck(streamed == memoryResult, "streaming and in-memory conversion differ")
            }
        }
    }
}
