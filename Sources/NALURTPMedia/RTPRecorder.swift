public import NALU
public import NALUPackager
public import NALURTP

/// Received RTP packets to a file: an ``NALURTP/RTPReceiver`` (reordering, depacketization,
/// loss accounting), ``NALURTP/RTPDecodeTimes`` (decoding times from the order) and an
/// ``RTPRecordingOutput``. The pipeline of `nalu rtp receive` and `nalu record`; feed it with
/// ``NALURTP/RTPReception`` (UDP, rtpdump) or packets from an RTSP interleaved channel.
///
/// ```swift
/// let recorder = try RTPRecorder(video: description.video, path: "out.mp4")
/// let report = try RTPReception.receive(from: socket, into: &recorder.receiver, limits: RTPReceptionLimits(),
///                                       handle: recorder.handle)
/// try recorder.finish()
/// let losses = recorder.losses(unparsed: report.unparsed, otherMedia: description.otherMedia)
/// ```
public final class RTPRecorder {
    /// The receiver the packets go into.
    public var receiver: RTPReceiver
    /// Where the access units are written.
    public let output: RTPRecordingOutput
    /// The RTCP of the reception (RFC 3550 6), when there is one: its counts go in ``summary``.
    public var rtcp: RTCPReceiverSession?
    /// When each access unit was complete (`nalu rtp receive --timing`), committed by ``finish()``.
    public var timingLog: RTPTimingLog?
    private var times: RTPDecodeTimes
    private var packetNotes: [String] = []
    private var extraNotes: [String] = []
    /// Malformed packets (at most 20 kept), then other notes (rtpdump records cut short).
    public var notes: [String] { packetNotes + audioNotes + extraNotes }

    /// The AAC stream's receiver, when the recorder takes one.
    public var audioReceiver: RTPAACReceiver?
    private var audioNotes: [String] = []

    /// A recorder of the stream `video` describes into `path`, and of the AAC stream `audio`
    /// describes (recorded beside the video in MP4 and MPEG-TS; see ``RTPRecordingOutput``);
    /// with `liveHLS`, `path` is the folder of a live HLS package.
    /// - Throws: the output's errors; ``NALURTP/RTPAACPayloadFormat/init(description:)``'s for
    ///   an AAC mode not read.
    public init(video: RTPVideoDescription, path: String, reorderDelay: Int64 = 200_000_000,
                damagedAccessUnits: RTPDamagedAccessUnits = .drop, audio: RTPAACDescription? = nil, liveHLS: PackagerOptions? = nil) throws(NALUError) {
        receiver = RTPReceiver(options: RTPReceiverOptions(format: video.payloadFormat, payloadType: video.payloadType,
                                                           maxReorderDelay: reorderDelay, damagedAccessUnits: damagedAccessUnits))
        output = try RTPRecordingOutput(path: path, codec: video.codec, parameterSets: video.parameterSets, audio: audio, liveHLS: liveHLS)
        if let audio {
            audioReceiver = RTPAACReceiver(format: try RTPAACPayloadFormat(description: audio), payloadType: audio.payloadType,
                                           maxReorderDelay: reorderDelay)
        }
        times = RTPDecodeTimes(codec: video.codec)
    }

    /// Writes the access units among `events`; keeps malformed packets as notes.
    /// - Throws: ``NALU/NALUError`` from the output.
    public func handle(_ events: [RTPReceiverEvent]) throws(NALUError) {
        for event in events {
            switch event {
            case .accessUnit(let unit):
                try timingLog?.log(rtpTimestamp: unit.rtpTimestamp)
                for timed in times.push(unit) { try output.write(timed) }
            case .malformedPacket(let sequenceNumber, let error):
                if packetNotes.count < 20 { packetNotes.append("packet \(sequenceNumber): \(error)") }
            case .gap, .droppedAccessUnit, .keyframeRequest:
                continue
            }
        }
    }

    var audioNoteCount: Int { audioNotes.count }
    func appendAudioNote(_ text: String) { audioNotes.append(text) }

    /// Adds a note (kept after the malformed packets' notes).
    func note(_ text: String) { extraNotes.append(text) }

    /// Writes the access units held for their decoding times (and the audio held) and finishes the file.
    /// - Throws: ``NALU/NALUError`` from the output.
    public func finish() throws(NALUError) {
        for timed in times.finish() { try output.write(timed) }
        try finishAudio()
        try output.finish()
        try timingLog?.commit()
    }

    /// What the recording lost, one phrase each (empty: nothing): packets lost or late, access
    /// units dropped or written damaged, malformed packets (`unparsed`: datagrams that were no
    /// RTP packet), fragments without their start, NAL units that came after later ones in
    /// decoding order were written, packets of another payload type or source,
    /// access units before the first parameter sets, and `otherMedia` not received.
    public func losses(unparsed: Int, otherMedia: [String]) -> [String] {
        let statistics = receiver.statistics
        var lost: [String] = []
        if statistics.lost > 0 || statistics.late > 0 { lost.append(Self.count(statistics.lost + statistics.late, "packet") + " lost") }
        if statistics.droppedAccessUnits > 0 { lost.append(Self.count(statistics.droppedAccessUnits, "access unit") + " dropped") }
        if statistics.damagedAccessUnits > statistics.droppedAccessUnits {
            lost.append(Self.count(statistics.damagedAccessUnits - statistics.droppedAccessUnits, "access unit") + " written damaged")
        }
        if statistics.malformed + unparsed > 0 { lost.append(Self.count(statistics.malformed + unparsed, "malformed packet")) }
        if statistics.fragmentsWithoutStart > 0 { lost.append(Self.count(statistics.fragmentsWithoutStart, "fragment") + " without its start") }
        if statistics.outOfDecodingOrder > 0 {
            lost.append(Self.count(statistics.outOfDecodingOrder, "NAL unit") + " dropped out of decoding order (past sprop-max-don-diff or the buffer)")
        }
        if statistics.otherPayloadType + statistics.otherSource > 0 {
            lost.append(Self.count(statistics.otherPayloadType + statistics.otherSource, "packet") + " of another payload type or source")
        }
        if output.skippedBeforeParameterSets > 0 {
            lost.append(Self.count(output.skippedBeforeParameterSets, "access unit") + " before the first parameter sets")
        }
        lost += audioLosses
        if !otherMedia.isEmpty { lost.append("not received: " + otherMedia.joined(separator: "; ")) }
        return lost
    }

    /// The receiver's statistics as one line.
    public var summary: String {
        videoSummary + (audioReceiver.map { "; audio: " + Self.audioSummary(of: $0.statistics) } ?? "")
    }

    private var videoSummary: String {
        let statistics = receiver.statistics
        return "\(statistics.accessUnits) access units from \(statistics.packets) packets; "
            + "\(statistics.lost) lost in \(statistics.gaps) gaps, \(statistics.duplicates) duplicates, \(statistics.late) late, "
            + "\(statistics.droppedAccessUnits) access units dropped, \(statistics.damagedAccessUnits) damaged, "
            + "\(statistics.keyframeRequests) keyframe requests, \(statistics.skippedPACI) PACI skipped"
            + (rtcp.map { "; " + RTPRecorder.rtcpSummary($0) } ?? "")
    }

    /// `n thing` or `n things`.
    static func count(_ number: Int, _ thing: String) -> String { "\(number) \(thing)" + (number == 1 ? "" : "s") }
}
