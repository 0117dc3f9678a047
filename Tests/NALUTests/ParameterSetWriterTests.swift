import Foundation
import Testing
@testable import NALU

/// The bit writer against known encodings, and the SPS/VPS serialisers as the inverse of the
/// parsers: every SPS and VPS of every fixture stream and record, parsed then written, is the
/// input's RBSP bit for bit (trailing zero bytes aside), and parses back to an equal value.
@Suite struct ParameterSetWriterTests {
    // MARK: Bit writer

    @Test func expGolombCodesMatchTable9_2() {
        // H.264 Table 9-2: 0 → 1, 1 → 010, 2 → 011, 3 → 00100, 7 → 0001000.
        var w = BitWriter()
        w.ue(0); w.ue(1); w.ue(2); w.ue(3); w.ue(7)
        #expect(w.bitCount == 1 + 3 + 3 + 5 + 7)
        // 1 010 011 00100 0001000 → 1010 0110 0100 0001 000
        #expect(w.bytes == [0b1010_0110, 0b0100_0001, 0b0000_0000])
        // Table 9-3: se 1 → 010, −1 → 011, 2 → 00100, −2 → 00101.
        var s = BitWriter()
        s.se(1); s.se(-1); s.se(2); s.se(-2)
        #expect(s.bytes == [0b0100_1100, 0b1000_0101])
        #expect(s.bitCount == 16)
    }

    @Test func largestExpGolombValueRoundTrips() throws {
        var w = BitWriter()
        w.ue(UInt32.max - 1)
        w.se(Int32.min + 1)
        w.se(Int32.max)
        w.u(32, UInt32(0xDEAD_BEEF))
        w.u(48, UInt64(0x1234_5678_9ABC))
        w.rbspTrailingBits()
        var r = BitReader(RBSP(escaped: RBSP.escape(w.bytes)))
        #expect(try r.ue("a") == UInt32.max - 1)
        #expect(try r.se("b") == Int32.min + 1)
        #expect(try r.se("c") == Int32.max)
        #expect(try r.u(32, "d") == 0xDEAD_BEEF)
        #expect(try r.u64(48, "e") == 0x1234_5678_9ABC)
        try r.rbspTrailingBits()
        #expect(r.bitsLeft == 0)
    }

    @Test func trailingBitsAlignAndNALUnitIsEscaped() {
        var w = BitWriter()
        w.u(8, 0 as UInt64); w.u(8, 0 as UInt64); w.u(8, 1 as UInt64)   // 00 00 01 needs escaping
        w.u(3, 0 as UInt64)
        #expect(w.nalUnit(header: [0x06]) == [0x06, 0x00, 0x00, 0x03, 0x01, 0x10])
        var t = BitWriter()
        t.u(3, 5 as UInt64)
        t.rbspTrailingBits()
        #expect(t.bytes == [0b1011_0000])
    }

    @Test func copiedBitsKeepTheirAlignment() throws {
        var source = BitWriter()
        source.u(5, 0b10110 as UInt64)
        source.u(13, 0x1ABC as UInt64)
        source.rbspTrailingBits()
        var reader = BitReader(RBSP(escaped: source.bytes))
        _ = try reader.u(5, "x")
        let start = reader.position
        _ = try reader.u(13, "y")
        let bits = reader.bits(from: start)
        #expect(bits.bitCount == 13)
        var copy = BitWriter()
        copy.u(5, 0b10110 as UInt64)
        copy.append(bits)
        copy.rbspTrailingBits()
        #expect(copy.bytes == source.bytes)
    }

    // MARK: Round trip over the fixtures

    /// Every SPS/VPS NAL unit of the fixture streams and records.
    static func parameterSets(codec: Codec) throws -> [(source: String, unit: [UInt8])] {
        let directory = Fixture.directory
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var found: [(String, [UInt8])] = []
        var seen = Set<[UInt8]>()
        let streamExtension = codec == .h264 ? ".h264" : ".h265"
        let recordExtension = codec == .h264 ? ".avcC" : ".hvcC"
        for name in names where name.hasSuffix(streamExtension) || name.hasSuffix(recordExtension) {
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
            let units = name.hasSuffix(streamExtension)
                ? AnnexB.nalUnits(in: bytes).map(Array.init)
                : try DecoderConfigurationRecord(parsing: bytes, codec: codec).parameterSets
            for unit in units where isWritable(unit, codec: codec) && seen.insert(unit).inserted {
                found.append((name, unit))
            }
        }
        return found
    }

    static func isWritable(_ unit: [UInt8], codec: Codec) -> Bool {
        switch codec {
        case .h264: (try? AVCNALUnitHeader(unit))?.nalUnitType == .sps
        case .hevc: [.vps, .sps].contains((try? HEVCNALUnitHeader(unit))?.nalUnitType)
        }
    }

