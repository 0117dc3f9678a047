import Testing
@testable import NALU

@Suite struct ConversionTests {
    func nalUnits(_ annexB: [UInt8]) -> [[UInt8]] { AnnexB.nalUnits(in: annexB).map(Array.init) }

    func lengthPrefixedUnits(_ bytes: [UInt8], lengthSize: Int = 4) throws -> [[UInt8]] {
        var reader = try LengthPrefixedReader(MemorySource(bytes), lengthSize: lengthSize)
        var units: [[UInt8]] = []
        try reader.forEachNALUnit { units.append($0.array) }
        return units
    }

    func types(_ units: [[UInt8]], _ codec: Codec) -> [UInt8] {
        units.map { codec == .h264 ? $0[0] & 0x1F : ($0[0] >> 1) & 0x3F }
    }

    /// Annex-B → length-prefixed (parameter sets moved to avcC/hvcC) → Annex-B gives back the same
    /// NAL units in the same order, for every fixture.
    @Test(arguments: Fixture.all) func roundTripGivesTheSameNALUnits(fixture: Fixture) throws {
        let original = try fixture.annexB()
        var toLP = try AnnexBToLengthPrefixed(codec: fixture.codec)
        let lengthPrefixed = try toLP.convert(original)
        let record = try toLP.decoderConfigurationRecord().bytes
        let parameterSets = fixture.codec == .h264
            ? try AVCDecoderConfigurationRecord(parsing: record).parameterSets
            : try HEVCDecoderConfigurationRecord(parsing: record).parameterSets
        var toAnnexB = try LengthPrefixedToAnnexB(codec: fixture.codec, outOfBandParameterSets: parameterSets)
        let back = try toAnnexB.convert(lengthPrefixed, lengthSize: 4)
        let expected = nalUnits(original)
        let actual = nalUnits(back)
        #expect(actual.count == expected.count)
        #expect(actual == expected)
        #expect(toAnnexB.statistics.accessUnits == (try fixture.facts()).frames)
        #expect(toLP.statistics.parameterSetsRemoved == toAnnexB.statistics.parameterSetsInserted)
    }

    /// With parameter sets kept in band, the length-prefixed output is ffmpeg's MP4 samples: byte
    /// for byte for x264 streams; for x265 streams ffmpeg keeps each 4-byte start code's zero_byte
    /// at the end of the previous NAL unit, which nalu drops (ITU-T H.265 B.2).
    @Test(arguments: Fixture.all) func lengthPrefixedOutputMatchesFFmpegSamples(fixture: Fixture) throws {
        var converter = try AnnexBToLengthPrefixed(codec: fixture.codec, options: .init(keepParameterSets: true))
        let ours = try converter.convert(try fixture.annexB())
        let ffmpeg = try fixture.lengthPrefixed()
        if fixture.codec == .h264 {
            #expect(ours == ffmpeg)
        } else {
            let trimmed = try lengthPrefixedUnits(ffmpeg).map { unit in
                var unit = unit
                while unit.last == 0 { unit.removeLast() }
                return unit
            }
            #expect(try lengthPrefixedUnits(ours) == trimmed)
        }
    }

