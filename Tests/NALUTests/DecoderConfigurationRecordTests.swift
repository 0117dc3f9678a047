import Testing
@testable import NALU

@Suite struct DecoderConfigurationRecordTests {
    /// The parameter sets of a fixture's first access unit, in stream order.
    func parameterSets(_ fixture: Fixture) throws -> [[UInt8]] {
        var units: [[UInt8]] = []
        for unit in AnnexB.nalUnits(in: try fixture.annexB()) {
            let header = try NALUnitHeader(unit, codec: fixture.codec)
            if header.isParameterSet { units.append(Array(unit)) }
            if header.isVCL { break }
        }
        return units
    }

    /// The avcC built from the stream is byte-identical to the one ffmpeg's MP4 muxer wrote.
    @Test(arguments: Fixture.avc) func avcCMatchesFFmpeg(fixture: Fixture) throws {
        let sets = try parameterSets(fixture)
        let sps = sets.filter { $0[0] & 0x1F == 7 }
        let pps = sets.filter { $0[0] & 0x1F == 8 }
        let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: sps, pictureParameterSets: pps)
        let ffmpeg = try fixture.decoderConfigurationRecord()
        #expect(record.bytes == ffmpeg)
        let parsed = try AVCDecoderConfigurationRecord(parsing: ffmpeg)
        #expect(parsed == record)
        #expect(parsed.lengthSize == 4)
    }

    /// The hvcC header and VPS/SPS/PPS arrays equal ffmpeg's (which writes array_completeness 0).
    @Test(arguments: Fixture.hevc) func hvcCMatchesFFmpeg(fixture: Fixture) throws {
        let record = try HEVCDecoderConfigurationRecord(parameterSets: try parameterSets(fixture), arrayCompleteness: false)
        let ffmpeg = try fixture.decoderConfigurationRecord()
        #expect(record.bytes == ffmpeg)
        let parsed = try HEVCDecoderConfigurationRecord(parsing: ffmpeg)
        #expect(parsed == record)
        #expect(parsed.parameterSets == (try parameterSets(fixture)))
    }

    @Test func hvc1SetsArrayCompleteness() throws {
        let fixture = try #require(Fixture.hevc.first)
        let record = try HEVCDecoderConfigurationRecord(parameterSets: try parameterSets(fixture), arrayCompleteness: true)
        #expect(record.arrays.map(\.arrayCompleteness) == [true, true, true])
        #expect(record.bytes[23] == 0x80 | 32)
    }

    /// Parameter sets given out of order (SPS and PPS before the VPS) still make arrays in the
    /// order VPS, SPS, PPS: the same bytes as ffmpeg's record of the stream in its own order.
    @Test(arguments: Fixture.hevc) func hvcCArraysInTypeOrder(fixture: Fixture) throws {
        let sets = try parameterSets(fixture)
        let shuffled = sets.filter { ($0[0] >> 1) & 0x3F != 32 } + sets.filter { ($0[0] >> 1) & 0x3F == 32 }
        #expect(shuffled != sets)
        let record = try HEVCDecoderConfigurationRecord(parameterSets: shuffled, arrayCompleteness: false)
        #expect(record.arrays.map(\.nalUnitType) == [32, 33, 34])
        #expect(record.bytes == (try fixture.decoderConfigurationRecord()))
    }

    @Test func avcCWithoutTrailingBlockParses() throws {
        // A High-profile record as some writers emit it: no chroma/bit-depth block.
        let fixture = try #require(Fixture.avc.first { $0.name == "avc_high_bframes" })
        let full = try fixture.decoderConfigurationRecord()
        let short = Array(full.dropLast(4))
        let parsed = try AVCDecoderConfigurationRecord(parsing: short)
        #expect(parsed.highProfileFields == nil)
        #expect(parsed.sequenceParameterSets.count == 1)
        #expect(parsed.pictureParameterSets.count == 1)
    }

    @Test func lengthSizesOneAndTwo() throws {
        let fixture = try #require(Fixture.avc.first)
        let sets = try parameterSets(fixture)
        for size in [1, 2] {
            let record = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sets[0]], pictureParameterSets: [sets[1]], lengthSize: size)
            #expect(record.bytes[4] == 0xFC | UInt8(size - 1))
            #expect(try AVCDecoderConfigurationRecord(parsing: record.bytes).lengthSize == size)
        }
        #expect(throws: NALUError.self) {
            _ = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sets[0]], pictureParameterSets: [sets[1]], lengthSize: 3)
        }
    }

    /// Every truncation of a real record is a typed error, never a trap.
    @Test(arguments: Fixture.all) func truncatedRecordsThrow(fixture: Fixture) throws {
        let bytes = try fixture.decoderConfigurationRecord()
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            if fixture.codec == .h264 {
                // Cutting exactly the optional trailing block leaves a valid record.
                if length == bytes.count - 4 { continue }
                #expect(throws: NALUError.self) { _ = try AVCDecoderConfigurationRecord(parsing: prefix) }
            } else {
                #expect(throws: NALUError.self) { _ = try HEVCDecoderConfigurationRecord(parsing: prefix) }
            }
        }
    }

    @Test func missingParameterSetsAreNamed() {
        do {
            _ = try AVCDecoderConfigurationRecord(sequenceParameterSets: [], pictureParameterSets: [])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missing)
            #expect(error.field == "sequence parameter set")
        }
    }
}
