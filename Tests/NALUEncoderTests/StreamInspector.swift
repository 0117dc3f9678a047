import Foundation
import NALU
import NALUEncoder
import Testing

/// What the tests learn from an encoded elementary stream with the core: access units (spec
/// rules), their keyframe class and picture type, and the SPS.
struct StreamSummary {
    var accessUnits: [AccessUnitSummary] = []
    var description: StreamDescription?

    var idrIndices: [Int] { accessUnits.indices.filter { accessUnits[$0].keyframe == .idr } }
    var bPictureCount: Int { accessUnits.filter { $0.pictureType == .b }.count }
    var profileIdc: Int? { description?.profileIdc }
    var levelIdc: Int? { description?.levelIdc }
    var width: Int? { description?.width }
    var height: Int? { description?.height }
    var bitDepth: Int? { description?.bitDepthLuma }
}

enum StreamInspector {
    /// Reads `stream` with the core's streaming readers (in odd-sized chunks) and splits it into
    /// access units with the core's splitter.
    static func inspect(_ stream: [UInt8], codec: Codec, format: StreamFormat = .annexB) throws -> StreamSummary {
        var splitter = AccessUnitSplitter(codec: codec)
        var summary = StreamSummary()
        let source = MemorySource(stream, chunkSizes: [4093, 777, 65536])
        func push(_ unit: NALUnitView) throws {
            if let completed = try splitter.push(unit).completed { summary.accessUnits.append(completed) }
        }
        switch format {
        case .annexB:
            var reader = AnnexBReader(source, chunkSize: 4096)
            try reader.forEachNALUnit(push)
        case .lengthPrefixed:
            var reader = try LengthPrefixedReader(source, lengthSize: 4, chunkSize: 4096)
            try reader.forEachNALUnit(push)
        }
        if let last = splitter.finish() { summary.accessUnits.append(last) }
        summary.description = splitter.parameterSets.streamDescription
        return summary
    }
}

/// Decodes with the ffmpeg CLI and counts the frames it outputs.
enum FFmpeg {
    static func path() throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        Issue.record("ffmpeg not found on PATH; install it (apt-get install ffmpeg) to run the decode checks")
        throw CancellationError()
    }

    /// Frames ffmpeg decodes from `stream` (an elementary stream of `codec`), failing the test
    /// when ffmpeg reports an error.
    static func decodedFrameCount(_ stream: [UInt8], codec: Codec) throws -> Int {
        try decodedFrameCount(stream, fileName: codec == .h264 ? "stream.h264" : "stream.h265",
                              inputFormat: codec == .h264 ? "h264" : "hevc")
    }

    /// Frames ffmpeg decodes from `bytes` written to a file named `fileName` (read as
    /// `inputFormat` when given, else as ffmpeg probes it), failing the test when ffmpeg reports
    /// an error.
    static func decodedFrameCount(_ bytes: [UInt8], fileName: String, inputFormat: String?) throws -> Int {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-encoder-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(fileName)
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = ["-hide_banner", "-nostdin", "-v", "error"] + (inputFormat.map { ["-f", $0] } ?? [])
            + ["-i", file.path, "-f", "framemd5", "-"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errorData, as: UTF8.self)
        #expect(process.terminationStatus == 0, "ffmpeg failed: \(errorText)")
        #expect(errorText.isEmpty, "ffmpeg reported: \(errorText)")
        return String(decoding: outputData, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }
}

/// Encodes `count` test-pattern frames and collects every packet.
struct EncodeRun {
    var packets: [EncodedPacket] = []
    var stream: [UInt8] = []
    var events: [EncoderSession.Event] = []

    mutating func take(_ packet: EncodedPacket) {
        packets.append(packet)
        stream.append(contentsOf: packet.bytes)
    }
}

func encodePattern(_ configuration: EncoderConfiguration, factory: any EncoderBackendFactory, frames: Int,
                   retryPolicy: EncoderSession.RetryPolicy = .init(),
                   during: (EncoderSession, Int) throws -> Void = { _, _ in }) throws -> (EncodeRun, EncoderSession) {
    let session = try EncoderSession(configuration: configuration, factory: factory, retryPolicy: retryPolicy)
    var run = EncodeRun()
    var events: [EncoderSession.Event] = []
    session.eventHandler = { events.append($0) }
    let pattern = try TestPattern(pixelFormat: configuration.pixelFormat, width: configuration.width, height: configuration.height)
    for index in 0..<frames {
        try during(session, index)
        try session.encode(pattern.frame(Int64(index))) { run.take($0) }
    }
    try session.flush { run.take($0) }
    run.events = events
    return (run, session)
}

/// Checks what must hold for every session output: each input pts exactly once, dts strictly
/// increasing and never after pts.
func expectEveryFrameOnce(_ run: EncodeRun, frames: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(run.packets.map(\.pts).sorted() == (0..<Int64(frames)).map { $0 }, sourceLocation: sourceLocation)
    let dts = run.packets.map(\.dts)
    #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }, "dts not strictly increasing: \(dts)", sourceLocation: sourceLocation)
    #expect(run.packets.allSatisfy { $0.dts <= $0.pts }, sourceLocation: sourceLocation)
}
