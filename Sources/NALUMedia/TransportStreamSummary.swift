public import NALU
public import NALUTS

/// What a transport stream input's demultiplexer found: the packet size, the program, the
/// stream read and the others, the time stamps, and the damage it stepped over.
public struct TransportStreamSummary: Sendable {
    /// 188, or 192 for M2TS.
    public var packetSize: Int
    /// `program_number` of the program read.
    public var programNumber: UInt16?
    /// The video stream read.
    public var video: ProgramElement?
    /// The program's other elementary streams (audio, subtitles, data).
    public var otherStreams: [ProgramElement]
    /// The other programs the PAT lists (`program_number`, `program_map_PID`): not read (a
    /// reader takes one program's video; `--pid` chooses which).
    public var otherPrograms: [(number: UInt16, pid: UInt16)]
    /// The other programs' elementary streams, by `program_number`, for those whose PMT was
    /// read (``NALUTS/TransportStreamDemuxer/otherProgramTables``).
    public var otherProgramStreams: [UInt16: [ProgramElement]]
    /// Whether a PID was asked for (`--pid`): the program read was chosen, the others left out
    /// on purpose.
    public var streamRequested: Bool
    /// Packets, PES packets, payload bytes, warnings by kind.
    public var counts: TransportStreamCounts
    /// Input bytes read.
    public var bytes: Int64
    /// The time stamps of the first PES packets of the video (at most 32).
    public var firstTimestamps: [PESTimestamps]

    init(reader: TransportStreamReader<some ByteSource>) {
        packetSize = reader.packetSize
        let demuxer = reader.demuxer
        programNumber = demuxer.program?.programNumber
        video = demuxer.video
        otherStreams = (demuxer.program?.elements ?? []).filter { $0.pid != demuxer.video?.pid }
        otherPrograms = demuxer.programsListed.filter { $0.number != demuxer.program?.programNumber }
        otherProgramStreams = Dictionary(demuxer.otherProgramTables.map { ($0.programNumber, $0.elements) }, uniquingKeysWith: { a, _ in a })
        streamRequested = demuxer.requestedPID != nil
        counts = demuxer.counts
        bytes = reader.bytesRead
        firstTimestamps = demuxer.firstTimestamps
    }

    /// The frame period: the smallest positive step between the decoding times (DTS, else PTS)
    /// of consecutive PES packets among the first ones, in 90 kHz ticks.
    public var frameDuration: Int64? {
        var best: Int64?
        for (earlier, later) in zip(firstTimestamps, firstTimestamps.dropFirst()) {
            guard let a = earlier.effectiveDecoding, let b = later.effectiveDecoding else { continue }
            let step = (b - a + TransportStream.timestampModulus) % TransportStream.timestampModulus
            // Steps of more than 10 s are a discontinuity, not a frame.
            if step > 0 && step <= 10 * TransportStream.presentationClockRate && step < (best ?? .max) { best = step }
        }
        return best
    }

    /// Frames per second the time stamps imply (90 kHz over ``frameDuration``), or `nil`.
    public var frameRate: Rational? {
        frameDuration.map { Rational(TransportStream.presentationClockRate, $0).reduced }
    }
}
