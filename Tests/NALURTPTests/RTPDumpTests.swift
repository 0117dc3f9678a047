import Testing
import NALU
@testable import NALURTP

/// The rtptools rtpdump format: written and read back, RTCP records skipped, damage refused.
@Suite struct RTPDumpTests {
    @Test func writesAndReadsPackets() throws {
        let (_, packets, _) = try RTPTestSupport.packets("avc_baseline.mp4", options: RTPPacketizerOptions(mtu: 300))
        var writer = try RTPDumpWriter(sink: MemorySink(), address: "127.0.0.1", port: 5004)
        for (index, packet) in packets.enumerated() { try writer.append(packet.bytes, offsetMilliseconds: UInt32(index)) }
        // An RTCP record (packet length 0) in the middle.
        var bytes = writer.sink.bytes
        #expect(bytes.starts(with: Array("#!rtpplay1.0 127.0.0.1/5004\n".utf8)))
        // The file header: start time 0, source 127.0.0.1, port 5004.
        #expect(Array(bytes[28..<44]) == [0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 0, 1, 0x13, 0x8C, 0, 0])
        bytes += [0, 16, 0, 0, 0, 0, 0, 99] + [UInt8](repeating: 0x80, count: 8)
        var reader = try RTPDumpReader(source: MemorySource(bytes, chunkSize: 7))
        #expect(reader.destination == "127.0.0.1/5004")
        var read: [RTPDumpRecord] = []
        while let record = try reader.next() { read.append(record) }
        #expect(read.map(\.bytes) == packets.map(\.bytes))
        #expect(read.map(\.offsetMilliseconds) == (0..<packets.count).map { UInt32($0) })
        #expect(reader.skippedRTCP == 1)
    }

    @Test func refusesDamagedFiles() throws {
        #expect { try RTPDumpReader(source: MemorySource(Array("#!rtpplay2.0 x/1\n".utf8))) } throws: { ($0 as? NALUError)?.code == .unrecognisedFormat }
        #expect { try RTPDumpReader(source: MemorySource(Array("#!rtpplay1.0 x/1\n".utf8) + [0, 0])) } throws: { ($0 as? NALUError)?.field == "RD_hdr_t" }
        let header = Array("#!rtpplay1.0 x/1\n".utf8) + [UInt8](repeating: 0, count: 16)
        var short = try RTPDumpReader(source: MemorySource(header + [0, 4, 0, 0, 0, 0, 0, 0]))
        #expect { try short.next() } throws: { ($0 as? NALUError)?.field == "RD_packet_t length" }
        var cut = try RTPDumpReader(source: MemorySource(header + [0, 40, 0, 32, 0, 0, 0, 0, 1, 2]))
        #expect { try cut.next() } throws: { ($0 as? NALUError)?.code == .truncated }
    }

    /// Serves `bytes`, then fails as a source reports a failure (`ByteSource.read` throws `NALUError`).
    struct FailingSource: ByteSource {
        var bytes: [UInt8]
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
            guard !bytes.isEmpty else { throw NALUError(.io, field: "socket", detail: "cable unplugged") }
            let count = min(buffer.count, bytes.count)
            buffer.copyBytes(from: bytes[0..<count])
            bytes.removeFirst(count)
            return count
        }
    }

    /// Issue 39 item 6: the reader throws `NALUError` (typed: `error.code` without a cast); a
    /// source's failure reaches the caller as the source reported it.
    @Test func throwsNALUErrorTyped() {
        do {
            _ = try RTPDumpReader(source: FailingSource(bytes: Array("#!rtpplay1.0 x/1\n".utf8)))
            Issue.record("no error")
        } catch {
            #expect(error == NALUError(.io, field: "socket", detail: "cable unplugged"))
        }
        do {
            var reader = try RTPDumpReader(source: MemorySource(Array("#!rtpplay1.0 x/1\n".utf8) + [UInt8](repeating: 0, count: 16) + [0, 4]))
            _ = try reader.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.field == "RD_packet_t")
        }
    }
}
