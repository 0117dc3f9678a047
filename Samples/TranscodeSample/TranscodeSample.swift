// transcode-sample IN OUT [--hevc]: the video re-encoded (H.264, or H.265 with --hevc), the
// audio copied, every picture at its own time — AVAssetReader → AVAssetWriter in nalu, through
// the public ExportSession. Ctrl-C cancels the task: exit 130, no OUT, no temporary file.
import Foundation
import NALU
import NALUExport

@main
struct TranscodeSample {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let hevc = arguments.contains("--hevc")
        arguments.removeAll { $0 == "--hevc" }
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: transcode-sample IN OUT [--hevc]\n".utf8))
            exit(64)
        }
        var settings = ExportSettings()
        settings.video = .encode(VideoEncoding(codec: hevc ? .hevc : .h264))
        let session = ExportSession(input: arguments[0], output: arguments[1], settings: settings)
        let transcode = Task { try await session.export() }
        // Ctrl-C cancels the task (export() throws CancellationError; nothing is committed).
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { transcode.cancel() }
        interrupt.resume()
        do {
            let report = try await transcode.value
            print("\(report.output): \(report.frames) pictures; copied \(report.copiedTracks.joined(separator: ", "))")
        } catch is CancellationError {
            FileHandle.standardError.write(Data("transcode-sample: cancelled\n".utf8))
            exit(130)
        } catch {
            FileHandle.standardError.write(Data("transcode-sample: error: \(error)\n".utf8))
            exit(1)
        }
    }
}
