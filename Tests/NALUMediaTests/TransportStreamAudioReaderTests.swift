import Foundation
import Testing
import NALU
import NALUTS
@testable import NALUMedia

/// ``TransportStreamAudioReader`` and ``MediaSource/transportStreamAudioStreams()`` on ffmpeg's
/// transport streams (Scripts/make-audio-fixtures.sh): every audio stream of the program is
/// found with its coding and language, and each stream's frames are ffmpeg's packets (`-c copy`
/// `-f data` of that stream, byte for byte, AAC without its ADTS headers) with ffprobe's PTS.
@Suite struct TransportStreamAudioReaderTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture("audio/" + name) }

    static func tool(_ name: String, _ arguments: [String]) throws -> Data {
        let path = ["/usr/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? name
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(name) \(arguments)")
        return try Data(contentsOf: output)
    }

    @Test(arguments: [("ts_ac3.ts", [TransportStreamAudioReader.Coding.ac3], [nil]), ("ts_ac3_dvb.ts", [.ac3], [nil]),
                      ("ts_mp2.ts", [.mpegAudio], [nil]), ("three_aac.ts", [.aac, .aac, .aac], ["eng", "fra", "deu"])]
          as [(String, [TransportStreamAudioReader.Coding], [String?])])
    func framesAreFFmpegsPackets(name: String, codings: [TransportStreamAudioReader.Coding], languages: [String?]) throws {
        let path = Self.fixture(name)
        let readers = try MediaSource(path: path).transportStreamAudioStreams()
        #expect(readers.map(\.coding) == codings)
        #expect(readers.map(\.stream.language) == languages)
        for (index, reader) in readers.enumerated() {
            var bytes: [UInt8] = []
            var times: [Int64] = []
            while let frame = try reader.next() {
                bytes += frame.frame
                times.append(frame.pts)
            }
            #expect(reader.skippedBytes == 0)
            let filter = reader.coding == .aac ? ["-bsf:a", "aac_adtstoasc"] : []
            let expected = try Self.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:\(index)", "-c", "copy"] + filter + ["-f", "data", "-"])
            #expect(bytes == [UInt8](expected), "\(name) stream \(index): \(bytes.count) bytes, ffmpeg \(expected.count)")
            let probe = try Self.tool("ffprobe", ["-v", "error", "-select_streams", "a:\(index)", "-show_entries", "packet=pts", "-of", "csv=p=0", path])
            let pts = String(decoding: probe, as: UTF8.self).split(separator: "\n").compactMap { Int64($0.split(separator: ",").first ?? "") }
            #expect(times.count > 100 && times == pts, "\(name) stream \(index): \(times.prefix(3)) vs ffprobe \(pts.prefix(3))")
        }
    }
}
