public import NALU

/// How a ``TransportStreamWriter`` lays out its one program.
public struct TransportStreamWriterConfiguration: Sendable, Hashable {
    /// The video stream's `stream_type` (``TransportStreamType/h264`` or ``TransportStreamType/hevc``).
    public var videoStreamType: TransportStreamType
    /// The audio streams (at most ``maxAudioStreams``), on PIDs ``audioPID``, ``audioPID`` + 1, …
    public var audioStreams: [TransportStreamAudioStream] = []
    /// The most audio streams a program gets here.
    public static let maxAudioStreams = 32
    /// The first audio stream's ADTS parameters, when it is AAC; setting it makes the program
    /// one AAC stream (`nil`: none).
    public var audio: ADTSHeader? {
        get {
            guard case .aac(let header)? = audioStreams.first?.format else { return nil }
            return header
        }
        set { audioStreams = newValue.map { [.aac($0)] } ?? [] }
    }
    /// `transport_stream_id` of the PAT.
    public var transportStreamID: UInt16 = 1
    /// `program_number` of the one program.
    public var programNumber: UInt16 = 1
    /// PID of the program map (FFmpeg's default, 0x1000).
    public var programMapPID: UInt16 = 0x1000
    /// PID of the video stream, which also carries the PCR (FFmpeg's default, 0x100).
    public var videoPID: UInt16 = 0x100
    /// PID of the first audio stream; the others follow it.
    public var audioPID: UInt16 = 0x101
    /// Most 90 kHz ticks of PCR time between two PAT/PMT pairs (100 ms).
    public var psiInterval: Int64 = 9_000
    /// 90 kHz ticks of PCR interval the table repetition allows for (40 ms): PAT/PMT go with
    /// an access unit whose PCR is more than ``psiInterval`` minus this past the last pair.
    public var pcrInterval: Int64 = 3_600
    /// How far the PCR runs behind each video access unit's DTS (0.7 s, FFmpeg's `max_delay`).
    public var pcrDelay: Int64 = 63_000
    /// Packets gathered before they go to the sink.
    public var bufferedPackets = 512
    /// Whether the program has the video stream. Without it (an HLS audio rendition's MPEG-TS
    /// segments, RFC 8216 3.2) the program map lists the audio streams only and the first audio
    /// stream carries the PCR (its PTS less ``pcrDelay``, with each of its frames).
    public var carriesVideo = true
    /// 192-byte M2TS packets (Blu-ray/AVCHD `.m2ts`): each transport packet after a 4-byte
    /// `TP_extra_header` whose `arrival_time_stamp` is the PCR time of the access unit it
    /// belongs to (27 MHz, modulo 2^30), never decreasing.
    public var timestampedPackets = false

    public init(videoStreamType: TransportStreamType, audio: ADTSHeader? = nil) {
        self.videoStreamType = videoStreamType
        self.audio = audio
    }

    /// The PID of audio stream `index`.
    public func audioPID(_ index: Int) -> UInt16 { audioPID &+ UInt16(truncatingIfNeeded: index) }
}

/// What a ``TransportStreamWriter`` wrote.
public struct TransportStreamWriterSummary: Sendable, Hashable {
    public var packets: Int64
    public var videoAccessUnits: Int
    public var randomAccessPoints: Int
    public var audioFrames: Int
    /// PAT/PMT pairs written.
    public var programTables: Int
}

/// Writes a one-program MPEG-2 transport stream (ISO/IEC 13818-1) of one video stream and
/// audio streams (ADTS AAC, AC-3, MPEG audio: ``TransportStreamAudioStream``): timed access
/// units in, 188-byte packets out.
///
/// - PAT and PMT go first and again before the first access unit written when 60 ms of PCR
///   time have passed since the last pair (at 10 fps or more, no two pairs are more than 100 ms
///   apart).
/// - Each video access unit is one PES packet (`stream_id` 0xE0, PTS and DTS,
///   `data_alignment_indicator`), whose first transport packet carries the PCR (DTS minus
///   ``TransportStreamWriterConfiguration/pcrDelay``) and, for a random access point, the
///   `random_access_indicator` and `elementary_stream_priority_indicator` (2.4.3.5).
///   `PES_packet_length` is 0 past 65535 bytes (video only, 2.4.3.7).
/// - Tables and PCR are repeated with the packets written, never to fill time: as FFmpeg's
///   `mpegts` muxer does in its default variable-rate mode, where a PCR goes with each access
///   unit (and PAT/PMT with an access unit when they are due). The output is then the input
///   plus a bounded overhead per access unit (at most 2 table packets, the PES header and
///   one packet of stuffing), whatever timing the stream claims; the price is that access
///   units more than 100 ms apart (below 10 fps) have their PCRs as far apart as they are.
/// - Each audio frame is one PES packet (``TransportStreamAudioStream/streamID``, PTS): an AAC
///   frame with its ADTS header (``ADTSHeader``), an AC-3 or MPEG audio frame as it is.
///
/// Timestamps are 90 kHz ticks, written modulo 2^33. Video access units come in decoding order;
/// the caller interleaves audio frames by time.
public final class TransportStreamWriter<Sink: ByteSink> {
    public let configuration: TransportStreamWriterConfiguration
    public private(set) var sink: Sink
    private let packetizer: TransportPacketizer
    private let programAssociation: [UInt8]
    private let programMap: [UInt8]
    /// A PES header (and an ADTS header) being built: one array for the whole stream.
    private var header: [UInt8] = []
    private var lastPCR: Int64?
    private var lastTables: Int64?
    private var summary = TransportStreamWriterSummary(packets: 0, videoAccessUnits: 0, randomAccessPoints: 0, audioFrames: 0, programTables: 0)

