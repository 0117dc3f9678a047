import ArgumentParser
import NALU
import NALUEncoder
import NALUMedia

/// `nalu encode --progressive` (issue 41 item 15): an interlaced compressed input is encoded
/// interlaced with its own field order (``NALUMedia/MediaSource/interlace(options:)`` into
/// ``NALUEncoder/EncoderConfiguration/interlace``) unless this flag asks for progressive
/// pictures. An encoder that cannot code the input's interlacing refuses it (its factory's
/// `validate`, ``NALUEncoder/EncoderError/Code/unsupported``): a usage error before anything is
/// written, never the fields given to it as progressive pictures silently.
struct InterlaceOptions: ParsableArguments {
    @Flag(name: .customLong("progressive"),
          help: "Interlaced input: encode the decoded pictures as progressive ones (fields stay woven as decoded, no deinterlacing filter). Default: encode interlaced with the input's field order (x264 MBAFF for H.264 frames, x265 field pictures for field-coded H.265).")
    var progressive = false

    /// The interlacing to encode `input` with: its own, or `nil` (progressive input, or
    /// `--progressive`), checked against `factory` with the rest of `configuration`.
    /// - Throws: a usage error (exit 64) naming `--progressive` when the input is interlaced and
    ///   the encoder refuses its layout, or `--scale` would resize its woven fields together.
    func interlace(of input: MediaSource?, pid: UInt16?, configuration: EncoderConfiguration, factory: any EncoderBackendFactory,
                   scaled: Bool) throws -> Interlace? {
        guard let input, !progressive else { return nil }
        var options = MediaSourceOptions()
        options.pid = pid
        guard let interlace = try input.interlace(options: options) else { return nil }
        let hint = "--progressive encodes the decoded pictures as progressive ones on purpose"
        if scaled {
            throw CLIError.usage("--scale", "the input is \(interlace): resizing would blend its two fields", hint: hint)
        }
        var interlaced = configuration
        interlaced.interlace = interlace
        let refusal: EncoderError?
        do {
            try factory.validate(interlaced)
            refusal = nil
        } catch {
            refusal = error
        }
        if let refusal {
            // Anything else this configuration holds is reported by the session as before.
            guard refusal.field == "interlace" || (refusal.field == "profile" && configuration.profile != nil) else { throw refusal }
            throw CLIError.usage(refusal.field == "profile" ? "--profile" : factory.name,
                                 "the input is \(interlace); \(refusal.detail ?? refusal.code.rawValue)", hint: hint)
        }
        return interlace
    }
}
