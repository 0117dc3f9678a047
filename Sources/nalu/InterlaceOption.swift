import ArgumentParser
import NALU
import NALUEncoder
import NALUMedia

/// `nalu encode --progressive` (issue 41 item 15): an interlaced compressed input is encoded
/// interlaced with its own field order (``NALU/Interlace``, through
/// ``NALUEncoder/EncoderConfiguration/interlace``) unless this flag asks for progressive
/// pictures; an encoder that cannot code the input's interlacing is refused before anything is
/// written, never given the fields as progressive pictures silently.
struct InterlaceOptions: ParsableArguments {
    @Flag(name: .customLong("progressive"),
          help: "Interlaced input: encode the decoded pictures as progressive ones (fields stay woven as decoded, no deinterlacing filter). Default: encode interlaced with the input's field order (x264 MBAFF for H.264 frames, x265 field pictures for field-coded H.265).")
    var progressive = false

    /// The interlacing to encode: the input's, or `nil` (progressive input, or `--progressive`).
    /// - Throws: a usage error (exit 64) when the input is interlaced and `library` cannot code
    ///   its layout, or `--scale` would resize its woven fields together.
    func interlace(of input: MediaSource?, pid: UInt16?, codec: Codec, library: EncoderName?, scaled: Bool) throws -> Interlace? {
        guard let input, !progressive else { return nil }
        var options = MediaSourceOptions()
        options.pid = pid
        guard let interlace = try input.interlace(options: options) else { return nil }
        let hint = "--progressive encodes the decoded pictures as progressive ones on purpose"
        if scaled {
            throw CLIError.usage("--scale", "the input is \(interlace): resizing would blend its two fields", hint: hint)
        }
        let library = library ?? (codec == .hevc ? .x265 : .x264)
        switch (library, interlace.layout) {
        case (.x264, .interleavedFrames), (.x265, .separateFields):
            return interlace
        case (.x264, .separateFields):
            throw CLIError.usage("x264", "the input is \(interlace) (H.265 field pictures); x264 codes interlaced frames only", hint: "--codec hevc keeps the field pictures; " + hint)
        case (.x265, .interleavedFrames):
            throw CLIError.usage("x265", "the input is \(interlace); x265 codes interlaced video as separate field pictures, not frames", hint: "--codec h264 (x264) keeps it interlaced; " + hint)
        case (.openh264, _):
            throw CLIError.usage("openh264", "the input is \(interlace); OpenH264 codes progressive frames only", hint: "--encoder x264 keeps it interlaced; " + hint)
        }
    }
}
