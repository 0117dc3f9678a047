import NALUMedia

/// How bad a ``DoctorFinding`` is: an error makes `nalu doctor` exit 3, a warning does not,
/// and information (`info`) is what a user should know about the stream though nothing is wrong.
public enum DoctorSeverity: String, Hashable, Sendable, Comparable {
    case error
    case warning
    case information = "info"

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .information: 2
        }
    }

    public static func < (lhs: DoctorSeverity, rhs: DoctorSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// Where a stream is going: each target adds the checks its players need (`nalu doctor --target`).
public enum DoctorTarget: String, Hashable, Sendable, CaseIterable {
    /// Apple players (AVFoundation, Safari, QuickTime): HEVC in MP4 must be `hvc1`; H.264 up to
    /// level 5.2, 8-bit 4:2:0 (Baseline, Main, High); HEVC 4:2:0 up to 10 bits.
    case apple
    /// Browsers (MSE, `<video>`): H.264 8-bit 4:2:0; HEVC only where the platform decodes it.
    case web
    /// Broadcast and HLS/MPEG-TS: access unit delimiters in every access unit, a fixed frame rate.
    case broadcast
}

/// The stable codes of `nalu doctor`'s findings (Docs/doctor.md lists each with an example).
public enum DoctorCode: String, Hashable, Sendable, CaseIterable {
    // Errors.
    case noParameterSets = "no-parameter-sets"
    case missingReference = "missing-reference"
    case startsWithoutKeyframe = "starts-without-keyframe"
    case levelExceeded = "level-exceeded"
    case truncated
    case forbiddenZeroBit = "forbidden-zero-bit"
    case recordMismatch = "record-mismatch"
    case nonMonotonicTimestamps = "non-monotonic-timestamps"
    case bFramesWithoutCtts = "b-frames-without-ctts"
    case malformed
    /// The decoder reported an error inside a picture (`nalu doctor --decode`).
    case decodeError = "decode-error"
    /// A streaming package (`nalu doctor DIR|.m3u8|.mpd`, ``PackageDoctor``): a file the
    /// manifests name is not on disk.
    case packageFileMissing = "package-file-missing"
    /// A video segment starts with a picture that is no keyframe.
    case segmentStartsWithoutKeyframe = "segment-starts-without-keyframe"
    /// A segment's `EXTINF`, rounded, exceeds `EXT-X-TARGETDURATION`.
    case segmentOverTarget = "segment-over-target"
    /// A declared codec string (`CODECS`, `@codecs`) is not the one the parameter sets give.
    case codecsMismatch = "codecs-mismatch"
    /// Video renditions whose segments start at different times.
    case renditionsMisaligned = "renditions-misaligned"
    /// A progressive MP4 track's edit that shows media for no time (`segment_duration` 0 with a
    /// `media_time`): players show none of the track. A fragmented movie's open-ended edit copied
    /// into a progressive one, where 0 no longer means "to the end".
    case zeroLengthEdit = "zero-length-edit"
    /// A URI that leaves the package folder (`..`, an absolute path, a symlink out): not opened.
    case segmentOutsidePackage = "segment-outside-package"
    /// A URI that names a directory, a FIFO, a device or a socket: not opened.
    case segmentNotAFile = "segment-not-a-file"
    /// A segment, init segment or byte range that cannot be read as what it should be.
    case segmentUnreadable = "segment-unreadable"
    /// A segment whose samples last other than the manifest says (`EXTINF`, `S@d`).
    case segmentDurationMismatch = "segment-duration-mismatch"
    /// A manifest value that is not usable (a duration that is no number, a time past 2^63),
    /// a manifest that is none, or one that declares more segments than the doctor checks.
    case manifestInvalid = "manifest-invalid"
    // Warnings.
    case hev1SampleEntry = "hev1-sample-entry"
    case noTiming = "no-timing"
    case noVUIColour = "no-vui-colour"
    case openGOPStart = "open-gop-start"
    case missingAUD = "missing-aud"
    case oddDimensions = "odd-dimensions"
    case seiOverflow = "sei-overflow"
    case targetUnsupported = "target-unsupported"
    case variableFrameRate = "variable-frame-rate"
    /// `nalu doctor --decode`: the stream's format is one the decoders cannot give (4:0:0, 12 bits).
    case decodeUnsupported = "decode-unsupported"

    /// The severity a finding of this code has unless a target raises it.
    public var defaultSeverity: DoctorSeverity {
        switch self {
        case .noParameterSets, .missingReference, .startsWithoutKeyframe, .levelExceeded, .truncated, .forbiddenZeroBit,
             .recordMismatch, .nonMonotonicTimestamps, .bFramesWithoutCtts, .malformed, .decodeError,
             .packageFileMissing, .segmentStartsWithoutKeyframe, .segmentOverTarget, .codecsMismatch, .renditionsMisaligned,
             .segmentOutsidePackage, .segmentNotAFile, .segmentUnreadable, .segmentDurationMismatch, .manifestInvalid, .zeroLengthEdit:
            .error
        case .hev1SampleEntry, .noTiming, .noVUIColour, .openGOPStart, .missingAUD, .oddDimensions, .seiOverflow,
             .targetUnsupported:
            .warning
        case .decodeUnsupported:
            .warning
        // Information unless --target broadcast, which expects a constant rate.
        case .variableFrameRate:
            .information
        }
    }
}

/// One thing `nalu doctor` found: what, where (access unit and byte offset), which clause of
/// which specification says so, and the command that fixes it when there is one.
///
/// A code found many times is reported once, at its first occurrence, with ``count``.
public struct DoctorFinding: Hashable, Sendable {
    public var severity: DoctorSeverity
    public var code: DoctorCode
    public var message: String
    /// The access unit's index in decoding order (for MP4 input, from 0 like the samples), or
    /// `nil` when the finding is about the whole file.
    public var accessUnit: Int?
    /// The byte offset in the input: of the NAL unit's header for findings about one NAL unit,
    /// of the access unit's first byte (start code or length prefix) for findings about a
    /// picture, of the MP4 sample for container timing; `nil` for the whole file.
    public var byteOffset: Int64?
    /// The specification clause, e.g. "H.264 7.4.1.2.1".
    public var clause: String
    /// A `nalu edit`/`nalu convert` command line that fixes it, when one exists.
    public var fix: String?
    /// How many times the code was found (1 or more).
    public var count: Int

    public init(severity: DoctorSeverity, code: DoctorCode, message: String, accessUnit: Int?, byteOffset: Int64?,
                clause: String, fix: String? = nil, count: Int = 1) {
        self.severity = severity
        self.code = code
        self.message = message
        self.accessUnit = accessUnit
        self.byteOffset = byteOffset
        self.clause = clause
        self.fix = fix
        self.count = count
    }
}

/// The findings of one run, one per code (the first occurrence, counted), in the order first
/// found: memory stays bounded by the number of codes however long the stream.
struct DoctorFindingLog {
    private(set) var findings: [DoctorFinding] = []
    /// What makes two findings one: the code, or the code and a key (a sample description, a
    /// rendition), with the finding's index (a dictionary: a package's many keys stay linear).
    private var indices: [String: Int] = [:]

    mutating func add(_ finding: DoctorFinding, key: String? = nil) {
        let key = finding.code.rawValue + (key.map { "/" + $0 } ?? "")
        if let index = indices[key] {
            findings[index].count += 1
        } else {
            indices[key] = findings.count
            findings.append(finding)
        }
    }

    func contains(_ code: DoctorCode) -> Bool { findings.contains { $0.code == code } }

    /// Counts one more finding of `code` and `key` when there is one already; false otherwise
    /// (the caller then makes the finding and ``add(_:key:)``s it).
    mutating func count(_ code: DoctorCode, key: String) -> Bool {
        guard let index = indices[code.rawValue + "/" + key] else { return false }
        findings[index].count += 1
        return true
    }
}
