import ArgumentParser
import NALU
import NALUEncoder
import NALUExport
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

    /// The interlacing to encode `input` with (``NALUExport/InterlaceChoice``): its own, or
    /// `nil` (progressive input, or `--progressive`).
    /// - Throws: a usage error (exit 64) naming `--progressive` when the input is interlaced and
    ///   the encoder refuses its layout, or `--scale` would resize its woven fields together.
    func interlace(of input: MediaSource?, pid: UInt16?, configuration: EncoderConfiguration, factory: any EncoderBackendFactory,
                   scaled: Bool) throws -> Interlace? {
        do {
            return try ExportError.unwrapping {
                try InterlaceChoice.interlace(of: input, pid: pid, configuration: configuration, factory: factory,
                                              scaled: scaled, progressive: progressive)
            }
        } catch let refusal as InterlaceRefusal {
            let option = refusal.field == "scale" || refusal.field == "profile" ? "--" + refusal.field : refusal.field
            throw CLIError.usage(option, refusal.message, hint: "--progressive encodes the decoded pictures as progressive ones on purpose")
        }
    }
}
