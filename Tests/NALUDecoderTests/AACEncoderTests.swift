import Foundation
import NALUAVCodec
import Testing

/// `AACEncoder` (issue 39 item 7: the live sample's microphone): a second of a 1 kHz tone comes
/// out as AAC-LC frames of 1024 samples, timed from −priming, that ffmpeg decodes back to that
/// tone at its level.
@Suite("AACEncoder", .serialized)
struct AACEncoderTests {
    /// An ADTS header (ISO/IEC 13818-7 6.2.1) for a raw AAC-LC frame of `length` bytes.
    static func adtsHeader(length: Int, rateIndex: Int, channels: Int) -> [UInt8] {
        let total = length + 7
        return [0xFF, 0xF1, UInt8(1 << 6 | rateIndex << 2 | channels >> 2), UInt8((channels & 3) << 6 | total >> 11),
                UInt8((total >> 3) & 0xFF), UInt8((total & 7) << 5 | 0x1F), 0xFC]
    }

    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-aac-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(arguments)")
        return try Data(contentsOf: output)
    }

    @Test("1 s of a 1 kHz tone: 48 frames from −1024, decoded by ffmpeg to 1 kHz at its level")
    func tone() throws {
        let encoder = try AACEncoder(sampleRate: 48_000, channels: 1, bitRate: 128_000)
        #expect(encoder.priming == 1024)
        // AAC LC, 48 kHz (index 3), mono (libavcodec may add the explicit "no SBR" sync extension).
        #expect(encoder.audioSpecificConfig.prefix(2) == [0x11, 0x88])
        var packets: [AACPacket] = []
        // In uneven pieces, as a microphone delivers them.
        var sample = 0
        for size in [100, 2000, 777, 45_123] {
            let piece = (sample..<(sample + size)).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
            packets += try encoder.encode([piece])
            sample += size
        }
        #expect(sample == 48_000)
        packets += try encoder.flush()
        // 47 frames of input (the last padded) and the priming frame.
        #expect(packets.count == 48)
        #expect(packets.map(\.pts) == (0..<48).map { Int64($0 - 1) * 1024 })
        #expect(packets.allSatisfy { $0.duration == 1024 && !$0.bytes.isEmpty })

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-aac-\(UUID().uuidString).aac")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(packets.flatMap { Self.adtsHeader(length: $0.bytes.count, rateIndex: 3, channels: 1) + $0.bytes }).write(to: file)
        let probe = String(decoding: try Self.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,profile,sample_rate,channels",
                                                   "-of", "csv=p=0", file.path]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "aac,LC,48000,1")
        let raw = try Self.run(["ffmpeg", "-nostdin", "-v", "error", "-i", file.path, "-f", "f32le", "-ac", "1", "-"])
        let decoded = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(decoded.count >= 48_000)
        // The middle half second: its level (RMS of 0.5·sin is 0.354) and its frequency (zero
        // crossings: 2 per period).
        let middle = decoded[12_000..<36_000].map(Double.init)
        let rms = (middle.reduce(0) { $0 + $1 * $1 } / Double(middle.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.02, "RMS \(rms)")
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(crossings - 500) <= 1, "\(crossings) periods in 0.5 s")
    }

    @Test("settings out of range and channel mismatches are refused, not trapped")
    func refusals() throws {
        #expect(throws: (any Error).self) { try AACEncoder(sampleRate: 7_000) }
        #expect(throws: (any Error).self) { try AACEncoder(channels: 3) }
        let encoder = try AACEncoder(channels: 2)
        #expect(throws: (any Error).self) { try encoder.encode([[0, 0]]) }
        #expect(throws: (any Error).self) { try encoder.encode([[0, 0], [0]]) }
    }
}
