public import NALU

/// The SEI messages that change how a stream looks or starts, as `nalu info` reports them: the
/// first mastering display colour volume, content light level, recovery point and encoder
/// user-data string of the stream, and how many SEI messages of each `payloadType` there were.
///
/// Bounded: only the first ``nalUnitLimit`` SEI NAL units are decoded (each split with
/// ``SEIMessage/defaultMessageLimit``); a malformed SEI NAL unit or payload is recorded as
/// ``firstError`` and does not stop the scan.
public struct SEISummary: Sendable {
    /// How many SEI NAL units are decoded at most.
    public static let nalUnitLimit = 4096
    /// How much of an encoder's settings string is kept.
    public static let userDataTextLimit = 2048

    public var masteringDisplay: MasteringDisplayColourVolume?
    public var contentLightLevel: ContentLightLevelInfo?
    /// The first recovery point's count: `recovery_frame_cnt` (H.264) or `recovery_poc_cnt` (H.265).
    public var recoveryPointCount: Int?
    /// How many recovery point messages there were.
    public var recoveryPoints = 0
    /// The first user data unregistered message that holds text (x264/x265 write their settings).
    public var userData: UserDataUnregistered?
    /// SEI messages by `payloadType`, over the decoded NAL units.
    public var payloadTypeCounts: [Int: Int] = [:]
    /// SEI NAL units seen, decoded or not.
    public var nalUnits = 0
    /// The first decoding error, for the report.
    public var firstError: NALUError?

    public init() {}

    /// Takes one SEI NAL unit (escaped, header included) that starts at byte `offset` of the input.
    public mutating func add(_ nalUnit: ArraySlice<UInt8>, codec: Codec, offset: Int64) {
        nalUnits += 1
        guard nalUnits <= Self.nalUnitLimit else { return }
        do throws(NALUError) {
            for message in try SEIMessage.messages(inNALUnit: nalUnit, codec: codec) {
                payloadTypeCounts[message.payloadType, default: 0] += 1
                try take(message, codec: codec)
            }
        } catch {
            if firstError == nil { firstError = error.offset(by: offset) }
        }
    }

    private mutating func take(_ message: SEIMessage, codec: Codec) throws(NALUError) {
        switch message.payloadType {
        case MasteringDisplayColourVolume.payloadType where masteringDisplay == nil:
            masteringDisplay = try MasteringDisplayColourVolume(message)
        case ContentLightLevelInfo.payloadType where contentLightLevel == nil:
            contentLightLevel = try ContentLightLevelInfo(message)
        case AVCRecoveryPoint.payloadType:
            recoveryPoints += 1
            if recoveryPointCount == nil {
                recoveryPointCount = codec == .h264 ? try AVCRecoveryPoint(message).recoveryFrameCnt
                    : try HEVCRecoveryPoint(message).recoveryPocCnt
            }
        case UserDataUnregistered.payloadType where userData == nil:
            let data = try UserDataUnregistered(message, limit: Self.userDataTextLimit)
            if data.text() != nil { userData = data }
        default: break
        }
    }
}