    private static var patSlot: Int { 0 }
    private static var pmtSlot: Int { 1 }
    private static var videoSlot: Int { 2 }
    private static func audioSlot(_ index: Int) -> Int { 3 + index }

    public init(sink: Sink, configuration: TransportStreamWriterConfiguration) throws(NALUError) {
        guard configuration.videoStreamType != .adtsAAC else {
            throw NALUError(.invalidValue, field: "stream_type", detail: "the video stream cannot be ADTS AAC")
        }
        guard configuration.audioStreams.count <= TransportStreamWriterConfiguration.maxAudioStreams else {
            throw NALUError(.tooLarge, field: "audio streams", detail: "\(configuration.audioStreams.count); at most \(TransportStreamWriterConfiguration.maxAudioStreams)")
        }
        guard configuration.carriesVideo || !configuration.audioStreams.isEmpty else {
            throw NALUError(.missing, field: "audio streams", detail: "a program without video needs an audio stream")
        }
        let pids = [configuration.programMapPID] + (configuration.carriesVideo ? [configuration.videoPID] : [])
            + configuration.audioStreams.indices.map { configuration.audioPID($0) }
        guard Set(pids).count == pids.count, pids.allSatisfy({ (0x0010...0x1FFE).contains($0) }) else {
            throw NALUError(.invalidValue, field: "PID", detail: "\(pids); PIDs must differ and lie in 0x0010–0x1FFE")
        }
        guard configuration.psiInterval > configuration.pcrInterval, configuration.pcrInterval > 0, configuration.pcrDelay >= 0,
              configuration.bufferedPackets > 0 else {
            throw NALUError(.invalidValue, field: "transport stream intervals", detail: "PSI \(configuration.psiInterval), PCR \(configuration.pcrInterval)")
        }
        self.configuration = configuration
        self.sink = sink
        packetizer = TransportPacketizer(packets: configuration.bufferedPackets, slots: 3 + configuration.audioStreams.count, timestamped: configuration.timestampedPackets)
        programAssociation = ProgramSpecificInformation.programAssociationSection(
            transportStreamID: configuration.transportStreamID, programNumber: configuration.programNumber,
            programMapPID: configuration.programMapPID)
        var streams = configuration.carriesVideo ? [ProgramSpecificInformation.Stream(streamType: configuration.videoStreamType, pid: configuration.videoPID)] : []
        for (index, audio) in configuration.audioStreams.enumerated() {
            streams.append(.init(streamType: audio.streamType, pid: configuration.audioPID(index), descriptors: audio.descriptors))
        }
        programMap = ProgramSpecificInformation.programMapSection(programNumber: configuration.programNumber,
                                                                  pcrPID: configuration.carriesVideo ? configuration.videoPID : configuration.audioPID(0),
                                                                  streams: streams)
        header.reserveCapacity(PESHeader.maxWrittenLength + ADTSHeader.length)
    }

    /// Writes one video access unit (Annex-B bytes, delimiter and parameter sets included) as a
    /// PES packet.
    /// - Parameters:
    ///   - pts, dts: 90 kHz ticks; `dts` ≤ `pts`, and DTS increasing from one call to the next.
    ///   - randomAccess: decoding can start here (an IDR, CRA, BLA or recovery point).
    public func writeVideo(_ accessUnit: UnsafeRawBufferPointer, pts: Int64, dts: Int64, randomAccess: Bool) throws(NALUError) {
        try NALUError.typed(field: "video access unit") {
            guard dts <= pts else {
                throw NALUError(.invalidValue, field: "DTS", detail: "\(dts) after PTS \(pts)")
            }
            let pcr = dts - configuration.pcrDelay
            if let lastPCR, pcr < lastPCR {
                throw NALUError(.invalidValue, field: "DTS", detail: "\(dts) before the previous access unit's")
            }
            // No packets fill a long frame interval (a VUI claiming 0.01 fps would make 100 s of
            // PCR-only packets per picture): the tables and the PCR go with the access units.
            setArrivalTime(pcr)
            try writeTablesIfDue(at: pcr)
            lastPCR = pcr
            header.removeAll(keepingCapacity: true)
            PESHeader.append(to: &header, streamID: PESHeader.videoStreamID, pts: pts, dts: dts, payloadLength: accessUnit.count)
            let adaptation = TransportPacketizer.Adaptation(pcr: pcr, randomAccess: randomAccess)
            try header.withUnsafeBytes { header in
                try packetizer.writeUnit(pid: configuration.videoPID, slot: Self.videoSlot, header: header, payload: accessUnit,
                                         adaptation: adaptation) { try sink.write($0) }
            }
            summary.videoAccessUnits += 1
            if randomAccess { summary.randomAccessPoints += 1 }
        }
    }

