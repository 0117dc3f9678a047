// append-clips-sample OUT IN…: the inputs end to end with their audio — AVMutableComposition
// (insertTimeRange of each asset's whole range) exported by AVAssetExportSession, in nalu: the
// clips are joined without re-encoding where their codec allows, a clip of another codec is
// re-encoded into the first one's.
import Foundation
import NALUExport
import NALUSmartCut

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: append-clips-sample OUT IN…\n".utf8))
    exit(64)
}
var composition = Composition()
for input in arguments.dropFirst() { composition.append(input) }
do {
    let report = try await CompositionSession(composition: composition, output: arguments[0]).export()
    print("\(report.output): \(report.frames) pictures")
} catch {
    FileHandle.standardError.write(Data("append-clips-sample: error: \(error)\n".utf8))
    exit(1)
}
