import Foundation
import Testing
import NALU

/// The real streams under `Tests/Fixtures`, made by `Scripts/make-fixtures.sh`, and the facts
/// ffprobe and ffmpeg recorded about them.
struct Fixture: CustomTestStringConvertible, Sendable {
    let name: String

    var testDescription: String { name }

    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Every fixture, by the facts files present.
    static let all: [Fixture] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".ffprobe.json") }
            .map { Fixture(name: String($0.dropLast(".ffprobe.json".count))) }
            .sorted { $0.name < $1.name }
    }()

    static let avc: [Fixture] = all.filter { $0.codec == .h264 }
    static let hevc: [Fixture] = all.filter { $0.codec == .hevc }

    var codec: Codec { name.hasPrefix("hevc") ? .hevc : .h264 }
    var streamExtension: String { codec == .h264 ? "h264" : "h265" }

    func url(_ suffix: String) -> URL { Fixture.directory.appendingPathComponent("\(name).\(suffix)") }
    func bytes(_ suffix: String) throws -> [UInt8] { Array(try Data(contentsOf: url(suffix))) }

    /// The Annex-B stream.
    func annexB() throws -> [UInt8] { try bytes(streamExtension) }
    /// The MP4 samples back to back: 4-byte length-prefixed.
    func lengthPrefixed() throws -> [UInt8] { try bytes("lp") }
    /// The avcC/hvcC record ffmpeg wrote.
    func decoderConfigurationRecord() throws -> [UInt8] { try bytes(codec == .h264 ? "avcC" : "hvcC") }

    /// ffprobe's facts.
    func facts() throws -> Facts {
        try JSONDecoder().decode(Facts.self, from: Data(contentsOf: url("ffprobe.json")))
    }

    struct Facts: Decodable {
        let codec: String
        let profile: String?
        let level: Int?
        let width: Int
        let height: Int
        let pix_fmt: String
        let chroma_format_idc: Int
        let bit_depth: Int
        let r_frame_rate: String?
        let field_order: String?
        let frames: Int
        let packets: Int
        let packet_pos: [Int64]
        let key_packets: [Int]
        let packet_nal_types: [[Int]]
        let pict_types: String
    }
}

/// Collects every NAL unit a streaming reader gives.
func collectNALUnits<S: ByteSource>(_ reader: inout AnnexBReader<S>) throws -> [(offset: Int64, bytes: [UInt8])] {
    var units: [(offset: Int64, bytes: [UInt8])] = []
    try reader.forEachNALUnit { units.append(($0.offset, $0.array)) }
    return units
}
