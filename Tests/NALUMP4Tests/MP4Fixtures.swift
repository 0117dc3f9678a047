import Foundation
import Testing
import NALU
import NALUIO
import NALUMP4

let fixtureDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

/// An MP4/MOV file ffmpeg wrote directly (`Scripts/make-fixtures.sh`, `make_container`), with
/// ffprobe's packet facts and ffmpeg's decoded-frame md5s.
struct ContainerFixture: CustomTestStringConvertible, Sendable {
    let name: String
    let container: String

    var testDescription: String { name }

    static let all: [ContainerFixture] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: fixtureDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".mp4facts.json") }
            .map { String($0.dropLast(".mp4facts.json".count)) }
            .sorted()
            .map { ContainerFixture(name: $0, container: $0.hasPrefix("mov") ? "mov" : "mp4") }
    }()

    var path: String { fixtureDirectory.appendingPathComponent("\(name).\(container)").path }
    var codec: Codec { name.contains("hevc") ? .hevc : .h264 }
    var streamExtension: String { codec == .h264 ? "h264" : "h265" }

    func bytes(_ suffix: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtureDirectory.appendingPathComponent("\(name).\(suffix)")))
    }

    func facts() throws -> Facts {
        try JSONDecoder().decode(Facts.self, from: Data(contentsOf: fixtureDirectory.appendingPathComponent("\(name).mp4facts.json")))
    }

    func reader() throws -> MP4VideoTrackReader<RandomAccessFile> {
        try MP4VideoTrackReader(RandomAccessFile(path: path))
    }

    struct Facts: Decodable {
        let container: String
        let codec: String
        let codec_tag: String
        let stream_index: Int
        let timescale: Int
        let duration_ts: Int
        let r_frame_rate: String
        let packets: Int
        let pts: [Int64]
        let dts: [Int64]
        let durations: [Int64]
        let sizes: [Int]
        let pos: [Int64]
        let key_packets: [Int]
        let frame_md5: [String]
    }
}

/// An elementary-stream fixture and ffmpeg's `-c copy` remux of it to MP4 (`make`).
struct RemuxFixture: CustomTestStringConvertible, Sendable {
    let name: String
    var testDescription: String { name }

    static let all: [RemuxFixture] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: fixtureDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".ffprobe.json") }
            .map { RemuxFixture(name: String($0.dropLast(".ffprobe.json".count))) }
            .sorted { $0.name < $1.name }
    }()

    var codec: Codec { name.hasPrefix("hevc") ? .hevc : .h264 }
    var streamExtension: String { codec == .h264 ? "h264" : "h265" }
    func url(_ suffix: String) -> URL { fixtureDirectory.appendingPathComponent("\(name).\(suffix)") }
    func bytes(_ suffix: String) throws -> [UInt8] { Array(try Data(contentsOf: url(suffix))) }

    func facts() throws -> Facts { try JSONDecoder().decode(Facts.self, from: Data(contentsOf: url("ffprobe.json"))) }

    struct Facts: Decodable {
        let frames: Int
        let packets: Int
        let key_packets: [Int]
        let r_frame_rate: String?
        /// Picture types in output order.
        let pict_types: String
    }
}

/// The NAL units of an Annex-B stream.
func annexBNALUnits(_ bytes: [UInt8]) -> [[UInt8]] { AnnexB.nalUnits(in: bytes).map(Array.init) }

/// Every sample of a reader.
func allSamples<S: RandomAccessByteSource>(_ reader: MP4VideoTrackReader<S>) throws -> [MP4Sample] {
    var samples: [MP4Sample] = []
    try reader.forEachSample { samples.append($0) }
    return samples
}

/// Runs a tool (ffmpeg, ffprobe) and returns its standard output and error and exit status.
func runTool(_ tool: String, _ arguments: [String]) throws -> (stdout: String, stderr: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self), process.terminationStatus)
}

/// A fresh path under the temporary directory.
func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("nalu-mp4-\(UUID().uuidString)-\(name)").path
}

/// The index of the first element where two lists differ (or where the shorter one ends), `nil`
/// when they are equal: a short failure message for long lists of NAL units.
func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> Int? {
    for index in 0..<min(a.count, b.count) where a[index] != b[index] { return index }
    return a.count == b.count ? nil : min(a.count, b.count)
}
