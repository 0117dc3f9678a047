import Testing
import NALU
@testable import NALUMP4

/// Malformed and truncated files give ``NALUError``s with the box and field and the byte offset:
/// never a trap, never an allocation of a claimed size.
@Suite struct MP4MalformedInputTests {
    /// Opens, walks every sample and reads every sample's bytes.
    @discardableResult
    func readEverything(_ bytes: [UInt8]) throws -> [MP4Sample] {
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        var buffer: [UInt8] = []
        var samples: [MP4Sample] = []
        try reader.forEachSample { sample in
            try reader.read(sample, into: &buffer)
            samples.append(sample)
        }
        return samples
    }

    func error(_ bytes: [UInt8]) -> NALUError? {
        do {
            try readEverything(bytes)
            return nil
        } catch let error as NALUError {
            return error
        } catch {
            Issue.record("not a NALUError: \(error)")
            return nil
        }
    }

    func fixture(_ name: String) throws -> [UInt8] {
        let fixture = try #require(ContainerFixture.all.first { $0.name == name })
        return try fixture.bytes(fixture.container)
    }

    /// Offset of the first occurrence of a box type (its size field).
    func boxOffset(_ type: String, in bytes: [UInt8], after start: Int = 0) throws -> Int {
        let code = FourCC(type).bytes
        for index in max(4, start + 4)..<(bytes.count - 4) where Array(bytes[index..<(index + 4)]) == code {
            return index - 4
        }
        throw NALUError(.missing, field: type)
    }

