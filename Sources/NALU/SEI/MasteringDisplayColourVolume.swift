/// A mastering display colour volume SEI message, `mastering_display_colour_volume()`
/// (`payloadType` 137; ITU-T H.265 D.2.28, semantics D.3.28; the same syntax in ITU-T H.264):
/// the colour volume of the display the content was graded on (SMPTE ST 2086), what HDR10
/// players tone-map against.
///
/// Chromaticities are in units of 0.00002 (denominator 50000), luminances in units of
/// 0.0001 cd/m² (denominator 10000), as ffprobe prints them ("34000/50000").
public struct MasteringDisplayColourVolume: Hashable, Sendable {
    /// `payloadType` of the message.
    public static let payloadType = 137
    /// The payload is exactly 24 bytes: 8 × u(16) and 2 × u(32).
    public static let payloadSize = 24

    /// `display_primaries_x[c]`, `display_primaries_y[c]` for c = 0, 1, 2. By the usual
    /// convention (SMPTE ST 2086 order as encoders write it) c = 0 is green, 1 blue, 2 red.
    public let displayPrimariesX: [Int]
    public let displayPrimariesY: [Int]
    /// `white_point_x`, `white_point_y`.
    public let whitePointX: Int
    public let whitePointY: Int
    /// `max_display_mastering_luminance` and `min_display_mastering_luminance` (0.0001 cd/m²).
    public let maxDisplayMasteringLuminance: UInt32
    public let minDisplayMasteringLuminance: UInt32

    /// Decodes a message of `payloadType` 137 (either codec).
    /// - Throws: ``NALUError`` naming the field and the payload's byte offset when the payload
    ///   has another type or is shorter than 24 bytes.
    public init(_ message: SEIMessage) throws(NALUError) {
        guard message.payloadType == Self.payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 137 (mastering display colour volume)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        do throws(NALUError) {
            var reader = message.payloadReader()
            var xs = [Int](), ys = [Int]()
            for _ in 0..<3 {
                xs.append(try reader.bits(16, "display_primaries_x"))
                ys.append(try reader.bits(16, "display_primaries_y"))
            }
            displayPrimariesX = xs
            displayPrimariesY = ys
            whitePointX = try reader.bits(16, "white_point_x")
            whitePointY = try reader.bits(16, "white_point_y")
            maxDisplayMasteringLuminance = try reader.u(32, "max_display_mastering_luminance")
            minDisplayMasteringLuminance = try reader.u(32, "min_display_mastering_luminance")
        } catch {
            throw error.offset(by: Int64(message.payloadOffset))
        }
    }
}

/// A content light level information SEI message, `content_light_level_info()` (`payloadType`
/// 144; ITU-T H.265 D.2.35, semantics D.3.35; the same syntax in ITU-T H.264): MaxCLL and
/// MaxFALL in cd/m².
public struct ContentLightLevelInfo: Hashable, Sendable {
    /// `payloadType` of the message.
    public static let payloadType = 144

    /// `max_content_light_level` (MaxCLL).
    public let maxContentLightLevel: Int
    /// `max_pic_average_light_level` (MaxFALL).
    public let maxPicAverageLightLevel: Int

    /// Decodes a message of `payloadType` 144 (either codec).
    /// - Throws: ``NALUError`` when the payload has another type or fewer than 4 bytes.
    public init(_ message: SEIMessage) throws(NALUError) {
        guard message.payloadType == Self.payloadType else {
            throw NALUError.invalid("payloadType", "\(message.payloadType), expected 144 (content light level information)",
                                    byteOffset: Int64(message.payloadOffset))
        }
        do throws(NALUError) {
            var reader = message.payloadReader()
            maxContentLightLevel = try reader.bits(16, "max_content_light_level")
            maxPicAverageLightLevel = try reader.bits(16, "max_pic_average_light_level")
        } catch {
            throw error.offset(by: Int64(message.payloadOffset))
        }
    }
}
