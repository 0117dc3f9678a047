import Foundation
import NALU
import NALUDecoder
import NALUMedia

/// Where the fixtures are.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Runs a tool from PATH; its standard output and status.
func runTool(_ tool: String, _ arguments: [String]) throws -> (stdout: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
}

/// ffmpeg's per-frame md5s of `path` (`-f framemd5`, in the decoder's own pixel format, every
/// decoded frame: `-fps_mode passthrough`).
func ffmpegFrameMD5s(_ path: String) throws -> [String] {
    let result = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
    return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
        line.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// The access units of `source` with their NAL units, as a decoder takes them: the library's
/// one grouping (``MediaSource/forEachCodedAccessUnit(maxAccessUnitBytes:damaged:_:)``); a
/// damaged NAL unit ends the walk.
func forEachCodedAccessUnit(_ source: MediaSource, _ body: (CodedAccessUnit) throws -> Void) throws {
    try source.forEachCodedAccessUnit(damaged: { throw $0.error }, body)
}

/// Decodes the whole of `path` with `factory`; the frames and the session.
func decodeAll(_ path: String, factory: any DecoderBackendFactory, threadCount: Int = 0,
               events: ((DecoderSession.Event) -> Void)? = nil) throws -> (frames: [DecodedFrame], session: DecoderSession) {
    let source = try MediaSource(path: path)
    let session = try DecoderSession(codec: source.codec, parameterSets: source.outOfBandParameterSets, factory: factory,
                                     threadCount: threadCount)
    session.eventHandler = events
    var frames: [DecodedFrame] = []
    try forEachCodedAccessUnit(source) { unit in
        do {
            frames += try session.decode(unit)
        } catch let error as DecoderError where error.code == .decodeFailed {
            // Counted in the session's problems.
        }
    }
    frames += session.flush()
    return (frames, session)
}

extension DecodedFrame {
    /// The md5 of the planes as ffmpeg's rawvideo lays them out (what framemd5 hashes).
    var md5: String { withBytes { MD5.hex($0) } }
}