    /// The RBSP after `headerBytes`, without trailing zero bytes (cabac_zero_words, padding).
    static func trimmedRBSP(_ unit: [UInt8], headerBytes: Int) -> [UInt8] {
        var rbsp = Array(RBSP(escaped: unit[headerBytes...]).bytes)
        while rbsp.last == 0 { rbsp.removeLast() }
        return rbsp
    }

    @Test func everyH264SPSIsWrittenBackBitExactly() throws {
        let units = try Self.parameterSets(codec: .h264)
        #expect(units.count >= 12)
        // The syntax that needs care is among them: HRD (CBR and VBR), interlace. (x264 writes its
        // scaling lists in the PPS, so SPS scaling lists are left to the ps-write fuzz target.)
        let parsed = try units.map { try AVCSequenceParameterSet(nalUnit: $0.unit) }
        #expect(parsed.contains { $0.vuiParameters?.nalHRDParameters != nil })
        #expect(parsed.contains { !$0.frameMbsOnlyFlag })
        for (source, unit) in units {
            let sps = try AVCSequenceParameterSet(nalUnit: unit)
            #expect(sps.rbspBytes() == Self.trimmedRBSP(unit, headerBytes: 1), "\(source)")
            let written = sps.nalUnit(header: unit[0])
            #expect(try AVCSequenceParameterSet(nalUnit: written) == sps, "\(source)")
        }
    }

    @Test func everyH265SPSAndVPSIsWrittenBackBitExactly() throws {
        let units = try Self.parameterSets(codec: .hevc)
        #expect(units.count >= 12)
        var vpsCount = 0
        // scaling_list_data() (x265 --scaling-list) and the VUI HRD (hdr10 fixture) are among them.
        let sets = units.compactMap { try? HEVCSequenceParameterSet(nalUnit: $0.unit) }
        #expect(sets.contains { $0.spsScalingListDataPresentFlag })
        #expect(sets.contains { $0.vuiParameters?.hrdParameters != nil })
        for (source, unit) in units {
            let header = (unit[0], unit[1])
            if try HEVCNALUnitHeader(unit).nalUnitType == .vps {
                vpsCount += 1
                let vps = try HEVCVideoParameterSet(nalUnit: unit)
                #expect(vps.rbspBytes() == Self.trimmedRBSP(unit, headerBytes: 2), "\(source)")
                #expect(try HEVCVideoParameterSet(nalUnit: vps.nalUnit(header: header)) == vps, "\(source)")
            } else {
                let sps = try HEVCSequenceParameterSet(nalUnit: unit)
                #expect(sps.rbspBytes() == Self.trimmedRBSP(unit, headerBytes: 2), "\(source)")
                #expect(try HEVCSequenceParameterSet(nalUnit: sps.nalUnit(header: header)) == sps, "\(source)")
            }
        }
        #expect(vpsCount >= 5)
    }
}

/// ``ParameterSetEdits`` and the SEI writer, on fixture parameter sets.
@Suite struct ParameterSetEditsTests {
    static func firstSPS(_ fixture: String) throws -> [UInt8] {
        let bytes = Array(try Data(contentsOf: Fixture.directory.appendingPathComponent(fixture)))
        let units = AnnexB.nalUnits(in: bytes).map(Array.init)
        if fixture.hasSuffix(".h264") {
            return try #require(units.first { (try? AVCNALUnitHeader($0))?.nalUnitType == .sps })
        }
        return try #require(units.first { (try? HEVCNALUnitHeader($0))?.nalUnitType == .sps })
    }

    @Test func sampleAspectRatioUsesTableE1WhenItCan() throws {
        let sps = try AVCSequenceParameterSet(nalUnit: try Self.firstSPS("avc_main.h264"))
        var edits = ParameterSetEdits()
        edits.sampleAspectRatio = Rational(8, 6)   // 4:3, index 14
        var vui = try #require(try AVCSequenceParameterSet(nalUnit: edits.apply(to: sps).nalUnit()).vuiParameters)
        #expect(vui.aspectRatioIdc == 14 && vui.sarWidth == 0)
        edits.sampleAspectRatio = Rational(5, 7)
        vui = try #require(try AVCSequenceParameterSet(nalUnit: edits.apply(to: sps).nalUnit()).vuiParameters)
        #expect(vui.aspectRatioIdc == 255 && vui.sarWidth == 5 && vui.sarHeight == 7)
        edits.sampleAspectRatio = Rational(70000, 1)
        #expect(throws: NALUError.self) { try edits.apply(to: sps) }
    }

