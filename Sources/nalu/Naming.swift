import ArgumentParser
import NALU

/// The names users type for a codec: `h264`, `avc`, `x264`; `h265`, `hevc`, `x265`.
extension CodecOption {
    init?(argument: String) {
        switch argument.lowercased() {
        case "h264", "h.264", "avc", "x264", "264": self = .h264
        case "h265", "h.265", "hevc", "x265", "265": self = .hevc
        default: return nil
        }
    }

    static var allValueStrings: [String] { ["h264", "avc", "x264", "h265", "hevc", "x265"] }
}

/// File names: what an extension says about framing and codec, the frame size in a raw video
/// file's name, the default output name of `nalu encode`.
enum Naming {
    static let annexBExtensions = [".h264", ".264", ".avc", ".h265", ".265", ".hevc"]
    static let mp4Extensions = [".mp4", ".m4v", ".mov"]
    /// MPEG-2 transport stream outputs of `nalu convert`: 188-byte packets, and 192-byte M2TS.
    static let transportStreamExtensions = [".ts"]
    static let timestampedTransportStreamExtensions = [".m2ts", ".mts"]

    /// `ts` for `.ts`, `m2ts` for `.m2ts .mts`, else `nil`.
    static func transportStream(_ path: String) -> OutputFraming? {
        let lower = path.lowercased()
        if transportStreamExtensions.contains(where: lower.hasSuffix) { return .ts }
        if timestampedTransportStreamExtensions.contains(where: lower.hasSuffix) { return .m2ts }
        return nil
    }

    /// Whether `path` names an MPEG-TS output (`.ts .m2ts .mts`).
    static func isTransportStream(_ path: String) -> Bool { transportStream(path) != nil }

    /// The output framing of `convert`, `trim`, `concat`: `--to`, else from the output's extension
    /// (`.ts`/`.m2ts`, MP4, else Annex-B; ``checkOutputFraming(_:output:example:)`` refuses a
    /// name that says nothing before the run).
    static func outputFraming(_ to: OutputFraming?, output: String?) -> OutputFraming {
        if let to { return to }
        if let output, let framing = transportStream(output) { return framing }
        switch output.flatMap(framing(forExtensionOf:)) {
        case .mp4: return .mp4
        default: return .annexb
        }
    }

    /// Refuses an output whose framing neither `--to` nor its name says (standard output included).
    static func checkOutputFraming(_ to: OutputFraming?, output: String?, example: String) throws {
        guard to == nil else { return }
        guard let output, output != "-" else {
            throw CLIError.usage(nil, "give --to annexb|avcc|mp4|ts|m2ts for standard output", hint: example)
        }
        if framing(forExtensionOf: output) == nil && !isTransportStream(output) {
            throw unknownFraming(output, transportStream: true)
        }
    }

    /// `annexb` for `.h264 .264 .avc .h265 .265 .hevc`, `mp4` for `.mp4 .m4v .mov`, else `nil`.
    static func framing(forExtensionOf path: String) -> EncodeOutputFormat? {
        let lower = path.lowercased()
        if annexBExtensions.contains(where: lower.hasSuffix) { return .annexb }
        if mp4Extensions.contains(where: lower.hasSuffix) { return .mp4 }
        return nil
    }

    /// The codec an output name implies (`.h265 .265 .hevc`: H.265; `.h264 .264 .avc`: H.264).
    static func codec(forExtensionOf path: String) -> Codec? {
        let lower = path.lowercased()
        if [".h265", ".265", ".hevc"].contains(where: lower.hasSuffix) { return .hevc }
        if [".h264", ".264", ".avc"].contains(where: lower.hasSuffix) { return .h264 }
        return nil
    }

    /// The usage error for an output whose framing its name does not say.
    /// - Parameter transportStream: whether the command writes MPEG-TS too (`nalu convert`).
    static func unknownFraming(_ path: String, transportStream: Bool = false) -> CLIError {
        transportStream
            ? .usage(path, "cannot tell the output framing from the name",
                     hint: "give --to annexb|avcc|mp4|ts|m2ts, or name the output .h264 .264 .avc .h265 .265 .hevc (Annex-B), .mp4 .m4v .mov (MP4), .ts or .m2ts (MPEG-TS)")
            : .usage(path, "cannot tell the output framing from the name",
                     hint: "give --to annexb|avcc|mp4, or name the output .h264 .264 .avc .h265 .265 .hevc (Annex-B) or .mp4 .m4v .mov (MP4)")
    }

    /// The frame size in a raw video file's name, as x264 reads it: the last `WxH` token
    /// (`clip_640x360.yuv`, `cam-1920x1080-nv12.yuv`), or `nil`.
    static func frameSize(inName path: String) -> FrameSize? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let bytes = Array(name.utf8)
        var found: FrameSize?
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]), index == 0 || !isDigit(bytes[index - 1]) else { index += 1; continue }
            var end = index
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "x") || bytes[end] == UInt8(ascii: "X") else { index = end; continue }
            var heightEnd = end + 1
            while heightEnd < bytes.count, isDigit(bytes[heightEnd]) { heightEnd += 1 }
            if heightEnd > end + 1, end - index <= 5, heightEnd - end - 1 <= 5,
               let width = Int(String(decoding: bytes[index..<end], as: UTF8.self)),
               let height = Int(String(decoding: bytes[(end + 1)..<heightEnd], as: UTF8.self)),
               width > 0, height > 0 {
                found = FrameSize(width: width, height: height)
            }
            index = heightEnd
        }
        return found
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `raw.yuv` → `raw.h265`: the input's path with its extension replaced by `newExtension`
    /// (in the input's folder); never the input itself.
    static func defaultOutput(forInput input: String, extension newExtension: String) -> String {
        let slash = input.lastIndex(of: "/")
        let nameStart = slash.map { input.index(after: $0) } ?? input.startIndex
        var stem = input
        if let dot = input[nameStart...].lastIndex(of: "."), dot > nameStart {
            stem = String(input[..<dot])
        }
        let candidate = stem + newExtension
        return candidate == input ? input + newExtension : candidate
    }
}
