import Foundation
import NALU
import NALUAVCodec
import NALUDecoder
import NALUMedia
import Testing

/// ``MediaReader``'s access units fed straight to a ``DecoderSession`` (libavcodec): the
/// pictures, in presentation order, are ffmpeg's (`-f framemd5`), frame for frame.
@Suite struct MediaReaderDecodeTests {
    /// Decodes every access unit `reader` yields; the frames' md5s and the session.
    static func decode(_ reader: MediaReader) throws -> (md5s: [String], session: DecoderSession, samples: Int) {
        let session = try DecoderSession(codec: reader.codec, parameterSets: reader.outOfBandParameterSets, factory: AVCodecDecoderFactory())
        var md5s: [String] = []
        var samples = 0
        while let item = try reader.next() {
            switch item {
            case .accessUnit(let unit): md5s += try session.decode(unit).map(\.md5)
            case .sample: samples += 1
            case .damaged(let damage): Issue.record("\(damage)")
            }
        }
        md5s += session.flush().map(\.md5)
        return (md5s, session, samples)
    }

    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_frag.mp4", "ts_avc_aac.ts", "hevc_open_gop.h265", "realworld/phone.mp4",
                      "realworld/vfr.mp4"])
    func decodedPicturesAreFFmpegs(file: String) throws {
        let path = Fixtures.path(file)
        let expected = try ffmpegFrameMD5s(path)
        let (md5s, session, _) = try Self.decode(try MediaReader(path: path))
        #expect(!expected.isEmpty)
        #expect(md5s.count == expected.count)
        #expect(md5s == expected)
        #expect(session.problems.isEmpty, "\(session.problems)")
        #expect(session.statistics.backendFailures == 0)
    }

    /// A length-prefixed stream with its avcC: the pictures of its Annex-B twin.
    @Test func lengthPrefixedWithRecord() throws {
        let record = try DecoderConfigurationRecord(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("avc_high_bframes.avcC")))))
        let reader = try MediaReader(path: Fixtures.path("avc_high_bframes.lp"), options: MediaReaderOptions(source: MediaSourceOptions(record: record)))
        let (md5s, session, _) = try Self.decode(reader)
        #expect(md5s == (try ffmpegFrameMD5s(Fixtures.path("avc_high_bframes.h264"))))
        #expect(session.problems.isEmpty)
    }

    /// The async form, into the actor session: the same pictures.
    @Test func asyncReaderIntoAsyncSession() async throws {
        let path = Fixtures.path("mp4_avc_bframes.mp4")
        let reader = try MediaReader(path: path)
        let session = try AsyncDecoderSession(codec: reader.codec, parameterSets: reader.outOfBandParameterSets, factory: AVCodecDecoderFactory())
        var md5s: [String] = []
        for try await item in reader {
            if let unit = item.accessUnit { md5s += try await session.decode(unit).map(\.md5) }
        }
        md5s += await session.flush().map(\.md5)
        #expect(md5s == (try ffmpegFrameMD5s(path)))
    }

    /// A FIFO: an MP4 is spooled, a transport stream read as it comes; the pictures are the
    /// file's. The transport stream's audio, which needs a second pass, is listed as not read
    /// (and the FIFO is not opened again: that would take the video's bytes or block).
    @Test(arguments: ["ts_avc_aac.ts", "mp4_avc_bframes.mp4"])
    func fromAFIFO(file: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-reader-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("in").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$0\" > \"$1\"", Fixtures.path(file), fifo]
        try writer.run()
        defer { writer.waitUntilExit() }
        let reader = try MediaReader(path: fifo)
        let (md5s, _, samples) = try Self.decode(reader)
        #expect(md5s == (try ffmpegFrameMD5s(Fixtures.path(file))))
        if file.hasSuffix(".ts") {
            #expect(samples == 0)
            #expect(reader.unreadTracks.count == 1)
            #expect(reader.unreadTracks.first?.contains("AAC") == true, "\(reader.unreadTracks)")
        }
    }
}
