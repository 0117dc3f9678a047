// H.264 syntax: NAL unit headers, SPS, PPS (with and without an SPS), slice headers against the
// parameter sets seen so far, SEI messages and recovery points, and every derived value
// (StreamDescription: size, frame rate, profile/level names). The input is an Annex-B stream; with
// no start code it is one NAL unit. Every parser must return a value or a typed error.
import NALU

enum AVCSyntaxHarness {
    static func run(_ bytes: [UInt8]) {
        var units = AnnexB.nalUnits(in: bytes)
        if units.isEmpty { units = [bytes[...]] }
        var store = ParameterSetStore(codec: .h264)
        var previous: AVCSliceHeader?
        var sink = 0
        for unit in units.prefix(64) {
            guard let header = try? AVCNALUnitHeader(unit) else { continue }
            sink &+= header.nalUnitType.name.utf8.count
            switch header.nalUnitType.rawValue {
            case 7:
                if let sps = try? AVCSequenceParameterSet(nalUnit: unit) {
                    let description = StreamDescription(sps)
                    sink &+= description.width &+ description.height &+ description.profileName.utf8.count
                    sink &+= description.levelName.utf8.count &+ description.chromaFormatName.utf8.count
                    if let rate = description.frameRate { sink &+= Int(truncatingIfNeeded: rate.numerator) }
                }
                _ = try? store.add(Array(unit))
            case 8:
                _ = try? AVCPictureParameterSet(nalUnit: unit, chromaFormatIdc: Int(unit.last ?? 0) % 4)
                _ = try? store.add(Array(unit))
            case 1, 2, 5, 19, 20, 21:
                let spsTable = store.avcSPS, ppsTable = store.avcPPS
                if let slice = try? AVCSliceHeader(nalUnit: unit, sps: { spsTable[$0]?.parsed }, pps: { ppsTable[$0]?.parsed }) {
                    sink &+= slice.pictureType.rawValue
                    if let previous { sink &+= slice.isFirstSliceOfNewPicture(comparedTo: previous) ? 1 : 0 }
                    previous = slice
                }
            case 6:
                if let messages = try? SEIMessage.messages(inNALUnit: unit, codec: .h264) {
                    for message in messages {
                        sink &+= message.payloadSize
                        if message.payloadType == 6, let point = try? AVCRecoveryPoint(message) { sink &+= point.recoveryFrameCnt }
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
