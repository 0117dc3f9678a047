import Testing
import NALU

/// The one keyframe decision from a NAL unit type (used by ``AccessUnitSplitter`` and the
/// encoder's framing), against the spec tables: H.264 Table 7-1, H.265 Table 7-1.
@Suite struct KeyframeClassTests {
    @Test func avcOnlyIDRSlicesAreKeyframesByType() {
        let classes = (0...31).map { KeyframeClass(nalUnitType: AVCNALUnitType(rawValue: UInt8($0))) }
        #expect(classes.enumerated().filter { $0.element != nil }.map(\.offset) == [5])
        #expect(classes[5] == .idr)
    }

    @Test func hevcIRAPTypesGiveTheirClass() {
        var expected = [KeyframeClass?](repeating: nil, count: 64)
        for type in 16...18 { expected[type] = .bla }
        for type in 19...20 { expected[type] = .idr }
        expected[21] = .cra
        #expect((0...63).map { KeyframeClass(nalUnitType: HEVCNALUnitType(rawValue: UInt8($0))) } == expected)
    }

    /// Every access unit of every fixture: the splitter's class is the one its first VCL NAL
    /// unit's type gives (or a recovery point, which needs the SEI).
    @Test(arguments: Fixture.all) func splitterAgreesWithTheTypeDecision(fixture: Fixture) throws {
        let facts = try fixture.facts()
        let units = try accessUnits(try fixture.annexB(), codec: fixture.codec)
        #expect(units.count == facts.packet_nal_types.count)
        for (unit, types) in zip(units, facts.packet_nal_types) {
            let byType = types.lazy.compactMap { type -> KeyframeClass? in
                fixture.codec == .h264 ? KeyframeClass(nalUnitType: AVCNALUnitType(rawValue: UInt8(type)))
                                       : KeyframeClass(nalUnitType: HEVCNALUnitType(rawValue: UInt8(type)))
            }.first
            if let byType {
                #expect(unit.keyframe == byType, "\(fixture.name) access unit \(unit.index)")
            } else if let keyframe = unit.keyframe {
                #expect(!keyframe.isIRAP, "\(fixture.name) access unit \(unit.index)")
            }
        }
    }
}
