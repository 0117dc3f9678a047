extension MediaSource {
    /// The extension that names a file of this input's kind: `mp4` for MP4/MOV input, else
    /// `h264` or `h265` (what the doctor's fix commands call standard input, `in.h264`).
    public var defaultExtension: String {
        if container.isMP4 { return "mp4" }
        return codec == .h264 ? "h264" : "h265"
    }
}
