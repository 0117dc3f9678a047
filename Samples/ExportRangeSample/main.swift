// export-range-sample IN START END OUT: the pictures shown from START to END (seconds) copied
// frame-exactly with their audio — AVAssetExportSession with a timeRange and the passthrough
// preset, in nalu: only the partial groups of pictures at the ends are re-encoded (smart cut).
import Foundation
import NALUExport
import NALUMedia

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: export-range-sample IN START END OUT\n".utf8))
    exit(64)
}
do {
    var settings = ExportSettings()
    settings.video = .passthrough
    settings.start = try MediaTime(parsing: arguments[1], field: "START")
    settings.end = try MediaTime(parsing: arguments[2], field: "END")
    let report = try await ExportSession(input: arguments[0], output: arguments[3], settings: settings).export()
    print("\(report.output): \(report.frames) pictures")
} catch {
    FileHandle.standardError.write(Data("export-range-sample: error: \(error)\n".utf8))
    exit(1)
}
