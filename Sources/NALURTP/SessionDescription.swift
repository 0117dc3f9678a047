public import NALU

/// One H.264 or H.265 video stream of an SDP description (RFC 8866 5.14 `m=`, RFC 6184 8.1,
/// RFC 7798 7.1): its port, payload type, packetization and parameter sets.
public struct RTPVideoDescription: Sendable, Hashable {
    public var codec: Codec
    /// The `m=` line's port.
    public var port: UInt16
    /// The `m=` line's payload type (`a=rtpmap`'s).
    public var payloadType: UInt8
    /// The `a=rtpmap` clock rate (90 000 for video).
    public var clockRate: Int
    /// The media-level `c=` address, when there is one.
    public var connectionAddress: String?
    /// H.264 `packetization-mode` (0 when absent, RFC 6184 8.1).
    public var packetizationMode: H264PacketizationMode
    /// H.264 `profile-level-id`: `profile_idc`, the constraint flags byte, `level_idc`.
    public var profileLevelID: [UInt8]?
    /// H.265 `profile-id` (`general_profile_idc`), `tier-flag`, `level-id` (`general_level_idc`).
    public var profileID: Int?
    public var tierFlag: Int?
    public var levelID: Int?
    /// `sprop-max-don-diff` (0 when absent; RFC 7798 7.1, RFC 6184 8.1).
    public var maxDonDiff: Int
    /// H.264 `sprop-parameter-sets`; H.265 `sprop-vps`, `sprop-sps`, `sprop-pps` in that order.
    public var parameterSets: [[UInt8]]
    /// H.264 `sprop-interleaving-depth` (RFC 6184 8.1: VCL NAL units), H.265
    /// `sprop-depack-buf-nalus` (RFC 7798 7.1: NAL units) that may precede a NAL unit in
    /// transmission order and follow it in decoding order; `nil` when absent.
    public var deinterleavingUnits: Int? = nil
    /// H.264 `sprop-deint-buf-req`, H.265 `sprop-depack-buf-bytes`: bytes the de-interleaving
    /// buffer needs; `nil` when absent.
    public var deinterleavingBytes: Int? = nil
    /// H.264 `sprop-init-buf-time` (RFC 6184 8.1): 90 kHz ticks of initial buffering; `nil` when absent.
    public var initialBufferTime: Int? = nil

    public init(codec: Codec, port: UInt16, payloadType: UInt8 = 96, clockRate: Int = 90_000, connectionAddress: String? = nil,
                packetizationMode: H264PacketizationMode = .nonInterleaved, profileLevelID: [UInt8]? = nil, profileID: Int? = nil,
                tierFlag: Int? = nil, levelID: Int? = nil, maxDonDiff: Int = 0, parameterSets: [[UInt8]] = []) {
        self.codec = codec
        self.port = port
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.connectionAddress = connectionAddress
        self.packetizationMode = packetizationMode
        self.profileLevelID = profileLevelID
        self.profileID = profileID
        self.tierFlag = tierFlag
        self.levelID = levelID
        self.maxDonDiff = maxDonDiff
        self.parameterSets = parameterSets
    }

    /// A description of a stream whose parameter sets are `parameterSets`: the profile and level
    /// parameters are read from its (first) SPS.
    public init(codec: Codec, port: UInt16, payloadType: UInt8, parameterSets: [[UInt8]],
                packetizationMode: H264PacketizationMode = .nonInterleaved) {
        self.init(codec: codec, port: port, payloadType: payloadType, packetizationMode: packetizationMode, parameterSets: parameterSets)
        for unit in parameterSets {
            guard let header = try? NALUnitHeader(unit, codec: codec) else { continue }
            switch header {
            case .avc(let avc) where avc.nalUnitType == .sps && profileLevelID == nil:
                if let sps = try? AVCSequenceParameterSet(nalUnit: unit) {
                    profileLevelID = [sps.profileIdc, sps.constraintSetFlags, sps.levelIdc]
                }
            case .hevc(let hevc) where hevc.nalUnitType == .sps && profileID == nil:
                if let sps = try? HEVCSequenceParameterSet(nalUnit: unit) {
                    profileID = Int(sps.profileTierLevel.generalProfileIdc)
                    tierFlag = sps.profileTierLevel.generalTierFlag ? 1 : 0
                    levelID = Int(sps.profileTierLevel.generalLevelIdc)
                }
            default: continue
            }
        }
    }

