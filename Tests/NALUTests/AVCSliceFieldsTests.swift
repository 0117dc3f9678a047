import Testing
@testable import NALU

/// The in-place slice reader (`AVCSliceFields`, `EscapedBitReader`) against `AVCSliceHeader`,
/// which unescapes first: same values on every slice of every real H.264 fixture, and `nil` (so
/// the caller falls back to the exact error) wherever `AVCSliceHeader` throws.
@Suite struct AVCSliceFieldsTests {
    static func check(_ nal: [UInt8], _ store: ParameterSetStore) -> Bool {
        let header = try? AVCSliceHeader(nalUnit: Array(nal.prefix(AVCSliceHeader.maxParsedPrefix + 8)),
                                         sps: { store.avcSPS[$0]?.parsed }, pps: { store.avcPPS[$0]?.parsed })
        let fields = nal.withUnsafeBytes {
            AVCSliceFields(nalUnit: $0, spsFacts: store.avcSPSFacts, ppsFacts: store.avcPPSFacts)
        }
        guard let fields else { return true }   // the fallback decides
        guard let header else { return false }  // the fast path accepted what the parser rejects
        let expected = AVCSliceFields(header, seqParameterSetId: store.avcPPS[header.picParameterSetId]?.parsed.seqParameterSetId ?? -1)
        return fields.nalRefIdc == expected.nalRefIdc && fields.idrPicFlag == expected.idrPicFlag
            && fields.sliceType == expected.sliceType && fields.picParameterSetId == expected.picParameterSetId
            && fields.seqParameterSetId == expected.seqParameterSetId && fields.frameNum == expected.frameNum
            && fields.fieldPicFlag == expected.fieldPicFlag && fields.bottomFieldFlag == expected.bottomFieldFlag
            && fields.idrPicId == expected.idrPicId && fields.picOrderCntType == expected.picOrderCntType
            && fields.picOrderCntLsb == expected.picOrderCntLsb && fields.deltaPicOrderCntBottom == expected.deltaPicOrderCntBottom
            && fields.deltaPicOrderCnt0 == expected.deltaPicOrderCnt0 && fields.deltaPicOrderCnt1 == expected.deltaPicOrderCnt1
            && fields.redundantPicCnt == expected.redundantPicCnt
    }

    @Test(arguments: Fixture.avc) func sameValuesAsSliceHeaderOnEveryFixtureSlice(fixture: Fixture) throws {
        var store = ParameterSetStore(codec: .h264)
        var slices = 0
        var fastPath = 0
        for unit in AnnexB.nalUnits(in: try fixture.annexB()) {
            let nal = Array(unit)
            switch AVCNALUnitType(rawValue: nal[0]) {
            case .sps, .pps: try store.add(nal)
            case .nonIDRSlice, .sliceDataPartitionA, .idrSlice:
                slices += 1
                #expect(Self.check(nal, store), "\(fixture.name) slice \(slices)")
                if nal.withUnsafeBytes({ AVCSliceFields(nalUnit: $0, spsFacts: store.avcSPSFacts, ppsFacts: store.avcPPSFacts) }) != nil {
                    fastPath += 1
                }
            default: break
            }
        }
        #expect(slices > 0)
        #expect(fastPath == slices, "every real slice takes the fast path")
    }

    @Test func mutatedSlicesNeverDisagree() throws {
        // Every fixture slice header with single bytes changed: where both read it, the values
        // are the same; where the parser throws, the fast path gives up.
        var generator = SplitMix64(seed: 0x5A11_CE)
        for fixture in Fixture.avc.prefix(6) {
            var store = ParameterSetStore(codec: .h264)
            var slices = 0
            for unit in AnnexB.nalUnits(in: try fixture.annexB()) {
                var nal = Array(unit.prefix(64))
                switch AVCNALUnitType(rawValue: nal[0]) {
                case .sps, .pps: try store.add(Array(unit))
                case .nonIDRSlice, .sliceDataPartitionA, .idrSlice:
                    slices += 1
                    guard slices <= 40 else { continue }
                    for _ in 0..<20 {
                        let index = 1 + Int(generator.next() % UInt64(nal.count - 1))
                        nal[index] = UInt8(truncatingIfNeeded: generator.next())
                        #expect(Self.check(nal, store), "\(fixture.name) slice \(slices)")
                    }
                default: break
                }
            }
        }
    }

    @Test func escapedBitReaderDropsEmulationPreventionBytes() {
        // 00 00 03 01 -> RBSP 00 00 01; the 03 is dropped only after two zeros.
        let bytes: [UInt8] = [0x00, 0x00, 0x03, 0x01, 0x03, 0xFF]
        bytes.withUnsafeBytes { buffer in
            var reader = EscapedBitReader(buffer, from: 0, limit: 6)
            #expect(reader.bits(24) == 0x000001)
            #expect(reader.bits(8) == 0x03)
            #expect(reader.bits(8) == 0xFF)
            #expect(reader.bits(1) == nil)
        }
        // ue(v): 1 -> 0, 010 -> 1, 011 -> 2, 00100 -> 3; se(v) 00101 -> -2.
        let codes: [UInt8] = [0b1010_0110, 0b0100_0010, 0b1000_0000]
        codes.withUnsafeBytes { buffer in
            var reader = EscapedBitReader(buffer, from: 0, limit: 3)
            #expect(reader.ue() == 0)
            #expect(reader.ue() == 1)
            #expect(reader.ue() == 2)
            #expect(reader.ue() == 3)
            #expect(reader.se() == -2)
            #expect(reader.ue() == nil)
        }
    }
}
