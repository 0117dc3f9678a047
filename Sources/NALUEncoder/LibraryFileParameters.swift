#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The encoder libraries' parameters that name files (issue 32 item 2), and what a session does
/// with each: the libraries open those paths themselves, outside nalu's output rules (no
/// temporary file and rename, no refusal to overwrite the input, FIFOs and devices replaced by
/// x264's stats rename), and some parse what they read without checks (libx265's
/// `analysis-load` throws `std::bad_alloc` on a foreign file, `nalu-file` crashes).
///
/// - Files a library **writes** (x264 `dump-yuv`, `stats`, `pass`, `opencl`, `opencl-clbin`;
///   x265 `csv`, `analysis-save`, `analysis-reuse-file`, `stats`, `pass`,
///   `multi-pass-opt-analysis`, `multi-pass-opt-distortion`): refused.
/// - Files a library **reads and cannot read safely** (x265 `analysis-load`, `nalu-file`,
///   `dhdr10-info`): refused.
/// - Files a library **reads and checks** (x264 `cqmfile`; x265 `scaling-list`, `lambda-file`):
///   allowed when the path is a regular, readable file of at most ``maxReadFileBytes`` bytes
///   (never a FIFO or a device, which would block or never end).
///
/// Names are matched as the libraries' parsers read them: `_` is `-`, and a `no-` or `no`
/// prefix names the same option (`nodump-yuv=1` makes x264 dump into a file named `false`).
public enum LibraryFileParameters {
    /// What a library does with the file a parameter names.
    public enum Handling: Sendable, Equatable {
        /// The library writes (or renames over) the file: refused, with the reason.
        case refused(String)
        /// The library reads the file and rejects what it cannot parse; `notFiles` are values
        /// that are keywords rather than paths.
        case reads(notFiles: Set<String>)
    }

    /// The largest file a `reads` parameter may name (quantiser matrices, lambda tables: a few KB).
    public static let maxReadFileBytes = 1 << 20

    /// x264's parameters (`x264_param_parse`, libx264 164) that name or imply a file.
    public static let x264: [String: Handling] = [
        "dump-yuv": .refused("x264 would write its reconstructed frames to that file itself"),
        "stats": .refused("x264 would write (and rename over) its rate-control statistics file itself"),
        "pass": .refused("multi-pass encoding makes x264 write a statistics file (x264_2pass.log by default) itself"),
        "opencl": .refused("x264's OpenCL lookahead writes a kernel cache file (x264_lookahead.clbin) itself"),
        "opencl-clbin": .refused("x264 would write its OpenCL kernel cache to that file itself"),
        "cqmfile": .reads(notFiles: []),
    ]

    /// x265's parameters (`x265_param_parse`, libx265 199) that name or imply a file.
    public static let x265: [String: Handling] = [
        "csv": .refused("x265 would write its CSV log to that file itself"),
        "analysis-save": .refused("x265 would write its analysis data to that file itself"),
        "analysis-reuse-file": .refused("x265 would read and write its multi-pass analysis file itself"),
        "stats": .refused("x265 would write (and rename over) its rate-control statistics file itself"),
        "pass": .refused("multi-pass encoding makes x265 write a statistics file (x265_2pass.log by default) itself"),
        "multi-pass-opt-analysis": .refused("x265 would write its analysis file (x265_analysis.dat by default) itself"),
        "multi-pass-opt-distortion": .refused("x265 would write its analysis file (x265_analysis.dat by default) itself"),
        "analysis-load": .refused("libx265 does not check the file it loads (a foreign file aborts the process)"),
        "nalu-file": .refused("libx265 does not check the file it reads (a foreign file crashes the process)"),
        "dhdr10-info": .refused("libx265 reads that JSON file unchecked (and ignores it when built without HDR10+)"),
        "scaling-list": .reads(notFiles: ["default", "off"]),
        "lambda-file": .reads(notFiles: []),
    ]

    /// The option `name` means to the libraries' parsers: lower case, `_` as `-`, without a
    /// `no-`/`no` prefix when the rest is in `table`.
    static func canonicalName(_ name: String, in table: [String: Handling]) -> String {
        let plain = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
        if table[plain] != nil { return plain }
        for prefix in ["no-", "no"] where plain.hasPrefix(prefix) {
            let rest = String(plain.dropFirst(prefix.count))
            if table[rest] != nil { return rest }
        }
        return plain
    }

    /// Checks `parameters` against `table`: a refused parameter, or a `reads` parameter whose
    /// file is missing, not a regular file, unreadable or too large, is
    /// ``EncoderError/Code/invalidConfiguration`` with `field` (`x264-params`) and a detail
    /// naming the parameter.
    public static func check(_ parameters: [EncoderParameter], table: [String: Handling], field: String) throws(EncoderError) {
        for parameter in parameters {
            let name = canonicalName(parameter.name, in: table)
            switch table[name] {
            case nil:
                continue
            case .refused(let reason)?:
                throw EncoderError(.invalidConfiguration, field: field,
                                   detail: "\(parameter.name) is refused: \(reason), outside nalu's output rules")
            case .reads(let keywords)?:
                if keywords.contains(parameter.value.lowercased()) { continue }
                // A `no-` form sets the value to "true"/"false", which would name a file.
                guard name == parameter.name.lowercased().replacingUnderscores() else {
                    throw EncoderError(.invalidConfiguration, field: field,
                                       detail: "\(parameter.name) is refused: it would make the library read a file named \"true\" or \"false\"")
                }
                if let problem = readProblem(parameter.value) {
                    throw EncoderError(.invalidConfiguration, field: field, detail: "\(parameter.name)=\(parameter.value): \(problem)")
                }
            }
        }
    }

    /// Why the library should not read `path`, or `nil` when it is a regular readable file of
    /// at most ``maxReadFileBytes``.
    static func readProblem(_ path: String) -> String? {
        guard !path.isEmpty else { return "no file named" }
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        guard access(path, R_OK) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_size <= off_t(maxReadFileBytes) else { return "larger than \(maxReadFileBytes) bytes" }
        return nil
    }
}

private extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
