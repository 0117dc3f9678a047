import Testing
import NALU

/// A library reader made with its defaults stops at ``AccessUnitLimit/defaultMaxBytes`` (64 MiB),
/// as the command line does (issue 40 item 18): before, the core readers' default was 1 GiB, so an
/// app reading a hostile stream buffered up to a gigabyte, and an allocation that failed aborted.
@Suite struct ReaderDefaultLimitTests {
    /// `prefix`, then 0xFF bytes without end, counting what was read.
    struct EndlessSource: ByteSource {
        let prefix: [UInt8]
        var position = 0
        var bytesRead: Int { position }

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
            for index in 0..<buffer.count {
                buffer[index] = position + index < prefix.count ? prefix[position + index] : 0xFF
            }
            position += buffer.count
            return buffer.count
        }
    }

    @Test func lengthPrefixedReaderRefusesALengthOverTheDefaultBeforeReadingIt() throws {
        // A 4-byte length of 100 MiB, then bytes that never end: refused at the length field.
        let claim = 100 << 20
        let source = EndlessSource(prefix: [UInt8(claim >> 24), UInt8(claim >> 16 & 0xFF), UInt8(claim >> 8 & 0xFF), UInt8(claim & 0xFF), 0x65])
        var reader = try LengthPrefixedReader(source, lengthSize: 4)
        var delivered = 0
        do {
            try reader.forEachNALUnit { _ in delivered += 1 }
            Issue.record("a 100 MiB NAL unit was read")
        } catch let error as NALUError {
            #expect(error.code == .tooLarge)
            #expect(error.byteOffset == 0)
        }
        #expect(delivered == 0)
    }

    @Test func annexBReaderDefaultIsTheAccessUnitLimit() {
        // (Reading 64 MiB of one NAL unit to see it refused takes 90 s in a debug build; the
        // refusal itself is tested with a small limit in AnnexBReaderTests and through the CLI in
        // NALUnitLimitTests.)
        let reader = AnnexBReader(MemorySource([0, 0, 0, 1, 0x65]))
        #expect(reader.maxNALUnitSize == AccessUnitLimit.defaultMaxBytes)
    }

    @Test func elementaryStreamReaderDefaultIsTheAccessUnitLimit() throws {
        let reader = try ElementaryStreamReader(MemorySource([0, 0, 0, 1, 0x67, 0x42, 0, 0x1E]))
        #expect(reader.maxNALUnitSize == AccessUnitLimit.defaultMaxBytes)
    }
}
