import Foundation
import Testing
import NALU
import NALUTS

/// The muxer's audio stream: AAC frames (FFmpeg's, with their ADTS headers taken off) go back in
/// as ADTS on PID 0x101, stream type 0x0F, interleaved with H.264 video; FFmpeg reads both.
@Suite("MPEG-TS mux: AAC audio")
struct TransportStreamMuxerAudioTests {
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-ts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let err = folder.appendingPathComponent("err")
        try Data().write(to: out)
        try Data().write(to: err)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// The AudioSpecificConfig found in an MP4's `mp4a` entry (FFmpeg's AAC track of
    /// Tests/Fixtures/mp4_avc_audio.mp4) gives the ADTS header FFmpeg's own `-c copy -f adts`
    /// writes for the first frame, byte for byte.
    @Test func audioSpecificConfigFromAnMP4SampleEntry() throws {
        let ffmpeg = try #require(Self.tool("ffmpeg"))
        let path = TransportStreamMuxTests.fixtures.appendingPathComponent("mp4_avc_audio.mp4").path
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let type = Array("mp4a".utf8)
        let at = try #require((4..<(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == type })
        let size = Int(file[at - 4]) << 24 | Int(file[at - 3]) << 16 | Int(file[at - 2]) << 8 | Int(file[at - 1])
        let entry = Array(file[(at - 4)..<(at - 4 + size)])
        let config = try AudioSpecificConfig.fromSampleEntry(entry)
        #expect(config.count >= 2)
        let adts = try ADTSHeader(audioSpecificConfig: config)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-adts-\(UUID().uuidString).aac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try Self.run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "adts", folder.path])
        #expect(copy.status == 0)
        let reference = [UInt8](try Data(contentsOf: folder))
        let length = Int(reference[3] & 0x03) << 11 | Int(reference[4]) << 3 | Int(reference[5] >> 5)
        var header: [UInt8] = []
        try adts.append(rawFrameLength: length - 7, to: &header)
        #expect(header == Array(reference.prefix(7)))

        // Damaged entries are errors, not traps.
        for cut in [0, 20, 40, 50] {  // 50: inside the esds box
            #expect(throws: NALUError.self) { try AudioSpecificConfig.fromSampleEntry(Array(entry.prefix(cut))) }
        }
        // Every truncation and every byte set to 0xFF or 0x00: a value or a NALUError, never a trap.
        for cut in 0..<entry.count { _ = try? AudioSpecificConfig.fromSampleEntry(Array(entry.prefix(cut))) }
        for index in entry.indices {
            for value: UInt8 in [0x00, 0xFF] {
                var damaged = entry
                damaged[index] = value
                do { _ = try AudioSpecificConfig.fromSampleEntry(damaged) } catch {}
            }
        }
        #expect(throws: NALUError.self) { try AudioSpecificConfig.decoderSpecificInfo(esds: [0, 0, 0, 0, 0x03, 0x80, 0x80, 0x80, 0x80, 0x01]) }
        #expect(throws: NALUError.self) { try AudioSpecificConfig.decoderSpecificInfo(esds: [0, 0, 0, 0, 0x04, 0x00]) }
    }

    @Test func aacBesideVideo() throws {
        let ffmpeg = try #require(Self.tool("ffmpeg"))
        let ffprobe = try #require(Self.tool("ffprobe"))
        let frames = try TransportStreamMuxTests.adtsFrames()
        let video = [UInt8](try Data(contentsOf: TransportStreamMuxTests.fixtures.appendingPathComponent("avc_high_bframes.h264")))

        let muxer = try TransportStreamMuxer(codec: .h264, sink: MemorySink())
        try muxer.addAudio(audioSpecificConfig: [0x12, 0x10])  // AAC LC, 44.1 kHz, stereo
        var nextAudio = 0
        var pictures = 0
        try video.withUnsafeBytes { raw in
            try AnnexB.forEachNALUnit(in: raw) { range in
                let unit = UnsafeRawBufferPointer(rebasing: raw[range])
                if let first = unit.first, AVCNALUnitType(rawValue: Codec.h264.nalUnitType(firstByte: first)).isVCL {
                    // Audio up to this picture's decode time (30 fps; 1024 samples a frame at 44.1 kHz).
                    while nextAudio < frames.count, nextAudio * 1024 * 30 < pictures * 44_100 {
                        try frames[nextAudio].raw.withUnsafeBytes { try muxer.pushAudio($0, time: Int64(nextAudio * 1024), timescale: 44_100) }
                        nextAudio += 1
                    }
                    pictures += 1
                }
                try NALUnitView.withNALUnit(unit, offset: Int64(range.lowerBound)) { try muxer.push($0) }
            }
        }
        let summary = try muxer.finish()
        #expect(nextAudio == 23)
        #expect(summary.writer.audioFrames == 23)
        #expect(summary.writer.videoAccessUnits == 30)

        // The audio PES payloads, put together, are FFmpeg's ADTS file byte for byte.
        let bytes = try #require(muxer.output).bytes
        var audio: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 188) {
            let packet = Array(bytes[start..<(start + 188)])
            guard UInt16(packet[1] & 0x1F) << 8 | UInt16(packet[2]) == 0x101 else { continue }
            var payload = packet[3] & 0x20 != 0 ? 5 + Int(packet[4]) : 4
            if packet[1] & 0x40 != 0 { payload += 9 + Int(packet[payload + 8]) }  // PES header
            audio += packet[payload...]
        }
        let adts = [UInt8](try Data(contentsOf: TransportStreamMuxTests.fixtures.appendingPathComponent("aac_lc_stereo.adts")))
        #expect(audio == adts)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-ts-audio-\(UUID().uuidString).ts")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let streams = try Self.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_name,codec_tag,id,sample_rate,channels", "-of", "csv=p=0", file.path])
        #expect(streams.stdout.split(separator: "\n").filter { !$0.isEmpty }.prefix(2).sorted()
                == ["aac,0x000f,44100,2,0x101", "h264,0x001b,0x100"])
        // Every AAC frame comes back as one packet of FFmpeg's, in order, with its 7-byte ADTS
        // header, 1024 samples (about 2090 ticks of 90 kHz) apart from 1.4 s.
        let packets = try Self.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts,size", "-of", "csv=p=0", file.path])
        let rows = packets.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Int($0) } }
        #expect(rows.map { $0.last ?? -1 } == frames.map { $0.raw.count + 7 })
        #expect(rows.map { $0.first ?? -1 } == (0..<23).map { 126_000 + $0 * 1024 * 90_000 / 44_100 })
        let decode = try Self.run(ffmpeg, ["-nostdin", "-v", "error", "-i", file.path, "-map", "0", "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr == "")
    }
}
