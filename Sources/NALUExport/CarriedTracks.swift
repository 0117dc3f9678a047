public import NALU
public import NALUMP4
public import NALUMedia
import NALUTS

/// What kind of output the tracks beside the video go to (``CarriedTracks``).
public enum CarriageTarget: Sendable, Hashable {
    /// MP4/MOV: every track but other video tracks is copied.
    case mp4
    /// MPEG-TS (188- or 192-byte packets): every AAC (as ADTS), AC-3 and MPEG audio track.
    case transportStream
    /// An H.264/H.265 elementary stream (Annex-B or length-prefixed): the video only.
    case elementaryStream
    /// The MP4 of a smart cut (``NALUSmartCut/SmartTrimmer``): the video and the audio cut with it.
    case cutMP4

    /// The words saying what such an output holds (for ``TracksLeftOut/why``).
    public var holds: String {
        switch self {
        case .mp4: "the MP4 output has the video and the tracks it copies"
        case .transportStream: "the MPEG-TS output carries the video and AAC, AC-3 and MPEG audio"
        case .elementaryStream: "an elementary stream holds one video track"
        case .cutMP4: "a smart cut's MP4 has the video and the audio cut with it"
        }
    }
}

/// The tracks of an MP4/MOV input an output carries beside the video: for MP4 output every
/// track but video tracks (and but the audio with `noAudio`), for MPEG-TS output every AAC,
/// AC-3 and MPEG audio track.
public struct CarriedTracks {
    /// MP4 output: the tracks copied.
    public var mp4: [MP4TrackReader<AnyRandomAccessSource>] = []
    /// MP4 output: the input's movie timescale (the copied tracks' edit lists are in it).
    public var movieTimescale: UInt32 = 0
    /// MPEG-TS output: an MP4/MOV input's audio tracks a transport stream carries.
    public var transportStream: [TransportStreamAudioTrack] = []
    /// A transport stream input's audio streams (to MP4 or MPEG-TS output), each read by a pass of its own.
    public var transportStreamInput: [TransportStreamAudioReader] = []

    /// Nothing carried.
    public init() {}

    /// The track IDs carried (a transport stream's PIDs as `0x1_0000 | PID`).
    public var trackIDs: Set<UInt32> {
        Set(mp4.map(\.track.trackID) + transportStream.map(\.reader.track.trackID)
            + transportStreamInput.map { UInt32($0.pid) | 0x1_0000 })
    }
}

/// The tracks and streams of an input that an output leaves out
/// (``NALUMedia/MediaSource/tracksLeftOut(carried:noAudio:to:)``): nothing is lost silently, so
/// a caller names them, and fails when ``isLoss`` (audio not asked to be left out, programs not
/// chosen).
public struct TracksLeftOut: Sendable, Hashable {
    /// Other video tracks, and a transport stream's streams that are not audio: no output holds
    /// them beside its one video track; a loss unless left out on purpose
    /// (``CarriageLoss/unheld``, ``ExportSettings/dropsTracksNotCarried``).
    public var tracks: [String] = []
    /// Subtitle, timecode and data tracks of an MP4/MOV input not carried: a loss (no option
    /// leaves them out; an MP4 output holds them).
    public var others: [String] = []
    /// Audio tracks or streams left out although the audio was not declined.
    public var audio: [String] = []
    /// Other programs of a transport stream input, not read because none was chosen.
    public var programs: [String] = []
    /// What the output holds (``CarriageTarget/holds``), the reason they are left out.
    public var why: String

    /// Whether something is lost that was not asked for: audio, subtitle/timecode/data tracks,
    /// or unchosen programs.
    public var isLoss: Bool { !audio.isEmpty || !others.isEmpty || !programs.isEmpty }
}

extension MediaSource {
    /// What `target` carries of this input (see ``CarriedTracks``).
    /// - Throws: ``NALU/NALUError`` from reading the input's tracks.
    public func carriedTracks(to target: CarriageTarget, noAudio: Bool) throws(NALUError) -> CarriedTracks {
        do {
            var carried = CarriedTracks()
            if target == .mp4, let copied = try passthroughTracks(audio: !noAudio) {
                carried.mp4 = copied.tracks
                carried.movieTimescale = copied.movieTimescale
            }
            if target == .transportStream && !noAudio { carried.transportStream = try transportStreamAudioTracks() }
            if (target == .mp4 || target == .transportStream) && !noAudio { carried.transportStreamInput = try transportStreamAudioStreams() }
            return carried
        } catch {
            throw NALUError.converting(error, field: "tracks")
        }
    }

    /// The tracks or streams of this input an output carrying `carried` (track IDs, a transport
    /// stream's PIDs as `0x1_0000 | PID`) leaves out: the audio among them unless `noAudio`
    /// declined it, a transport stream's other programs unless a PID chose the one read.
    public func tracksLeftOut(carried: Set<UInt32>, noAudio: Bool, to target: CarriageTarget) -> TracksLeftOut {
        var left = TracksLeftOut(why: target.holds)
        if container.isMP4 {
            for track in otherTracks where !carried.contains(track.trackID) {
                if track.handler == "soun" {
                    if !noAudio { left.audio.append(track.description) }
                } else if track.handler == "vide" {
                    left.tracks.append(track.description)
                } else {
                    left.others.append(track.description)
                }
            }
        } else if let streams = transportStream?.otherStreams {
            for stream in streams where !carried.contains(UInt32(stream.pid) | 0x1_0000) {
                if stream.isAudio {
                    if !noAudio { left.audio.append(stream.description) }
                } else {
                    left.tracks.append(stream.description)
                }
            }
        }
        if let ts = transportStream, !ts.streamRequested {
            left.programs = ts.otherPrograms.map { "program \($0.number) (PMT PID 0x\(String($0.pid, radix: 16)))" }
        }
        return left
    }
}