    @Test func frameRateFollowsTheX264Convention() throws {
        var edits = ParameterSetEdits()
        edits.frameRate = Rational(30000, 1001)
        let avc = try AVCSequenceParameterSet(nalUnit: edits.apply(to: AVCSequenceParameterSet(nalUnit: Self.firstSPS("avc_main.h264"))).nalUnit())
        #expect(avc.vuiParameters?.numUnitsInTick == 1001 && avc.vuiParameters?.timeScale == 60000)
        #expect(avc.frameRate == Rational(30000, 1001))
        let hevc = try HEVCSequenceParameterSet(nalUnit: edits.apply(to: HEVCSequenceParameterSet(nalUnit: Self.firstSPS("hevc_main.h265"))).nalUnit())
        #expect(hevc.vuiParameters?.vuiNumUnitsInTick == 1001 && hevc.vuiParameters?.vuiTimeScale == 30000)
    }

    @Test func levelOneBDependsOnTheProfile() throws {
        var edits = ParameterSetEdits()
        edits.level = ParameterSetEdits.Level("1b")
        // High profile: level_idc 9.
        let high = try AVCSequenceParameterSet(nalUnit: edits.apply(to: AVCSequenceParameterSet(nalUnit: Self.firstSPS("avc_high_bframes.h264"))).nalUnit())
        #expect(high.levelIdc == 9 && high.isLevel1b)
        // Baseline: level_idc 11 and constraint_set3_flag; back to 1.1 clears the flag.
        let baseline = try edits.apply(to: AVCSequenceParameterSet(nalUnit: Self.firstSPS("avc_baseline.h264")))
        #expect(baseline.levelIdc == 11 && baseline.constraintSet3Flag && baseline.levelName == "1b")
        edits.level = ParameterSetEdits.Level("1.1")
        let eleven = try edits.apply(to: baseline)
        #expect(eleven.levelIdc == 11 && !eleven.constraintSet3Flag)
        edits.level = ParameterSetEdits.Level("6.2")
        let hevc = try edits.apply(to: HEVCSequenceParameterSet(nalUnit: Self.firstSPS("hevc_main.h265")))
        #expect(hevc.profileTierLevel.generalLevelIdc == 186)
    }

    @Test func cropUnitsFollowChromaAndFieldCoding() throws {
        var edits = ParameterSetEdits()
        edits.crop = ParameterSetEdits.Crop(left: 2, right: 0, top: 4, bottom: 4)
        // Interlaced 4:2:0 (frame_mbs_only_flag 0): CropUnitY = 4.
        let interlaced = try AVCSequenceParameterSet(nalUnit: Self.firstSPS("avc_interlaced.h264"))
        #expect(!interlaced.frameMbsOnlyFlag)
        let cropped = try AVCSequenceParameterSet(nalUnit: edits.apply(to: interlaced).nalUnit())
        #expect(cropped.frameCropLeftOffset == 1 && cropped.frameCropTopOffset == 1 && cropped.frameCropBottomOffset == 1)
        #expect(cropped.height == interlaced.codedHeight - 8)
        edits.crop = ParameterSetEdits.Crop(left: 0, right: 0, top: 2, bottom: 0)
        #expect(throws: NALUError.self) { try edits.apply(to: interlaced) }
        // 4:2:2 H.265: SubWidthC 2, SubHeightC 1, so one row is a unit.
        let rext = try HEVCSequenceParameterSet(nalUnit: Self.firstSPS("hevc_rext422_10.h265"))
        edits.crop = ParameterSetEdits.Crop(left: 2, right: 0, top: 1, bottom: 0)
        let window = try HEVCSequenceParameterSet(nalUnit: edits.apply(to: rext).nalUnit())
        #expect(window.confWinLeftOffset == 1 && window.confWinTopOffset == 1 && window.width == rext.picWidthInLumaSamples - 2)
    }

    @Test func seiMessagesAreWrittenBackWithTheirPayloads() throws {
        let payloads: [(Int, [UInt8])] = [(5, Array(repeating: 0, count: 300)), (6, [0x84]), (300, [1, 2, 3])]
        let messages = payloads.map { SEIMessage(payloadType: $0.0, payload: $0.1[...]) }
        let unit = SEIMessage.nalUnit(header: [0x06], messages: messages)
        let parsed = try SEIMessage.messages(inNALUnit: unit, codec: .h264)
        #expect(parsed.map(\.payloadType) == [5, 6, 300])
        #expect(parsed.map { Array($0.payload) } == payloads.map(\.1))
        // Filter through the editor: dropping type 6 keeps the others byte for byte.
        var editor = StreamEditor(codec: .h264, options: StreamEditOptions(sei: .strip([6])))
        let outcome = try unit.withUnsafeBytes { raw in try editor.edit(raw) }
        guard case .replace(let bytes) = outcome else { Issue.record("expected a rewrite"); return }
        #expect(try SEIMessage.messages(inNALUnit: bytes, codec: .h264).map(\.payloadType) == [5, 300])
        #expect(editor.statistics.seiMessagesRemoved == 1 && editor.statistics.seiNALUnitsRewritten == 1)
    }
}
