import NALUExport
import NALUMedia

/// Audio an output could not hold although `--no-audio` was not given, subtitle, timecode and
/// data tracks not carried, or programs of a transport stream input that were not read although
/// `--pid` did not choose one: the output is written, then ``fail()`` exits with status 2
/// (Docs/cli.md), so a script sees the loss.
struct NotCarried {
    let input: String
    let tracks: [String]
    let why: String
    /// The other programs of a transport stream input, left out.
    var programs: [String] = []
    /// Tracks other than audio (subtitles, timecode, metadata) an output that holds them did
    /// not carry: no option leaves them out, so the exit status says so.
    var others: [String] = []
    /// Why ``others`` were not carried, when not ``why``.
    var otherWhy: String?
    /// What would carry ``others``, for the hint.
    var otherHint: String?

    static let status: Int32 = 2

    func fail() throws {
        var lost: [String] = []
        if !tracks.isEmpty { lost.append("\(tracks.joined(separator: ", ")) not carried: \(why)") }
        if !others.isEmpty { lost.append("\(others.joined(separator: ", ")) not carried: \(otherWhy ?? why)") }
        if !programs.isEmpty {
            lost.append("\(programs.joined(separator: ", ")) not read: nalu reads one program's video and audio")
        }
        var hints: [String] = []
        if !tracks.isEmpty { hints.append("give --no-audio to leave the audio out on purpose (exit 0)") }
        if let otherHint { hints.append(otherHint) }
        if !programs.isEmpty { hints.append("give --pid with a program's video PID to choose it (exit 0; `nalu info` lists the programs)") }
        throw CLIError(input, lost.joined(separator: "; ") + "; the video was written",
                       hint: hints.isEmpty ? nil : hints.joined(separator: "; "), status: Self.status)
    }
}

extension OutputFraming {
    /// What this output carries beside the video.
    var carriageTarget: CarriageTarget {
        switch self {
        case .mp4: .mp4
        case .ts, .m2ts: .transportStream
        case .annexb, .avcc: .elementaryStream
        }
    }
}

extension MediaSource {
    /// What `to` carries of this input (see ``NALUExport/CarriedTracks``).
    func carriedTracks(to: OutputFraming, noAudio: Bool) throws -> CarriedTracks {
        try carriedTracks(to: to.carriageTarget, noAudio: noAudio)
    }

    /// Names the tracks or streams left out (a note), and returns the audio among them unless
    /// `noAudio` asked for that, the subtitle, timecode and data tracks, and a transport stream's
    /// other programs unless `--pid` chose the one read. `reason` replaces what `to` holds as the
    /// words saying why.
    func reportNotCarried(carried: Set<UInt32>, noAudio: Bool, to: OutputFraming, input: String, reason: String? = nil) -> NotCarried? {
        let left = tracksLeftOut(carried: carried, noAudio: noAudio, to: to.carriageTarget)
        let held = reason ?? left.why
        if !left.tracks.isEmpty {
            StandardError.write("nalu: note: \(input): \(left.tracks.joined(separator: ", ")) \(left.tracks.count == 1 ? "is" : "are") not carried; \(held)\n")
        }
        guard left.isLoss else { return nil }
        var lost = NotCarried(input: input, tracks: left.audio, why: held, programs: left.programs, others: left.others)
        if to != .mp4 && !left.others.isEmpty { lost.otherHint = "an MP4 output carries subtitle, timecode and data tracks" }
        return lost
    }
}
