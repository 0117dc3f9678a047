import Foundation
import NALU
import NALUMP4
import NALUMedia
import NALUTS
import Testing

/// Issue 39 item 6: the lower modules' readers and openers throw `NALUError` (typed), so a
/// caller's `catch` reads `error.code` without a cast (these tests compile only so), and a
/// source's failure (`ByteSource.read` throws `NALUError`) reaches the caller as reported.
@Suite struct TypedThrowsTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture(name) }

    /// A user's source failing as a source reports a failure.
    struct UnpluggedSource: ByteSource {
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
            throw NALUError(.io, field: "socket", detail: "cable unplugged")
        }
    }

    @Test func aSourcesFailureReachesTheCallerAsReported() {
        do {
            _ = try ElementaryStreamReader(UnpluggedSource())
            Issue.record("no error")
        } catch {
            #expect(error == NALUError(.io, field: "socket", detail: "cable unplugged"))
        }
        let reader = TransportStreamReader(UnpluggedSource(), packetSize: TransportStream.packetSize)
        do {
            try reader.readProgram()
            Issue.record("no error")
        } catch {
            #expect(error == NALUError(.io, field: "socket", detail: "cable unplugged"))
        }
    }

    /// A faststart MP4 cut inside its `moov`: the movie reader names `moov.size` at the box's
    /// offset (found by reading the whole file's top-level boxes).
    @Test func aCutMovieNamesTheBoxSize() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture("mp4_avc_faststart.mp4"))))
        let whole = MemoryRandomAccessSource(bytes)
        let boxes = try MP4BoxHeader.children(of: MP4BoxHeader(type: FourCC("root"), offset: 0, size: whole.size, headerSize: 0),
                                              in: whole, depth: 0)
        let moov = try #require(boxes.first { $0.type == FourCC("moov") })
        let cut = MemoryRandomAccessSource(Array(bytes[0..<Int(moov.offset + moov.size / 2)]))
        do {
            _ = try MP4VideoTrackReader(cut)
            Issue.record("no error")
        } catch {
            #expect(error.code == .lengthPastEnd)
            #expect(error.field == "moov.size")
            #expect(error.byteOffset == moov.offset)
        }
    }

    /// Not a transport stream: `readProgram` says which structure is missing, typed.
    @Test func anMP4IsNoTransportStream() throws {
        let reader = TransportStreamReader(try InputFile(path: Self.fixture("mp4_avc_bframes.mp4")), packetSize: TransportStream.packetSize)
        do {
            try reader.readProgram()
            Issue.record("no error")
        } catch {
            #expect(error.code == .unrecognisedFormat)
            #expect(error.field == "PMT")
        }
    }

    /// The reader's async sequence fails with `NALUError`: `Failure` is typed.
    @Test func mediaReaderFailureIsNALUError() async throws {
        #expect(MediaReader.Failure.self == NALUError.self)
        #expect(MediaReader.AsyncIterator.Failure.self == NALUError.self)
        var count = 0
        var iterator = try MediaReader(path: Self.fixture("mp4_avc_bframes.mp4")).makeAsyncIterator()
        do {
            while let _ = try await iterator.next(isolation: nil) { count += 1 }
        } catch {
            Issue.record("\(error.code): \(error)")
        }
        let (_, items) = try MediaReaderTests.items(Self.fixture("mp4_avc_bframes.mp4"))
        #expect(count == items.count)
    }
}
