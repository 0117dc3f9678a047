// export-settings-sample IN OUT [--hevc] [--passthrough] [--no-audio] [--start S] [--end E]
// [--frames-in-flight N] [--preset P]: one ExportSession with the settings given, the report on standard
// output — the export the tests compare with `nalu encode IN -o OUT` in a fresh process.
import Foundation
import NALU
import NALUExport
import NALUMedia

var arguments = Array(CommandLine.arguments.dropFirst())
var settings = ExportSettings()
var encoding = VideoEncoding()
var positional: [String] = []
do {
    while !arguments.isEmpty {
        let argument = arguments.removeFirst()
        switch argument {
        case "--hevc": encoding.codec = .hevc
        case "--passthrough": settings.video = .passthrough
        case "--no-audio": settings.audio = .none
        case "--start": settings.start = try MediaTime(parsing: arguments.removeFirst(), field: "--start")
        case "--end": settings.end = try MediaTime(parsing: arguments.removeFirst(), field: "--end")
        case "--frames-in-flight": settings.framesInFlight = Int(arguments.removeFirst()) ?? 4
        case "--preset": encoding.preset = arguments.removeFirst()
        default: positional.append(argument)
        }
    }
    guard positional.count == 2 else {
        FileHandle.standardError.write(Data("usage: export-settings-sample IN OUT [--hevc] [--passthrough] [--no-audio] [--start S] [--end E]\n".utf8))
        exit(64)
    }
    if case .encode = settings.video { settings.video = .encode(encoding) }
    let report = try await ExportSession(input: positional[0], output: positional[1], settings: settings).export()
    print("frames=\(report.frames) copied=\(report.copiedTracks.joined(separator: ";")) warnings=\(report.warnings.count)")
} catch {
    FileHandle.standardError.write(Data("export-settings-sample: error: \(error)\n".utf8))
    exit(1)
}
