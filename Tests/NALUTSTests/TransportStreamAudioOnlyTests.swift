import Foundation
import Testing
import NALU
import NALUTS

/// A program without video (``TransportStreamWriterConfiguration/carriesVideo`` false: an HLS
/// audio rendition's MPEG-TS segments): the program map lists the audio stream only, its
/// `PCR_PID` is the audio PID and each audio PES packet's first transport packet carries the PCR.
/// Written from ffmpeg's own Layer II frames (`ts_mp2.ts`), read back by ffprobe: one mp2 stream
/// with its language, every frame its own packet of the same size, `ffmpeg -v error` silent.
@Suite struct TransportStreamAudioOnlyTests {
    @Test func audioOnlyProgramCarriesThePCROnTheAudioPID() throws {
        guard let (bytes, sizes, _, _) = try AudioFrameHeaderTests.stream("ts_mp2.ts", format: "mp2"),
              let ffprobe = TransportStreamMuxerAudioTests.tool("ffprobe"), let ffmpeg = TransportStreamMuxerAudioTests.tool("ffmpeg") else { return }
        var configuration = TransportStreamWriterConfiguration(videoStreamType: .h264)
        configuration.carriesVideo = false
        configuration.audioStreams = [TransportStreamAudioStream(format: .mpegAudio, streamType: .mpeg1Audio, language: "fra")]
        let writer = try TransportStreamWriter(sink: MemorySink(), configuration: configuration)
        var offset = 0
        for (index, size) in sizes.enumerated() {
            // 1152 samples at 48 kHz: 2160 ticks of 90 kHz.
            try bytes.withUnsafeBytes { try writer.writeAudio(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + size)]), pts: 126_000 + Int64(index) * 2160) }
            offset += size
        }
        let summary = try writer.finish()
        #expect(summary.videoAccessUnits == 0 && summary.audioFrames == sizes.count)
        let output = writer.sink.bytes
        let packets = stride(from: 0, to: output.count, by: 188).map { Array(output[$0..<($0 + 188)]) }
        // The PMT (PID 0x1000): PCR_PID 0x101 and one elementary stream, stream_type 0x03.
        let pmt = try #require(packets.first { UInt16($0[1] & 0x1F) << 8 | UInt16($0[2]) == 0x1000 })
        let section = Array(pmt[5...])
        #expect(UInt16(section[8] & 0x1F) << 8 | UInt16(section[9]) == 0x101)
        let sectionLength = Int(section[1] & 0x0F) << 8 | Int(section[2])
        let programInfo = Int(section[10] & 0x0F) << 8 | Int(section[11])
        #expect(section[12 + programInfo] == 0x03)
        #expect(12 + programInfo + 5 + (Int(section[12 + programInfo + 3] & 0x0F) << 8 | Int(section[12 + programInfo + 4])) == sectionLength + 3 - 4)
        // Every PES start on the audio PID has a PCR (adaptation_field_control 3, PCR_flag).
        let starts = packets.filter { UInt16($0[1] & 0x1F) << 8 | UInt16($0[2]) == 0x101 && $0[1] & 0x40 != 0 }
        #expect(starts.count == sizes.count)
        #expect(starts.allSatisfy { $0[3] & 0x20 != 0 && $0[4] >= 7 && $0[5] & 0x10 != 0 })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-audio-only-\(UUID().uuidString).ts")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(output).write(to: file)
        let probe = try TransportStreamMuxerAudioTests.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_name:stream_tags=language", "-of", "csv=p=0", file.path])
        // (The program's stream list first, then the streams: one mp2 stream with its language.)
        #expect(probe.stdout.split(separator: "\n").last == "mp2,fra" && !probe.stdout.contains("h264"), "\(probe.stdout)")
        let sizesRead = try TransportStreamMuxerAudioTests.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size",
                                                                         "-of", "default=nw=1:nk=1", file.path])
        #expect(sizesRead.stdout.split(separator: "\n").compactMap { Int($0) } == sizes)
        let decode = try TransportStreamMuxerAudioTests.run(ffmpeg, ["-v", "error", "-i", file.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    @Test func aProgramWithoutVideoNeedsAudio() {
        var configuration = TransportStreamWriterConfiguration(videoStreamType: .h264)
        configuration.carriesVideo = false
        #expect(throws: NALUError.self) { try TransportStreamWriter(sink: MemorySink(), configuration: configuration) }
    }
}