    /// How its packets are read.
    public var payloadFormat: RTPPayloadFormat {
        RTPPayloadFormat(codec: codec, packetizationMode: packetizationMode, maxDonDiff: maxDonDiff,
                         decodingOrder: RTPDecodingOrderLimits(maxDonDiff: maxDonDiff, bufferUnits: deinterleavingUnits,
                                                               bufferBytes: deinterleavingBytes, initialBufferTime: initialBufferTime))
    }

    /// The encoding name of `a=rtpmap` (RFC 6184 8.2.1, RFC 7798 7.2.1).
    public var encodingName: String { codec == .h264 ? "H264" : "H265" }

    /// The `a=fmtp` parameters, in the order written.
    public var formatParameters: [(String, String)] {
        var parameters: [(String, String)] = []
        switch codec {
        case .h264:
            parameters.append(("packetization-mode", String(packetizationMode.rawValue)))
            if let profileLevelID, profileLevelID.count == 3 {
                parameters.append(("profile-level-id", profileLevelID.map { hex($0) }.joined()))
            }
            if !parameterSets.isEmpty {
                parameters.append(("sprop-parameter-sets", parameterSets.map { Base64.encode($0) }.joined(separator: ",")))
            }
            // RFC 6184 8.1 defines it too (interleaved mode).
            if maxDonDiff > 0 { parameters.append(("sprop-max-don-diff", String(maxDonDiff))) }
            if let deinterleavingUnits { parameters.append(("sprop-interleaving-depth", String(deinterleavingUnits))) }
            if let deinterleavingBytes { parameters.append(("sprop-deint-buf-req", String(deinterleavingBytes))) }
            if let initialBufferTime { parameters.append(("sprop-init-buf-time", String(initialBufferTime))) }
        case .hevc:
            if let profileID { parameters.append(("profile-id", String(profileID))) }
            if let tierFlag { parameters.append(("tier-flag", String(tierFlag))) }
            if let levelID { parameters.append(("level-id", String(levelID))) }
            for (name, type) in [("sprop-vps", HEVCNALUnitType.vps), ("sprop-sps", .sps), ("sprop-pps", .pps)] {
                let sets = parameterSets.filter { $0.count >= 2 && HEVCNALUnitHeader.payloadHeader($0[0], $0[1]).header.nalUnitType == type }
                if !sets.isEmpty { parameters.append((name, sets.map { Base64.encode($0) }.joined(separator: ","))) }
            }
            if maxDonDiff > 0 { parameters.append(("sprop-max-don-diff", String(maxDonDiff))) }
            if let deinterleavingUnits { parameters.append(("sprop-depack-buf-nalus", String(deinterleavingUnits))) }
            if let deinterleavingBytes { parameters.append(("sprop-depack-buf-bytes", String(deinterleavingBytes))) }
        }
        return parameters
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

/// An SDP session description (RFC 8866) of one H.264 or H.265 video stream sent over RTP/AVP:
/// written for a receiver (`nalu rtp send --sdp`), read to receive (`nalu rtp receive --sdp`).
///
/// ```swift
/// let sdp = SessionDescription(address: "127.0.0.1", video: RTPVideoDescription(
///     codec: .h264, port: 5004, payloadType: 96, parameterSets: reader.outOfBandParameterSets))
/// print(sdp.text)
/// let read = try SessionDescription(parsing: sdp.text)
/// ```
public struct SessionDescription: Sendable, Hashable {
    /// The session-level `c=` address (IPv4 or IPv6).
    public var address: String
    /// `s=`.
    public var sessionName: String
    /// The video stream.
    public var video: RTPVideoDescription
    /// The AAC stream (RFC 3640 `mpeg4-generic`), when there is one.
    public var audio: RTPAACDescription?
    /// The other `m=` lines read, whole (another stream the caller is told it does not receive;
    /// the AAC stream's too).
    public var otherMedia: [String]

    /// The longest description read, in bytes.
    public static let maxSize = 64 * 1024

    public init(address: String, sessionName: String = "nalu", video: RTPVideoDescription, audio: RTPAACDescription? = nil,
                otherMedia: [String] = []) {
        self.address = address
        self.sessionName = sessionName
        self.video = video
        self.audio = audio
        self.otherMedia = otherMedia
    }

    /// The description's text, lines ending in CRLF (RFC 8866 5).
    public var text: String {
        let family = address.contains(":") ? "IP6" : "IP4"
        var lines = [
            "v=0",
            "o=- 0 0 IN \(family) \(address)",
            "s=\(sessionName)",
            "c=IN \(family) \(address)",
            "t=0 0",
            "m=video \(video.port) RTP/AVP \(video.payloadType)",
            "a=rtpmap:\(video.payloadType) \(video.encodingName)/\(video.clockRate)",
        ]
        let parameters = video.formatParameters
        if !parameters.isEmpty {
            lines.append("a=fmtp:\(video.payloadType) " + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: ";"))
        }
        if let audio { lines += audio.lines }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// Reads a description: the first `m=video` line whose payload type `a=rtpmap` maps to H264
    /// or H265, its `a=fmtp`, and the connection address (the media's, else the session's).
    /// - Throws: ``NALU/NALUError`` naming the line (`field`) and its byte offset: `.tooLarge`
    ///   past ``maxSize``; `.missing` without a video stream of H.264/H.265 or a `c=` address;
    ///   `.invalidValue` for a malformed `m=`, `a=rtpmap` or `a=fmtp` value (a port, payload type
    ///   or number out of range, base64 that is not).
    public init(parsing text: String) throws(NALUError) {
        guard text.utf8.count <= Self.maxSize else {
            throw NALUError(.tooLarge, field: "SDP", detail: "\(text.utf8.count) bytes; at most \(Self.maxSize)")
        }
        var sessionAddress: String?
        var sessionName = ""
        var media: [SDPMediaSection] = []
        // Lines end in LF or CRLF (RFC 8866 5); split on the bytes, where "\r\n" is two.
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let lineOffset = Int64(start)
            var end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let next = end + 1
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = Substring(String(decoding: bytes[start..<end], as: UTF8.self))
            start = next
            guard line.count >= 2, line.dropFirst().first == "=" else { continue }
            let value = line.dropFirst(2)
            switch line.first {
            case "c":
                let address = try Self.connectionAddress(value, offset: lineOffset)
                if media.isEmpty { sessionAddress = address } else { media[media.count - 1].address = address }
            case "s" where media.isEmpty:
                sessionName = String(value)
            case "m":
                media.append(try SDPMediaSection(mediaLine: value, offset: lineOffset))
            case "a":
                if !media.isEmpty { try media[media.count - 1].attribute(value, offset: lineOffset) }
            default:
                continue
            }
        }
        var chosen: (index: Int, video: RTPVideoDescription)?
        for (index, section) in media.enumerated() {
            if let video = try section.video {
                chosen = (index, video)
                break
            }
        }
        guard let (index, found) = chosen else {
            throw NALUError(.missing, field: "m=video", detail: "no H264 or H265 video stream (a=rtpmap) in the description")
        }
        var video = found
        video.connectionAddress = media[index].address
        guard let address = media[index].address ?? sessionAddress else {
            throw NALUError(.missing, field: "c=", detail: "no connection address for the video stream")
        }
        self.address = address
        self.sessionName = sessionName
        self.video = video
        otherMedia = media.indices.filter { $0 != index }.map { media[$0].line }
        var aac: RTPAACDescription?
        for section in media where aac == nil { aac = try section.aac }
        audio = aac
    }

    /// The address of a `c=IN IP4 addr[/ttl]` value.
    private static func connectionAddress(_ value: Substring, offset: Int64) throws(NALUError) -> String {
        let fields = value.split(separator: " ")
        guard fields.count >= 3, fields[0] == "IN", fields[1] == "IP4" || fields[1] == "IP6" else {
            throw NALUError(.invalidValue, field: "c=", byteOffset: offset, detail: "expected IN IP4|IP6 address")
        }
        return String(fields[2].split(separator: "/").first ?? fields[2])
    }
}

/// One `m=` section while it is read.
struct SDPMediaSection {
    let line: String
    let isVideo: Bool
    let port: UInt16
    let formats: [UInt8]
    var address: String?
    var rtpmaps: [UInt8: (name: String, clockRate: Int, channels: Int)] = [:]
    var fmtps: [UInt8: [(String, Substring, Int64)]] = [:]

