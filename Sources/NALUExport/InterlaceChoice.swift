public import NALU
public import NALUEncoder
public import NALUMedia

/// An interlaced input the encoder cannot code as asked (issue 41 item 15): re-encoding it as
/// progressive pictures would be a silent loss of its fields' timing, so the encode stops before
/// anything is written, unless progressive pictures are asked for.
public struct InterlaceRefusal: Error, Sendable, CustomStringConvertible {
    /// The input's interlacing.
    public var interlace: Interlace
    /// The setting at fault: `scale`, `profile`, or the encoder library's name.
    public var field: String
    /// What cannot be done, naming the input's interlacing.
    public var message: String

    public var description: String { "\(field): \(message)" }
}

/// The interlacing an encode of a compressed input codes: the input's own (field order and
/// layout, ``NALUMedia/MediaSource/interlace(options:)``), so fields stay fields, or none.
public enum InterlaceChoice {
    /// The interlacing to encode `input` with: its own, or `nil` for a progressive input (or no
    /// compressed input) and when `progressive` asks for progressive pictures.
    /// - Throws: an ``ExportError`` carrying whole (``ExportError/stageError``) an ``InterlaceRefusal`` when the input is interlaced and the encoder refuses its
    ///   layout (``NALUEncoder/EncoderBackendFactory/validate(_:)``, field `interlace`, or a
    ///   profile that cannot code it), or `scaled` would resize its woven fields together; the
    ///   errors of reading the input's first pictures.
    public static func interlace(of input: MediaSource?, pid: UInt16?, configuration: EncoderConfiguration,
                                 factory: any EncoderBackendFactory, scaled: Bool, progressive: Bool) throws(ExportError) -> Interlace? {
        do {
            guard let input, !progressive else { return nil }
            var options = MediaSourceOptions()
            options.pid = pid
            guard let interlace = try input.interlace(options: options) else { return nil }
            if scaled {
                throw InterlaceRefusal(interlace: interlace, field: "scale", message: "the input is \(interlace): resizing would blend its two fields")
            }
            var interlaced = configuration
            interlaced.interlace = interlace
            do {
                try factory.validate(interlaced)
            } catch {
                // Anything else this configuration holds is reported by the session as before.
                guard error.field == "interlace" || (error.field == "profile" && configuration.profile != nil) else { throw error }
                throw InterlaceRefusal(interlace: interlace, field: error.field == "profile" ? "profile" : factory.name,
                                       message: "the input is \(interlace); \(error.detail ?? error.code.rawValue)")
            }
            return interlace
        } catch {
            throw ExportError(stage: error)
        }
    }
}