    func patch32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        bytes.replaceSubrange(offset..<(offset + 4), with: be32(value))
    }

    /// Every prefix of a file ending inside the movie box, and every 97th elsewhere, fails with a
    /// typed error: moov first (the last sample runs past the end), moov last, and fragmented.
    @Test(arguments: ["mp4_avc_faststart", "mp4_avc_bframes", "mp4_hevc_frag", "mov_avc"])
    func truncationAtManyOffsets(name: String) throws {
        let bytes = try fixture(name)
        let moov = try boxOffset("moov", in: bytes)
        let moovSize = Int(bytes[moov]) << 24 | Int(bytes[moov + 1]) << 16 | Int(bytes[moov + 2]) << 8 | Int(bytes[moov + 3])
        // A fragmented file cut right after its (empty) moov is a complete file with no samples.
        let complete = name.contains("frag") ? moov + moovSize : bytes.count
        var lengths = Array(moov...(moov + moovSize)).filter { $0 < bytes.count && $0 != complete }
        lengths += stride(from: 0, to: bytes.count, by: 97)
        var failures = 0
        for length in Set(lengths).sorted() {
            if error(Array(bytes[0..<length])) != nil { failures += 1 } else { Issue.record("prefix of \(length) bytes read without error") }
        }
        #expect(failures == Set(lengths).count)
        #expect(try readEverything(bytes).count == (try #require(ContainerFixture.all.first { $0.name == name }).facts()).packets)
    }

    @Test func sizesPastTheEnd() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let moov = try boxOffset("moov", in: bytes)
        patch32(&bytes, at: moov, 0x7FFF_FFFF)
        #expect(error(bytes) == NALUError(.lengthPastEnd, field: "moov.size", byteOffset: Int64(moov),
                                          detail: "2147483647 bytes, \(bytes.count - moov) left in the file"))
        // A child larger than its parent.
        var nested = try fixture("mp4_avc_bframes")
        let stsz = try boxOffset("stsz", in: nested)
        patch32(&nested, at: stsz, 1 << 20)
        #expect(error(nested)?.code == .lengthPastEnd)
        #expect(error(nested)?.field == "stsz.size")
        #expect(error(nested)?.byteOffset == Int64(stsz))
        // A 64-bit size past the end.
        var large = try fixture("mp4_avc_bframes")
        let mdat = try boxOffset("mdat", in: large)
        large.replaceSubrange(mdat..<(mdat + 16), with: be32(1) + FourCC("mdat").bytes + be64(UInt64.max))
        #expect(error(large) == NALUError(.lengthPastEnd, field: "mdat.largesize", byteOffset: Int64(mdat + 8),
                                          detail: "\(UInt64.max) bytes, \(large.count - mdat) left in the file"))
    }

    /// Errors about a 64-bit size name `largesize` and its offset, whatever is wrong with it.
    @Test func largeSizeErrorsNameTheLargeSizeField() throws {
        let bytes = try fixture("mp4_avc_bframes")
        let mdat = try boxOffset("mdat", in: bytes)
        func withLargeSize(_ value: UInt64) -> [UInt8] {
            Array(bytes[0..<mdat]) + be32(1) + FourCC("mdat").bytes + be64(value) + Array(bytes[(mdat + 8)...])
        }
        let past = withLargeSize(1 << 62)
        #expect(error(past) == NALUError(.lengthPastEnd, field: "mdat.largesize", byteOffset: Int64(mdat + 8),
                                         detail: "\(1 << 62) bytes, \(past.count - mdat) left in the file"))
        #expect(error(withLargeSize(12)) == NALUError(.invalidValue, field: "mdat.largesize", byteOffset: Int64(mdat + 8),
                                                      detail: "12 bytes is smaller than its 16-byte header"))
    }

    @Test func zeroAndTooSmallSizes() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let stsz = try boxOffset("stsz", in: bytes)
        patch32(&bytes, at: stsz, 0)
        #expect(error(bytes) == NALUError(.invalidValue, field: "stsz.size", byteOffset: Int64(stsz),
                                          detail: "size 0 (to the end of the file) inside stbl child box"))
        patch32(&bytes, at: stsz, 7)
        #expect(error(bytes) == NALUError(.invalidValue, field: "stsz.size", byteOffset: Int64(stsz),
                                          detail: "7 bytes is smaller than its 8-byte header"))
        // At the top level, size 0 means "to the end of the file": the same samples.
        var last = try fixture("mp4_avc_bframes")
        let moov = try boxOffset("moov", in: last)
        let expected = try readEverything(last)
        patch32(&last, at: moov, 0)
        #expect(try readEverything(last) == expected)
    }

    /// A 64-bit `largesize` reads the same as a 32-bit size.
    @Test func largeSizeMovieBox() throws {
        let bytes = try fixture("mp4_avc_bframes")
        var boxes = TestBox.parse(bytes[...])
        let moov = try #require(boxes.last)
        boxes.removeLast()
        let rebuilt = boxes.flatMap { $0.bytes() } + moov.bytes(largeSize: true)
        #expect(rebuilt.count == bytes.count + 8)
        #expect(try readEverything(rebuilt) == (try readEverything(bytes)))
    }

    /// Counts far beyond what their box holds are rejected before anything is allocated.
    @Test(arguments: ["stsz", "stco", "stsc", "stts", "ctts", "stss", "elst"])
    func hugeCounts(box: String) throws {
        var bytes = try fixture("mp4_avc_bframes")
        let offset = try boxOffset(box, in: bytes)
        // The count follows the 8-byte header and version/flags, after stsz's sample_size.
        let countOffset = offset + 12 + (box == "stsz" ? 4 : 0)
        patch32(&bytes, at: countOffset, 0xFFFF_FFFF)
        let failure = try #require(error(bytes))
        #expect(failure.code == .lengthPastEnd)
        #expect(failure.field == "\(box).\(box == "stsz" ? "sample_count" : "entry_count")")
        #expect(failure.byteOffset == Int64(countOffset))
    }

    @Test func hugeTrackRunCount() throws {
        var bytes = try fixture("mp4_avc_frag")
        let trun = try boxOffset("trun", in: bytes)
        patch32(&bytes, at: trun + 12, 0x4000_0000)
        let failure = try #require(error(bytes))
        #expect(failure.code == .lengthPastEnd)
        #expect(failure.field == "trun.sample_count")
        #expect(failure.byteOffset == Int64(trun + 12))
    }

    @Test func hugeConstantSampleCount() throws {
        let avcC = try ContainerFixture.remuxRecord("avc_baseline")
        var file = SyntheticMP4(sampleSizes: [4, 4], avcC: avcC)
        file.sizeBox = { _ in .leaf("stsz", fullBox(be32(4) + be32(0xFFFF_FFFF))) }
        let failure = error(file.build().bytes)
        #expect(failure?.code == .invalidValue)
        #expect(failure?.field == "stsz.sample_count")
    }

    @Test func missingSampleDescription() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let stsd = try boxOffset("stsd", in: bytes)
        bytes.replaceSubrange((stsd + 4)..<(stsd + 8), with: FourCC("free").bytes)
        let stbl = try boxOffset("stbl", in: bytes)
        #expect(error(bytes) == NALUError(.missing, field: "stsd", byteOffset: Int64(stbl), detail: "video sample table without stsd"))
        // No sample entry at all.
        var empty = try fixture("mp4_avc_bframes")
        let countOffset = try boxOffset("stsd", in: empty) + 12
        patch32(&empty, at: countOffset, 0)
        #expect(error(empty) == NALUError(.missing, field: "stsd.entry_count", byteOffset: Int64(countOffset), detail: "no sample entry"))
        // No avcC in the entry.
        var noRecord = try fixture("mp4_avc_bframes")
        let avcC = try boxOffset("avcC", in: noRecord)
        noRecord.replaceSubrange((avcC + 4)..<(avcC + 8), with: FourCC("free").bytes)
        #expect(error(noRecord)?.field == "avcC")
        #expect(error(noRecord)?.code == .missing)
    }

    @Test func sampleOffsetsOutsideTheFile() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let stco = try boxOffset("stco", in: bytes)
        patch32(&bytes, at: stco + 16, UInt32(bytes.count + 10))
        #expect(error(bytes) == NALUError(.lengthPastEnd, field: "stco.chunk_offset", byteOffset: Int64(stco + 16),
                                          detail: "chunk 1 at \(bytes.count + 10), past the \(bytes.count)-byte file"))
        // A sample size that runs past the end.
        var sized = try fixture("mp4_avc_bframes")
        let stsz = try boxOffset("stsz", in: sized)
        patch32(&sized, at: stsz + 20 + 4 * 29, 0x00FF_FFFF)
        let failure = try #require(error(sized))
        #expect(failure.code == .lengthPastEnd)
        #expect(failure.field == "sample")
        #expect(failure.detail?.hasPrefix("sample 30 of 16777215 bytes") == true)
        // More samples than the chunks hold.
        var chunks = try fixture("mp4_avc_bframes")
        let stsc = try boxOffset("stsc", in: chunks)
        patch32(&chunks, at: stsc + 20, 3)
        #expect(error(chunks)?.field == "stsc")
        #expect(error(chunks)?.code == .lengthPastEnd)
        // A fragment whose data offset points outside the file.
        var fragment = try fixture("mp4_avc_frag")
        let trun = try boxOffset("trun", in: fragment)
        patch32(&fragment, at: trun + 16, 0x7FFF_0000)
        #expect(error(fragment)?.field == "trun.data_offset")
        #expect(error(fragment)?.code == .lengthPastEnd)
    }

    /// Samples must name one of the track's sample entries: an index of 0 or past `stsd`'s
    /// entries (which once indexed the entry array at -1 when converting) is an error where the
    /// index is read.
    @Test func sampleDescriptionIndexOutsideTheEntries() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let stsc = try boxOffset("stsc", in: bytes)
        patch32(&bytes, at: stsc + 24, 2)
        #expect(error(bytes) == NALUError(.invalidValue, field: "stsc.sample_description_index", byteOffset: Int64(stsc + 24),
                                          detail: "2, but stsd has 1 sample entry"))
        patch32(&bytes, at: stsc + 24, 0)
        #expect(error(bytes)?.field == "stsc.sample_description_index")
        // A fragment taking trex's default index 0.
        var fragment = try fixture("mp4_hevc_frag")
        let trex = try boxOffset("trex", in: fragment)
        patch32(&fragment, at: trex + 16, 0)
        let expected = NALUError(.invalidValue, field: "trex.default_sample_description_index", byteOffset: Int64(trex + 16),
                                 detail: "0, but stsd has 1 sample entry")
        #expect(error(fragment) == expected)
        var sink = MemorySink()
        #expect(throws: expected) { try MP4ToAnnexB.convert(try MP4VideoTrackReader(MemoryRandomAccessSource(fragment)), to: &sink) }
    }

    @Test func noMovieBox() throws {
        var bytes = try fixture("mp4_avc_bframes")
        let moov = try boxOffset("moov", in: bytes)
        bytes.replaceSubrange((moov + 4)..<(moov + 8), with: FourCC("free").bytes)
        #expect(error(bytes) == NALUError(.missing, field: "moov", byteOffset: Int64(bytes.count),
                                          detail: "no movie box in the \(bytes.count)-byte file"))
        #expect(error([]) == NALUError(.missing, field: "moov", byteOffset: 0, detail: "no movie box in the 0-byte file"))
        #expect(error([0, 0, 0]) == NALUError(.truncated, field: "box header", byteOffset: 0, detail: "3 bytes left, a box header needs 8"))
    }

    @Test func nestingDepthIsBounded() throws {
        let source = MemoryRandomAccessSource(be32(8) + FourCC("free").bytes)
        #expect(throws: NALUError(.tooLarge, field: "moov child box nesting", byteOffset: 0, detail: "more than 16 levels")) {
            _ = try MP4BoxHeader.read(from: source, at: 0, parentEnd: 8, parent: "moov", depth: 17)
        }
        #expect(try MP4BoxHeader.read(from: source, at: 0, parentEnd: 8, parent: "moov", depth: 16).type == "free")
    }

    /// Random byte changes in the movie box and a fragment header: errors are typed, nothing traps.
    @Test(arguments: ["mp4_avc_bframes", "mp4_hevc_frag"]) func mutations(name: String) throws {
        let original = try fixture(name)
        let moov = try boxOffset("moov", in: original)
        var generator = SplitMix64(seed: 0x6E61_6C75)
        var errors = 0
        for _ in 0..<600 {
            var bytes = original
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = moov + Int(generator.next() % UInt64(min(2000, bytes.count - moov)))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if error(bytes) != nil { errors += 1 }
        }
        #expect(errors > 0)
    }
}

/// A small deterministic random number generator (SplitMix64) for repeatable mutation tests.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