    init(mediaLine value: Substring, offset: Int64) throws(NALUError) {
        line = "m=" + value
        let fields = value.split(separator: " ")
        guard fields.count >= 4, let port = UInt16(fields[1].split(separator: "/").first ?? "") else {
            throw NALUError(.invalidValue, field: "m=", byteOffset: offset, detail: "expected media port proto formats")
        }
        isVideo = fields[0] == "video" && fields[2].hasPrefix("RTP/")
        self.port = port
        formats = fields.dropFirst(3).compactMap { UInt8($0) }.filter { $0 <= 127 }
    }

    mutating func attribute(_ value: Substring, offset: Int64) throws(NALUError) {
        if value.hasPrefix("rtpmap:") {
            let body = value.dropFirst("rtpmap:".count)
            let parts = body.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let type = UInt8(parts[0]), type <= 127 else {
                throw NALUError(.invalidValue, field: "a=rtpmap", byteOffset: offset, detail: "expected payload-type encoding/clock-rate")
            }
            let encoding = parts[1].split(separator: "/")
            guard encoding.count >= 2, let rate = Int(encoding[1]), rate > 0, rate <= 1 << 30 else {
                throw NALUError(.invalidValue, field: "a=rtpmap", byteOffset: offset, detail: "expected encoding/clock-rate")
            }
            var channels = 1
            if encoding.count >= 3 {
                guard let count = Int(encoding[2]), (1...255).contains(count) else {
                    throw NALUError(.invalidValue, field: "a=rtpmap", byteOffset: offset, detail: "\(encoding[2]) channels; 1…255")
                }
                channels = count
            }
            rtpmaps[type] = (String(encoding[0]).uppercased(), rate, channels)
        } else if value.hasPrefix("fmtp:") {
            let body = value.dropFirst("fmtp:".count)
            let parts = body.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let type = UInt8(first), type <= 127 else {
                throw NALUError(.invalidValue, field: "a=fmtp", byteOffset: offset, detail: "expected a payload type")
            }
            var parameters: [(String, Substring, Int64)] = []
            for item in (parts.count > 1 ? parts[1] : "").split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard let name = pair.first else { continue }
                let key = name.trimmingSpaces.lowercased()
                parameters.append((key, pair.count > 1 ? pair[1].trimmingSpaces : "", offset))
            }
            fmtps[type] = parameters
        }
    }

