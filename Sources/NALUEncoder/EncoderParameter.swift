/// One `name=value` setting handed to the encoder library's own parser (`x264_param_parse`,
/// `x265_param_parse`) after nalu's settings, as `--x264-params` / `--x265-params` do.
public struct EncoderParameter: Hashable, Sendable, CustomStringConvertible {
    /// The library's option name, e.g. `keyint`, `bframes`, `no-scenecut`.
    public var name: String
    /// The value as the library's CLI takes it; `"true"` for a bare flag.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }

    /// Parses `k=v:k=v` (the form of ffmpeg's `-x264-params`): settings separated by `:`, name
    /// and value by the first `=`; a name alone is the flag `name=true`. An empty name is
    /// ``EncoderError/Code/invalidConfiguration`` with `context` as the error's context.
    public static func list(_ text: String, context: String) throws(EncoderError) -> [EncoderParameter] {
        var parameters: [EncoderParameter] = []
        for item in text.split(separator: ":", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard !name.isEmpty else {
                throw EncoderError(.invalidConfiguration, context: context, detail: "\"\(item)\" has no option name; expected k=v:k=v")
            }
            parameters.append(EncoderParameter(name: name, value: parts.count > 1 ? String(parts[1]) : "true"))
        }
        return parameters
    }
}
