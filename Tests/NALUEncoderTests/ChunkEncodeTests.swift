import Foundation
import NALU
import NALUEncoder
import NALUOpenH264
import NALUX264
import NALUX265
import Testing

/// Issue 17: a chunked encode through the library, with each backend. Every chunk of the Y4M
/// fixture (`chunk_128x72.y4m`, 20 frames, made by Scripts/make-fixtures.sh) is its own session
/// on a reader that seeks to the chunk's first frame: it starts with an IDR carrying the
/// parameter sets, codes exactly its frame range, and has the same parameter sets as every
/// other chunk, so the parts put end to end are one stream ffmpeg decodes without an error.
@Suite struct ChunkEncodeTests {
    struct Backend: CustomStringConvertible, Sendable {
        var name: String
        var codec: Codec
        var rateControl: RateControl
        var bFrames: Int?

        var description: String { name }

        func factory() -> any EncoderBackendFactory {
            switch name {
            case "x265": X265BackendFactory()
            case "openh264": OpenH264BackendFactory()
            default: X264BackendFactory()
            }
        }
    }

    static let backends = [
        // B-frames on (3): a chunk's last frames are reordered inside it, never across its edge.
        Backend(name: "x264", codec: .h264, rateControl: .crf(23), bFrames: 3),
        Backend(name: "x265", codec: .hevc, rateControl: .crf(28), bFrames: 3),
        Backend(name: "openh264", codec: .h264, rateControl: .bitrate(400_000), bFrames: nil),
    ]

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/chunk_128x72.y4m")

    struct Chunk {
        var range: FrameRange
        var run = EncodeRun()
        var parameterSets: [[UInt8]] = []
    }

    /// Encodes chunk `index` of `chunks` of the fixture with a fresh session, as `nalu encode
    /// --chunk` does: seek, force an IDR, encode the range, flush.
    static func encodeChunk(_ index: Int, of chunks: Int, backend: Backend, bytes: [UInt8]) throws -> Chunk {
        var reader = try Y4MReader(CountingSeekableSource(bytes))
        let range = try FrameRange.chunk(index, of: chunks, frames: try reader.frameCount())
        try reader.seek(toFrame: range.first)
        var configuration = EncoderConfiguration(codec: backend.codec, width: reader.header.width, height: reader.header.height)
        configuration.frameRate = reader.header.frameRate
        configuration.rateControl = backend.rateControl
        configuration.bFrames = backend.bFrames
        configuration.threads = 1
        configuration.expectedFrameCount = range.count
        let session = try EncoderSession(configuration: configuration, factory: backend.factory())
        var chunk = Chunk(range: range)
        session.requestKeyframe()
        for _ in 0..<range.count {
            let frame = try #require(try reader.nextFrame())
            try session.encode(frame) { chunk.run.take($0) }
        }
        try session.flush { chunk.run.take($0) }
        chunk.parameterSets = session.parameterSets
        return chunk
    }

    @Test(arguments: backends)
    func chunksStartWithAnIDRAndJoinIntoOneStream(_ backend: Backend) throws {
        let bytes = Array(try Data(contentsOf: Self.fixture))
        let chunks = try (0..<3).map { try Self.encodeChunk($0, of: 3, backend: backend, bytes: bytes) }
        #expect(chunks.map(\.range) == [FrameRange(first: 0, count: 6), FrameRange(first: 6, count: 7), FrameRange(first: 13, count: 7)])
        var joined: [UInt8] = []
        for chunk in chunks {
            // Its own frames, by their index in the input, each once.
            #expect(chunk.run.packets.map(\.pts).sorted() == Array(chunk.range.first..<chunk.range.end), "\(backend)")
            let summary = try StreamInspector.inspect(chunk.run.stream, codec: backend.codec)
            #expect(summary.accessUnits.count == Int(chunk.range.count), "\(backend)")
            let first = try #require(summary.accessUnits.first)
            #expect(first.keyframe == .idr, "\(backend) chunk at \(chunk.range.first)")
            #expect(first.hasParameterSets, "\(backend)")
            #expect(chunk.parameterSets == chunks[0].parameterSets, "\(backend): parameter sets differ between chunks")
            joined += chunk.run.stream
        }
        if backend.bFrames != nil {
            #expect(chunks.contains { chunk in chunk.run.packets.contains { $0.pictureType == .b } }, "\(backend): no B-frames to test the edges with")
        }
        #expect(try FFmpeg.decodedFrameCount(joined, codec: backend.codec) == 20)
        let whole = try StreamInspector.inspect(joined, codec: backend.codec)
        #expect(whole.accessUnits.count == 20)
        // The only IDRs are the chunks' first pictures (20 frames hold no GOP end or scene cut).
        #expect(whole.idrIndices == [0, 6, 13], "\(backend)")
    }
}
