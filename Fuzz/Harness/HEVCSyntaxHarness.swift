// H.265 syntax: NAL unit headers, VPS, SPS, PPS, slice segment headers against the parameter sets
// seen so far, prefix/suffix SEI and recovery points, and every derived value (StreamDescription,
// CTB geometry). The input is an Annex-B stream; with no start code it is one NAL unit. Every
// parser must return a value or a typed error.
import NALU

enum HEVCSyntaxHarness {
    static func run(_ bytes: [UInt8]) {
        var units = AnnexB.nalUnits(in: bytes)
        if units.isEmpty { units = [bytes[...]] }
        var store = ParameterSetStore(codec: .hevc)
        var sink = 0
        for unit in units.prefix(64) {
            guard let header = try? HEVCNALUnitHeader(unit) else { continue }
            sink &+= header.nalUnitType.name.utf8.count
            switch header.nalUnitType.rawValue {
            case 32:
                if let vps = try? HEVCVideoParameterSet(nalUnit: unit) { sink &+= vps.vpsVideoParameterSetId }
                _ = try? store.add(Array(unit))
            case 33:
                if let sps = try? HEVCSequenceParameterSet(nalUnit: unit) {
                    let description = StreamDescription(sps)
                    sink &+= description.width &+ description.height &+ description.profileName.utf8.count
                    sink &+= description.levelName.utf8.count &+ (description.tierName?.utf8.count ?? 0)
                    if let rate = description.frameRate { sink &+= Int(truncatingIfNeeded: rate.numerator) }
                    sink &+= sps.picSizeInCtbsY &+ sps.maxPicOrderCntLsb &+ sps.numShortTermRefPicSets
                }
                _ = try? store.add(Array(unit))
            case 34:
                if let pps = try? HEVCPictureParameterSet(nalUnit: unit) { sink &+= pps.ppsPicParameterSetId }
                _ = try? store.add(Array(unit))
            case 0...31:
                let spsTable = store.hevcSPS, ppsTable = store.hevcPPS
                if let slice = try? HEVCSliceSegmentHeader(nalUnit: unit, sps: { spsTable[$0]?.parsed }, pps: { ppsTable[$0]?.parsed }) {
                    sink &+= slice.slicePicParameterSetId
                }
            case 39, 40:
                if let messages = try? SEIMessage.messages(inNALUnit: unit, codec: .hevc) {
                    for message in messages {
                        sink &+= message.payloadSize
                        if message.payloadType == 6, let point = try? HEVCRecoveryPoint(message) { sink &+= point.recoveryPocCnt }
                    }
                }
            default:
                break
            }
        }
        if let description = store.streamDescription { sink &+= description.width }
        withExtendedLifetime(sink) {}
    }
}