    /// ffmpeg's samples + ffmpeg's avcC/hvcC → Annex-B: the NAL units equal those of ffmpeg's
    /// h264_mp4toannexb / hevc_mp4toannexb filter on the same MP4. FFmpeg 5.1's
    /// hevc_mp4toannexb prepends the record's VPS/SPS/PPS to every IRAP even when the access unit
    /// carries them in band, duplicating them; nalu does not, so those duplicates (a parameter set
    /// repeated since the last VCL NAL unit) are removed from ffmpeg's list before comparing.
    @Test(arguments: Fixture.all) func annexBOutputMatchesFFmpegBitstreamFilter(fixture: Fixture) throws {
        let record = try fixture.decoderConfigurationRecord()
        let parameterSets = fixture.codec == .h264
            ? try AVCDecoderConfigurationRecord(parsing: record).parameterSets
            : try HEVCDecoderConfigurationRecord(parsing: record).parameterSets
        var converter = try LengthPrefixedToAnnexB(codec: fixture.codec, outOfBandParameterSets: parameterSets)
        let ours = nalUnits(try converter.convert(try fixture.lengthPrefixed(), lengthSize: 4))
        var ffmpeg = nalUnits(try fixture.bytes("mp4toannexb.\(fixture.streamExtension)"))
        if fixture.codec == .hevc {
            var seenSinceSlice: [[UInt8]] = []
            ffmpeg = ffmpeg.filter { unit in
                let type = (unit[0] >> 1) & 0x3F
                if type < 32 { seenSinceSlice.removeAll() }
                guard (32...34).contains(type) else { return true }
                defer { seenSinceSlice.append(unit) }
                return !seenSinceSlice.contains(unit)
            }
        }
        #expect(ours.count == ffmpeg.count)
        #expect(ours == ffmpeg)
    }

