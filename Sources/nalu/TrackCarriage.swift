import NALU
import NALUMP4
import NALUMedia
import NALUTS

/// The tracks of an MP4/MOV input an output carries beside the video: for MP4 output every
/// track but video tracks (and but the audio with `--no-audio`), for MPEG-TS output every AAC,
/// AC-3 and MPEG audio track.
struct CarriedTracks {
    var mp4: [MP4TrackReader<AnyRandomAccessSource>] = []
    var movieTimescale: UInt32 = 0
    var transportStream: [TransportStreamAudioTrack] = []
    /// A transport stream input's audio streams (to MP4 or MPEG-TS output), each read by a pass of its own.
    var transportStreamInput: [TransportStreamAudioReader] = []

    /// The track IDs carried (a transport stream's PIDs as `0x1_0000 | PID`).
    var trackIDs: Set<UInt32> {
        Set(mp4.map(\.track.trackID) + transportStream.map(\.reader.track.trackID)
            + transportStreamInput.map { UInt32($0.pid) | 0x1_0000 })
    }
}

/// Audio an output could not hold although `--no-audio` was not given, or programs of a
/// transport stream input that were not read although `--pid` did not choose one: the output is
/// written, then ``fail()`` exits with status 2 (Docs/cli.md), so a script sees the loss.
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

extension MediaSource {
    /// What `to` carries of this input (see ``CarriedTracks``).
    func carriedTracks(to: OutputFraming, noAudio: Bool) throws -> CarriedTracks {
        var carried = CarriedTracks()
        if to == .mp4, let copied = try passthroughTracks(audio: !noAudio) {
            carried.mp4 = copied.tracks
            carried.movieTimescale = copied.movieTimescale
        }
        if to.isTransportStream && !noAudio { carried.transportStream = try transportStreamAudioTracks() }
        if (to == .mp4 || to.isTransportStream) && !noAudio { carried.transportStreamInput = try transportStreamAudioStreams() }
        return carried
    }

    /// Names the tracks or streams left out (a note), and returns the audio among them unless
    /// `noAudio` asked for that, and a transport stream's other programs unless `--pid` chose
    /// the one read. `reason` replaces what `to` holds as the words saying why.
    func reportNotCarried(carried: Set<UInt32>, noAudio: Bool, to: OutputFraming, input: String, reason: String? = nil) -> NotCarried? {
        var dropped: [String] = []
        var audio: [String] = []
        var others: [String] = []
        if container.isMP4 {
            for track in otherTracks where !carried.contains(track.trackID) {
                if track.handler == "soun" {
                    if !noAudio { audio.append(track.description) }
                } else if track.handler == "vide" {
                    dropped.append(track.description)
                } else {
                    // Subtitles, timecode, data: a track left out is a loss (an MP4 output holds them).
                    others.append(track.description)
                }
            }
        } else if let streams = transportStream?.otherStreams {
            for stream in streams where !carried.contains(UInt32(stream.pid) | 0x1_0000) {
                if stream.isAudio {
                    if !noAudio { audio.append(stream.description) }
                } else {
                    dropped.append(stream.description)
                }
            }
        }
        let holds = switch to {
        case .mp4: "the MP4 output has the video and the tracks it copies"
        case .ts, .m2ts: "the MPEG-TS output carries the video and AAC, AC-3 and MPEG audio"
        case .annexb, .avcc: "an elementary stream holds one video track"
        }
        let held = reason ?? holds
        // Other programs of a transport stream: left out unless --pid chose the one read.
        var programs: [String] = []
        if let ts = transportStream, !ts.streamRequested {
            programs = ts.otherPrograms.map { "program \($0.number) (PMT PID 0x\(String($0.pid, radix: 16)))" }
        }
        if !dropped.isEmpty {
            StandardError.write("nalu: note: \(input): \(dropped.joined(separator: ", ")) \(dropped.count == 1 ? "is" : "are") not carried; \(held)\n")
        }
        guard !audio.isEmpty || !programs.isEmpty || !others.isEmpty else { return nil }
        var lost = NotCarried(input: input, tracks: audio, why: held, programs: programs, others: others)
        if to != .mp4 && !others.isEmpty { lost.otherHint = "an MP4 output carries subtitle, timecode and data tracks" }
        return lost
    }
}
