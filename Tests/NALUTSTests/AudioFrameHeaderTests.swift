import Foundation
import Testing
import NALU
import NALUTS

/// The AC-3 and MPEG audio frame headers split real streams (Scripts/make-audio-fixtures.sh:
/// ffmpeg's AC-3 and Layer II encoders) exactly where ffmpeg's parsers do: every frame's length
/// equals ffprobe's packet size, the rates and channels equal ffprobe's. Damaged headers are
/// typed errors naming the field and its byte offset. The PMT's language and AC-3 descriptors
/// are read from ffmpeg's tables.
@Suite("Audio frame headers: AC-3, MPEG audio")
struct AudioFrameHeaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/audio")

    /// The audio elementary stream of a fixture (`ffmpeg -c copy -f FORMAT`) and ffprobe's packet sizes.
    static func stream(_ name: String, format: String) throws -> (bytes: [UInt8], sizes: [Int], rate: Int, channels: Int)? {
        guard let ffmpeg = TransportStreamMuxerAudioTests.tool("ffmpeg"), let ffprobe = TransportStreamMuxerAudioTests.tool("ffprobe") else { return nil }
        let input = fixtures.appendingPathComponent(name).path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-es-\(UUID().uuidString).\(format)")
        defer { try? FileManager.default.removeItem(at: output) }
        let copy = try TransportStreamMuxerAudioTests.run(ffmpeg, ["-v", "error", "-i", input, "-map", "0:a:0", "-c", "copy", "-f", format, output.path])
        #expect(copy.status == 0, "\(copy.stderr)")
        let probe = try TransportStreamMuxerAudioTests.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size",
                                                                     "-of", "default=nw=1:nk=1", input])
        let info = try TransportStreamMuxerAudioTests.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
                                                                    "-of", "default=nw=1:nk=1", input])
        let fields = info.stdout.split(separator: "\n").compactMap { Int($0) }
        return ([UInt8](try Data(contentsOf: output)), probe.stdout.split(separator: "\n").compactMap { Int($0) }, fields.first ?? 0, fields.last ?? 0)
    }

    @Test func ac3SyncFramesSplitAsFFmpegDoes() throws {
        guard let (bytes, sizes, rate, channels) = try Self.stream("ts_ac3.ts", format: "ac3") else { return }
        var lengths: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let frame = try bytes.withUnsafeBytes { try AC3SyncFrame(UnsafeRawBufferPointer(rebasing: $0[offset...]), offset: Int64(offset)) }
            #expect(frame.sampleRate == rate && frame.channelCount == channels)
            #expect(frame.bitRateCode == 6)  // 96 kb/s (Table 5.18)
            lengths.append(frame.frameSize)
            offset += frame.frameSize
        }
        #expect(offset == bytes.count)
        #expect(lengths.count > 100 && lengths == sizes, "\(lengths.count) frames, ffprobe \(sizes.count)")
    }

    @Test func layerIIFramesSplitAsFFmpegDoes() throws {
        guard let (bytes, sizes, rate, channels) = try Self.stream("ts_mp2.ts", format: "mp2") else { return }
        var lengths: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let header = try bytes.withUnsafeBytes { try MPEGAudioFrameHeader(UnsafeRawBufferPointer(rebasing: $0[offset...]), offset: Int64(offset)) }
            #expect(header.layer == 2 && header.isMPEG1 && header.samplesPerFrame == 1152 && header.bitRate == 96)
            #expect(header.sampleRate == rate && header.channelCount == channels)
            lengths.append(header.frameLength)
            offset += header.frameLength
        }
        #expect(offset == bytes.count)
        #expect(lengths.count > 100 && lengths == sizes, "\(lengths.count) frames, ffprobe \(sizes.count)")
    }

    @Test func damagedHeadersNameTheFieldAndOffset() throws {
        func ac3(_ bytes: [UInt8]) -> NALUError? {
            do { _ = try bytes.withUnsafeBytes { try AC3SyncFrame($0, offset: 100) }; return nil } catch { return error as? NALUError }
        }
        func mpeg(_ bytes: [UInt8]) -> NALUError? {
            do { _ = try bytes.withUnsafeBytes { try MPEGAudioFrameHeader($0, offset: 100) }; return nil } catch { return error as? NALUError }
        }
        #expect(ac3([0x0B, 0x77, 0, 0, 0xC0, 0x40, 0x40, 0])?.field == "fscod")
        #expect(ac3([0x0B, 0x77, 0, 0, 0xC0, 0x40, 0x40, 0])?.byteOffset == 104)
        #expect(ac3([0x0B, 0x77, 0, 0, 0x26, 0x40, 0x40, 0])?.field == "frmsizecod")
        #expect(ac3([0x0B, 0x77, 0, 0, 0x14, 0x80, 0x40, 0])?.field == "bsid")  // 16: E-AC-3
        #expect(ac3([0x0B, 0x78, 0, 0, 0x14, 0x40, 0x40, 0])?.field == "syncword")
        #expect(ac3([0x0B, 0x77, 0, 0])?.code == .truncated)
        #expect(mpeg([0xFF, 0xF9, 0x04, 0])?.field == "layer")
        #expect(mpeg([0xFF, 0xFD, 0x04, 0])?.field == "bitrate_index")  // free format
        #expect(mpeg([0xFF, 0xFD, 0xF4, 0])?.field == "bitrate_index")  // forbidden
        #expect(mpeg([0xFF, 0xFD, 0x4C, 0])?.field == "sampling_frequency")
        #expect(mpeg([0xFF, 0xFD, 0x4C, 0])?.byteOffset == 102)
        #expect(mpeg([0xFF, 0xE5, 0x84, 0])?.field == "syncword")  // MPEG-2.5
    }

    /// The program map of ffmpeg's muxer: languages from ISO_639_language_descriptors, AC-3 told
    /// by stream_type 0x81, or by 0x06 with DVB's AC-3_descriptor.
    @Test(arguments: [("three_aac.ts", ["eng", "fra", "deu"], false), ("ts_ac3.ts", [nil], true), ("ts_ac3_dvb.ts", [nil], true)] as [(String, [String?], Bool)])
    func programMapDescriptors(name: String, languages: [String?], ac3: Bool) throws {
        let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
        let reader = TransportStreamReader(MemorySource(bytes), packetSize: 188, pid: nil, chunkPackets: 8)
        try reader.readProgram()
        let audio = (reader.demuxer.program?.elements ?? []).filter(\.isAudio)
        #expect(audio.map(\.language) == languages)
        #expect(audio.allSatisfy { $0.isAC3 == ac3 })
    }
}
