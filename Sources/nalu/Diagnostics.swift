/// Warnings on standard error (`nalu: warning: …`), silenced by `--quiet`. The encoder
/// backends' log lines are routed through ``quiet`` too.
enum Diagnostics {
    /// Set by `--quiet`: no warnings, the libraries' included.
    nonisolated(unsafe) static var quiet = false

    static func warning(_ text: String) {
        guard !quiet else { return }
        StandardError.write("nalu: warning: \(text)\n")
    }

    /// A library's warning (`path: text`), on standard error whatever `--quiet` says, as the
    /// decoders' warnings always were.
    static let libraryWarning: @Sendable (String) -> Void = { text in StandardError.write("nalu: warning: \(text)\n") }

    static func note(_ text: String) {
        guard !quiet else { return }
        StandardError.write("nalu: \(text)\n")
    }
}
