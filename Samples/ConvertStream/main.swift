// Converts a stream with the NALU library API (not the CLI): Annex-B → length-prefixed samples
// plus an avcC/hvcC record, then back to Annex-B, checking that the NAL units survive.
//
//   swift run convert-stream-sample Tests/Fixtures/avc_high_bframes.h264 /tmp/out
import NALU
import NALUIO

let arguments = Array(CommandLine.arguments.dropFirst())
let input = arguments.first ?? "Tests/Fixtures/hevc_open_gop.h265"
let outputBase = arguments.count > 1 ? arguments[1] : "/tmp/nalu-sample"

do {
    // 1. Annex-B → length-prefixed, streaming from the file to the output file.
    var reader = try ElementaryStreamReader(try FileSource(path: input))
    let codec = reader.codec
    var toSamples = try AnnexBToLengthPrefixed(codec: codec, options: .init(lengthSize: 4, keepParameterSets: false))
    let samples = try FileSink(path: outputBase + ".lp")
    var sink = samples
    try reader.forEachNALUnit { unit in try toSamples.convert(unit, to: &sink) }
    try samples.commit()

    // The parameter sets left the stream: they are in the record (hvc1: array_completeness 1).
    let record = try toSamples.decoderConfigurationRecord().bytes
    let recordFile = try FileSink(path: outputBase + (codec == .h264 ? ".avcC" : ".hvcC"))
    try recordFile.write(record)
    try recordFile.commit()
    print("\(toSamples.statistics.nalUnitsIn) NAL units → \(toSamples.statistics.nalUnitsOut) samples' NAL units, record of \(record.count) bytes")

    // 2. Back to Annex-B: parameter sets from the record go before every keyframe.
    let parsed = try DecoderConfigurationRecord(parsing: record, codec: codec)
    var toAnnexB = try LengthPrefixedToAnnexB(codec: codec, options: .init(parameterSets: .keyframes),
                                              outOfBandParameterSets: parsed.parameterSets)
    var lengthPrefixed = try LengthPrefixedReader(try FileSource(path: outputBase + ".lp"), lengthSize: parsed.lengthSize)
    let annexB = try FileSink(path: outputBase + (codec == .h264 ? ".h264" : ".h265"))
    var annexBSink = annexB
    try toAnnexB.convert(&lengthPrefixed, to: &annexBSink)
    try annexB.commit()
    print("\(toAnnexB.statistics.accessUnits) access units, \(toAnnexB.statistics.parameterSetsInserted) parameter sets inserted")

    // 3. Same NAL units as the input?
    var original: [[UInt8]] = []
    var again: [[UInt8]] = []
    var first = AnnexBReader(try FileSource(path: input))
    try first.forEachNALUnit { original.append($0.array) }
    var second = AnnexBReader(try FileSource(path: outputBase + (codec == .h264 ? ".h264" : ".h265")))
    try second.forEachNALUnit { again.append($0.array) }
    print(original == again ? "round trip: identical NAL units" : "round trip: NAL units differ")
} catch {
    print("error: \(error)")
}
