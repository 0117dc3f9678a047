import NALU
import NALUIO
import Testing

/// Issue 39 item 6: the byte plumbing throws typed errors. Each `catch` below binds `error`
/// statically (a `NALUError`, or the closure's own type), so these tests do not compile against
/// an untyped `throws`.
@Suite("Typed throws of the byte plumbing")
struct TypedThrowsTests {
    /// A sink whose every write fails as a full disk does.
    struct FullSink: ByteSink {
        mutating func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
            throw NALUError(.io, field: "full sink", detail: "No space left on device")
        }
    }

    @Test("A sink's NALUError reaches the caller of the in-memory conversions unchanged, typed")
    func sinkErrorThroughConversions() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "avc_main" })
        let annexB = try fixture.annexB()
        var toLengthPrefixed = try AnnexBToLengthPrefixed(codec: .h264)
        var sink = FullSink()
        do {
            try annexB.withUnsafeBytes { buffer in try toLengthPrefixed.convert(buffer, to: &sink) }
            Issue.record("a full sink took the stream")
        } catch let error as NALUError {
            #expect(error.code == .io && error.field == "full sink")
        }
        // The whole-array conversion, typed: its catch binds a NALUError.
        var again = try AnnexBToLengthPrefixed(codec: .h264, options: .init(lengthSize: 1))
        do {
            _ = try again.convert(annexB)
        } catch {
            #expect(error.code == .doesNotFit, "\(error)")
        }
    }

    @Test("AnnexB.forEachNALUnit throws what its closure throws, typed; with a closure that cannot throw, nothing")
    func forEachNALUnitThrowsTheClosuresType() throws {
        struct Stop: Error, Equatable { let at: Int }
        let stream: [UInt8] = [0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xce, 0, 0, 1, 0x65, 0x88]
        var seen: [Range<Int>] = []
        func walk(_ buffer: UnsafeRawBufferPointer) throws(Stop) {
            try AnnexB.forEachNALUnit(in: buffer) { (range) throws(Stop) in
                seen.append(range)
                if seen.count == 2 { throw Stop(at: range.lowerBound) }
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: stream.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: stream)
        do {
            try walk(UnsafeRawBufferPointer(buffer))
            Issue.record("the walk did not stop")
        } catch {
            #expect(error == Stop(at: 8))
        }
        #expect(seen == [3..<5, 8..<10])
        var all = 0
        stream.withUnsafeBytes { buffer in AnnexB.forEachNALUnit(in: buffer) { _ in all += 1 } }
        #expect(all == 3)
    }

    @Test("FileSink on a full device: NALUError .io naming the path, errno's text as the detail")
    func fullDevice() throws {
        let sink = try FileSink(path: "/dev/full", bufferSize: 4096)
        defer { sink.discard() }
        let bytes = [UInt8](repeating: 0x5a, count: 1 << 17)
        do {
            try sink.write(bytes)
            try sink.drain()
            Issue.record("/dev/full took \(bytes.count) bytes")
        } catch {
            #expect(error.code == .io)
            #expect(error.field == "/dev/full")
            #expect(error.detail?.contains("No space left on device") == true, "\(error)")
        }
    }
}