    /// The H.264/H.265 stream of this section: its first format `a=rtpmap` maps to H264 or H265.
    var video: RTPVideoDescription? {
        get throws(NALUError) {
            guard isVideo else { return nil }
            for type in formats {
                guard let map = rtpmaps[type] else { continue }
                let codec: Codec
                switch map.name {
                case "H264": codec = .h264
                case "H265": codec = .hevc
                default: continue
                }
                var description = RTPVideoDescription(codec: codec, port: port, payloadType: type, clockRate: map.clockRate,
                                                      packetizationMode: .singleNALUnit)
                var vps: [[UInt8]] = [], sps: [[UInt8]] = [], pps: [[UInt8]] = []
                for (key, value, offset) in fmtps[type] ?? [] {
                    switch key {
                    case "packetization-mode":
                        guard let number = Int(value), let mode = H264PacketizationMode(rawValue: number) else {
                            throw NALUError(.invalidValue, field: "packetization-mode", byteOffset: offset, detail: "\(value); 0, 1 or 2")
                        }
                        description.packetizationMode = mode
                    case "profile-level-id":
                        guard value.utf8.count == 6, let number = UInt32(value, radix: 16) else {
                            throw NALUError(.invalidValue, field: "profile-level-id", byteOffset: offset, detail: "\(value); six hex digits")
                        }
                        description.profileLevelID = [UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8),
                                                      UInt8(truncatingIfNeeded: number)]
                    case "profile-id": description.profileID = try Self.number(value, key, offset, 0...31)
                    case "tier-flag": description.tierFlag = try Self.number(value, key, offset, 0...1)
                    case "level-id": description.levelID = try Self.number(value, key, offset, 0...255)
                    case "sprop-max-don-diff": description.maxDonDiff = try Self.number(value, key, offset, 0...32_767)
                    case "sprop-interleaving-depth" where codec == .h264, "sprop-depack-buf-nalus" where codec == .hevc:
                        description.deinterleavingUnits = try Self.number(value, key, offset, 0...32_767)
                    case "sprop-deint-buf-req" where codec == .h264, "sprop-depack-buf-bytes" where codec == .hevc:
                        description.deinterleavingBytes = try Self.number(value, key, offset, 0...4_294_967_295)
                    case "sprop-init-buf-time" where codec == .h264:
                        description.initialBufferTime = try Self.number(value, key, offset, 0...4_294_967_295)
                    case "sprop-parameter-sets": sps += try Self.sets(value, key, offset)
                    case "sprop-vps": vps += try Self.sets(value, key, offset)
                    case "sprop-sps": sps += try Self.sets(value, key, offset)
                    case "sprop-pps": pps += try Self.sets(value, key, offset)
                    default: continue
                    }
                }
                description.parameterSets = vps + sps + pps
                if codec == .hevc { description.packetizationMode = .nonInterleaved }
                return description
            }
            return nil
        }
    }

    /// The AAC stream of this section: an `m=audio` format `a=rtpmap` maps to MPEG4-GENERIC
    /// with a `config` (RFC 3640 4.1).
    var aac: RTPAACDescription? {
        get throws(NALUError) {
            guard line.hasPrefix("m=audio ") else { return nil }
            for type in formats {
                guard let map = rtpmaps[type], map.name == "MPEG4-GENERIC" else { continue }
                var description = RTPAACDescription(port: port, payloadType: type, sampleRate: map.clockRate, channels: map.channels,
                                                    audioSpecificConfig: [])
                for (key, value, offset) in fmtps[type] ?? [] {
                    switch key {
                    case "config":
                        guard value.utf8.count % 2 == 0, value.utf8.count <= 2 * RTPAACDescription.maxConfigBytes,
                              let bytes = Self.hex(value) else {
                            throw NALUError(.invalidValue, field: "config", byteOffset: offset, detail: "\(value.prefix(40)) is not hex bytes")
                        }
                        description.audioSpecificConfig = bytes
                    case "sizelength": description.sizeLength = try Self.number(value, key, offset, 0...32)
                    case "indexlength": description.indexLength = try Self.number(value, key, offset, 0...32)
                    case "indexdeltalength": description.indexDeltaLength = try Self.number(value, key, offset, 0...32)
                    case "mode":
                        guard !value.isEmpty, value.utf8.count <= 32, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }) else {
                            throw NALUError(.invalidValue, field: "mode", byteOffset: offset, detail: "\(value.prefix(40)): not a mode name")
                        }
                        description.mode = String(value)
                    case "constantduration": description.constantDuration = try Self.number(value, key, offset, 1...65_535)
                    case "ctsdeltalength", "dtsdeltalength", "randomaccessindication", "streamstateindication", "auxiliarydatasizelength",
                         "constantsize":
                        let number = try Self.number(value, key, offset, 0...65_535)
                        if number != 0 { description.otherParameters.append("\(key)=\(number)") }
                    default: continue
                    }
                }
                guard !description.audioSpecificConfig.isEmpty else { continue }
                return description
            }
            return nil
        }
    }

    private static func hex(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? bytes : nil
    }

    private static func number(_ value: Substring, _ key: String, _ offset: Int64, _ range: ClosedRange<Int>) throws(NALUError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw NALUError(.invalidValue, field: key, byteOffset: offset, detail: "\(value); \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    private static func sets(_ value: Substring, _ key: String, _ offset: Int64) throws(NALUError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for item in value.split(separator: ",") {
            guard let bytes = Base64.decode(item), !bytes.isEmpty else {
                throw NALUError(.invalidValue, field: key, byteOffset: offset, detail: "\(item.prefix(40)) is not base64")
            }
            sets.append(bytes)
        }
        return sets
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