    @Test func extradataIsFFmpegsRecord() throws {
        for fixture in Fixture.all {
            var converter = try AnnexBToLengthPrefixed(codec: fixture.codec)
            _ = try converter.convert(try fixture.annexB())
            #expect(try converter.decoderConfigurationRecord(arrayCompleteness: false).bytes == (try fixture.decoderConfigurationRecord()),
                    "\(fixture.name)")
        }
    }

    @Test(arguments: [1, 2, 4]) func lengthSizes(lengthSize: Int) throws {
        let fixture = try #require(Fixture.all.first { $0.name == "avc_baseline" })
        var converter = try AnnexBToLengthPrefixed(codec: .h264, options: .init(lengthSize: lengthSize, keepParameterSets: true))
        let original = try fixture.annexB()
        if lengthSize == 1 {
            // x264's SEI (its settings string) is larger than 255 bytes: the error names it and where it is.
            do {
                _ = try converter.convert(original)
                Issue.record("expected an error")
            } catch {
                #expect(error.code == .doesNotFit)
                #expect(error.byteOffset == 38)
                #expect(error.description == "NAL unit length: does not fit (SEI NAL unit of 623 bytes does not fit a 1-byte length) at byte 38")
            }
            return
        }
        let converted = try converter.convert(original)
        #expect(try lengthPrefixedUnits(converted, lengthSize: lengthSize) == nalUnits(original))
        var back = try LengthPrefixedToAnnexB(codec: .h264)
        #expect(nalUnits(try back.convert(converted, lengthSize: lengthSize)) == nalUnits(original))
    }

    @Test func stripAndInsertDelimiters() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "avc_ntsc_aud" })
        let original = try fixture.annexB()
        var strip = try AnnexBToLengthPrefixed(codec: .h264, options: .init(keepParameterSets: true, accessUnitDelimiters: .strip))
        let stripped = try strip.convert(original)
        #expect(strip.statistics.delimitersStripped == 15)
        #expect(!types(try lengthPrefixedUnits(stripped), .h264).contains(9))
        // Put them back: one per access unit, with primary_pic_type from the slices.
        var insert = try LengthPrefixedToAnnexB(codec: .h264, options: .init(accessUnitDelimiters: .insert))
        let restored = try insert.convert(stripped, lengthSize: 4)
        #expect(insert.statistics.delimitersInserted == 15)
        #expect(nalUnits(restored) == nalUnits(original))
    }

    @Test func insertedHEVCDelimitersMatchX265s() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "hevc_wpp_aud" })
        let original = try fixture.annexB()
        var strip = try AnnexBToLengthPrefixed(codec: .hevc, options: .init(keepParameterSets: true, accessUnitDelimiters: .strip))
        let stripped = try strip.convert(original)
        var insert = try LengthPrefixedToAnnexB(codec: .hevc, options: .init(accessUnitDelimiters: .insert))
        #expect(nalUnits(try insert.convert(stripped, lengthSize: 4)) == nalUnits(original))
    }

    @Test func parameterSetPolicies() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "avc_ntsc_aud" })  // IDR every 5 frames
        var toLP = try AnnexBToLengthPrefixed(codec: .h264)
        let lengthPrefixed = try toLP.convert(try fixture.annexB())
        #expect(toLP.statistics.parameterSetsRemoved == 6)
        let sets = toLP.parameterSetOrder
        for (policy, expected) in [(ParameterSetInsertion.keyframes, 6), (.first, 2), (.never, 0)] {
            var converter = try LengthPrefixedToAnnexB(codec: .h264, options: .init(parameterSets: policy), outOfBandParameterSets: sets)
            let units = nalUnits(try converter.convert(lengthPrefixed, lengthSize: 4))
            #expect(types(units, .h264).filter { $0 == 7 || $0 == 8 }.count == expected, "\(policy)")
            #expect(converter.statistics.parameterSetsInserted == expected)
        }
    }

    @Test func noDuplicateParameterSetsWhenAlreadyInBand() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "hevc_wpp_aud" })
        // Samples keep VPS/SPS/PPS in band; inserting from the record must not double them.
        var toLP = try AnnexBToLengthPrefixed(codec: .hevc, options: .init(keepParameterSets: true))
        let lengthPrefixed = try toLP.convert(try fixture.annexB())
        var back = try LengthPrefixedToAnnexB(codec: .hevc, outOfBandParameterSets: toLP.parameterSetOrder)
        let units = nalUnits(try back.convert(lengthPrefixed, lengthSize: 4))
        #expect(back.statistics.parameterSetsInserted == 0)
        #expect(units == nalUnits(try fixture.annexB()))
    }

    @Test func keyframeWithoutParameterSetsIsATypedError() throws {
        // Parameter sets moved out, then converted back without the record: the first slice
        // refers to a PPS nobody has.
        let fixture = try #require(Fixture.all.first { $0.name == "avc_main" })
        var toLP = try AnnexBToLengthPrefixed(codec: .h264)
        let lengthPrefixed = try toLP.convert(try fixture.annexB())
        var back = try LengthPrefixedToAnnexB(codec: .h264)
        do {
            _ = try back.convert(lengthPrefixed, lengthSize: 4)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missing)
            #expect(error.field == "pic_parameter_set_id")
            // In the IDR slice, which follows the SEI in the first sample: pic_parameter_set_id is
            // in its first bytes.
            let idrStart = Int64(4 + (try lengthPrefixedUnits(lengthPrefixed))[0].count + 4)
            let offset = try #require(error.byteOffset)
            #expect(offset >= idrStart && offset < idrStart + 4)
        }
    }

    @Test func truncatedInputIsATypedError() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "hevc_main" })
        let lengthPrefixed = try fixture.lengthPrefixed()
        let sets = try HEVCDecoderConfigurationRecord(parsing: try fixture.decoderConfigurationRecord()).parameterSets
        for cut in [3, 10, 100, 5000, lengthPrefixed.count - 1] {
            var converter = try LengthPrefixedToAnnexB(codec: .hevc, outOfBandParameterSets: sets)
            #expect(throws: NALUError.self) { _ = try converter.convert(Array(lengthPrefixed.prefix(cut)), lengthSize: 4) }
        }
    }

    @Test func chunkedStreamingGivesTheSameBytes() throws {
        let fixture = try #require(Fixture.all.first { $0.name == "avc_high_bframes" })
        let original = try fixture.annexB()
        var whole = try AnnexBToLengthPrefixed(codec: .h264)
        let expected = try whole.convert(original)
        var streamed = try AnnexBToLengthPrefixed(codec: .h264)
        var reader = AnnexBReader(MemorySource(original, chunkSize: 333), chunkSize: 512)
        var sink = MemorySink()
        try streamed.convert(&reader, to: &sink)
        #expect(sink.bytes == expected)
    }
}
