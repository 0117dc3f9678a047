// export-settings-sample IN OUT [--hevc] [--passthrough] [--no-audio] [--start S] [--end E]
// [--frames-in-flight N] [--preset P] [--x264-params k=v:k=v] [--cancel-after N]: one ExportSession with the settings given, the report on standard
// output — the export the tests compare with `nalu encode IN -o OUT` in a fresh process.
import Foundation
import NALU
import NALUEncoder
import NALUExport
import NALUMedia

var arguments = Array(CommandLine.arguments.dropFirst())
var settings = ExportSettings()
var encoding = VideoEncoding()
var positional: [String] = []
/// `--cancel-after N`: cancel the export's task once N pictures are written (0: at once), print
/// how long `export()` took to throw `CancellationError`, and exit 130.
var cancelAfter: Int?
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
        case "--x264-params": encoding.parameters = try EncoderParameter.list(arguments.removeFirst(), context: "--x264-params")
        case "--cancel-after": cancelAfter = Int(arguments.removeFirst())
        default: positional.append(argument)
        }
    }
    guard positional.count == 2 else {
        FileHandle.standardError.write(Data("usage: export-settings-sample IN OUT [--hevc] [--passthrough] [--no-audio] [--start S] [--end E]\n".utf8))
        exit(64)
    }
    if case .encode = settings.video { settings.video = .encode(encoding) }
    let session = ExportSession(input: positional[0], output: positional[1], settings: settings)
    let export = Task { try await session.export() }
    if let cancelAfter {
        if cancelAfter > 0 {
            for await step in session.progress where step.frames >= cancelAfter { break }
        }
        let cancelled = ContinuousClock.now
        export.cancel()
        do {
            let report = try await export.value
            print("completed frames=\(report.frames)")
            exit(0)
        } catch is CancellationError {
            let latency = ContinuousClock.now - cancelled
            print("cancelled latency_ms=\(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000)")
            exit(130)
        }
    }
    let report = try await export.value
    print("frames=\(report.frames) copied=\(report.copiedTracks.joined(separator: ";")) warnings=\(report.warnings.count)")
} catch {
    FileHandle.standardError.write(Data("export-settings-sample: error: \(error)\n".utf8))
    exit(1)
}