    /// Writes one audio frame of audio stream `stream` as a PES packet with `pts` (90 kHz): a
    /// raw AAC frame (no ADTS header: this adds it), an AC-3 or MPEG audio frame whole.
    public func writeAudio(_ rawFrame: UnsafeRawBufferPointer, pts: Int64, stream: Int = 0) throws(NALUError) {
        try NALUError.typed(field: "audio frame") {
            guard configuration.audioStreams.indices.contains(stream) else {
                throw NALUError(.missing, field: "audio stream", detail: "\(stream); the configuration has \(configuration.audioStreams.count)")
            }
            let audio = configuration.audioStreams[stream]
            // Without video the first audio stream carries the PCR, never going back.
            var adaptation = TransportPacketizer.Adaptation()
            if !configuration.carriesVideo, stream == 0 {
                let pcr = pts - configuration.pcrDelay
                if lastPCR.map({ pcr >= $0 }) ?? true {
                    setArrivalTime(pcr)
                    try writeTablesIfDue(at: pcr)
                    lastPCR = pcr
                    adaptation = TransportPacketizer.Adaptation(pcr: pcr, randomAccess: true)
                }
            }
            if lastTables == nil { try writeTables(at: pts - configuration.pcrDelay) }
            header.removeAll(keepingCapacity: true)
            if case .aac(let adts) = audio.format {
                PESHeader.append(to: &header, streamID: audio.streamID, pts: pts, dts: nil, payloadLength: ADTSHeader.length + rawFrame.count)
                try adts.append(rawFrameLength: rawFrame.count, to: &header)
            } else {
                PESHeader.append(to: &header, streamID: audio.streamID, pts: pts, dts: nil, payloadLength: rawFrame.count)
            }
            try header.withUnsafeBytes { header in
                try packetizer.writeUnit(pid: configuration.audioPID(stream), slot: Self.audioSlot(stream), header: header, payload: rawFrame,
                                         adaptation: adaptation) { try sink.write($0) }
            }
            summary.audioFrames += 1
        }
    }

    /// Ends a segment (HLS MPEG-TS segments, RFC 8216 3.2): hands the buffered packets to the
    /// sink, so the caller can move it to the next file, and writes PAT and PMT before the next
    /// packet. Continuity counters go on across segments.
    public func startSegment() throws(NALUError) {
        try NALUError.typed(field: "segment") {
            try packetizer.drain { try sink.write($0) }
            lastTables = nil
        }
    }

    /// Hands the buffered packets to the sink and says what was written.
    @discardableResult
    public func finish() throws(NALUError) -> TransportStreamWriterSummary {
        return try NALUError.typed(field: "transport stream") {
            if lastTables == nil { try writeTables(at: 0) }
            try packetizer.drain { try sink.write($0) }
            summary.packets = packetizer.packetsWritten
            return summary
        }
    }

    /// The M2TS arrival time of the next packets: `time` (90 kHz) in 27 MHz ticks, never going back.
    private func setArrivalTime(_ time: Int64) {
        let (ticks, overflow) = time.multipliedReportingOverflow(by: 300)
        if !overflow, ticks > packetizer.arrivalTime { packetizer.arrivalTime = ticks }
    }

    /// PAT and PMT before anything else, then whenever `time` (PCR, 90 kHz) is more than
    /// ``TransportStreamWriterConfiguration/psiInterval`` minus one PCR interval past the last pair.
    private func writeTablesIfDue(at time: Int64) throws {
        if let lastTables, time - lastTables <= configuration.psiInterval - configuration.pcrInterval { return }
        try writeTables(at: time)
    }

    private func writeTables(at time: Int64) throws {
        let pointerField: [UInt8] = [0]
        try pointerField.withUnsafeBytes { pointer in
            try programAssociation.withUnsafeBytes { section in
                try packetizer.writeUnit(pid: TransportStream.programAssociationPID, slot: Self.patSlot, header: pointer, payload: section,
                                         adaptation: .init(), stuffPayload: true) { try sink.write($0) }
            }
            try programMap.withUnsafeBytes { section in
                try packetizer.writeUnit(pid: configuration.programMapPID, slot: Self.pmtSlot, header: pointer, payload: section,
                                         adaptation: .init(), stuffPayload: true) { try sink.write($0) }
            }
        }
        lastTables = time
        summary.programTables += 1
    }
}
