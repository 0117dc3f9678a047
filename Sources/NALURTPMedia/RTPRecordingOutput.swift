public import NALU
import NALUIO
import NALUMedia
import NALUMP4
public import NALUPackager
public import NALURTP

/// Where received RTP access units are written (`nalu rtp receive`, `nalu record`): an Annex-B
/// stream, an MP4 file with their times (``NALURTP/RTPTimedAccessUnit`` through
/// `MP4Writer.append(_:)`), an MPEG-TS file (`.ts`, `.m2ts`/`.mts` with 192-byte packets) or a live
/// HLS package (`LivePackager`) with their times as PTS/DTS. The SDP's parameter sets go before
/// the first access unit that lacks them (Annex-B, MPEG-TS) or into the record (MP4). MP4 and
/// MPEG-TS also take the session's AAC stream (``writeAudio(_:)``): a sound track or ADTS
/// stream whose AUs keep their times, placed against the video by ``alignment``.
public final class RTPRecordingOutput {
    private let codec: Codec
    private let path: String
    private let parameterSets: [[UInt8]]
    private let isMP4: Bool
    private var annexB: FileSink?
    private var transportStream: RTPTransportStreamOutput?
    /// The first AU written: its RTP time and time line value, and its time against the first
    /// picture (ticks of its clock).
    private var firstAudio: (rtp: UInt32, time: Int64, offset: Int64)?
    /// The live packager's notes, after ``finish()``.
    public private(set) var packagerNotes: [String] = []
    private var mp4: (writer: MP4Writer<FileSink>, file: FileSink)?
    private var started = false
    /// Access units not written because no parameter sets had come yet (MP4 needs them for its record).
    public private(set) var skippedBeforeParameterSets = 0
    /// The AAC stream's track (MP4), once the writer is made.
    private var audioTrack: RTPAACMP4Track?
    private let audio: (description: RTPAACDescription, format: RTPAACPayloadFormat)?
    /// AUs that came before the writer was made (bounded by ``maxQueuedAudio``).
    private var audioQueue: [RTPAACAccessUnit] = []
    /// The RTP time of the first AU written, and of the first picture written.
    private var videoOrigin: UInt32?
    /// AAC AUs not written: an Annex-B output has no place for them, or too many came before the
    /// first picture with parameter sets.
    public private(set) var audioNotWritten = 0
    /// Where the audio's RTP time line sits against the video's (RTSP `RTP-Info`); `nil`: not
    /// known, the first AU is placed with the first picture (``audioIsUnaligned``).
    public var alignment: RTPStreamAlignment?
    /// Whether AAC AUs are held (at most ``maxQueuedAudio``) until ``align(_:)`` gives the
    /// ``alignment``, as a reception whose alignment comes from RTCP sender reports does; at
    /// ``finish()`` the AUs still held are written at the first picture and ``audioIsUnaligned``.
    public var holdsAudioUntilAligned = false
    /// AAC AUs held at most while no picture has been written.
    public static let maxQueuedAudio = 4096

    /// An output at `path` (`.mp4`/`.mov`: MP4; any other name or `-`: Annex-B) for `codec`,
    /// with the session description's `parameterSets`. Created through `FileSink` (exclusive
    /// temporary name, committed by ``finish()``).
    /// - Parameter audio: the session's AAC stream, recorded beside the video in an MP4 file.
    /// - Throws: ``NALURTP/RTPAACPayloadFormat/init(description:)``'s errors for an AAC mode not read.
    /// - Parameter liveHLS: `path` is a folder for a live HLS package made with these options.
    public init(path: String, codec: Codec, parameterSets: [[UInt8]], audio: RTPAACDescription? = nil, liveHLS: PackagerOptions? = nil) throws(NALUError) {
        self.audio = try NALUError.typed(field: path) { try audio.map { ($0, try RTPAACPayloadFormat(description: $0)) } }
        self.path = path
        self.codec = codec
        self.parameterSets = parameterSets
        isMP4 = liveHLS == nil && path != "-" && ContainerDetection.hasMP4Extension(path)
        let lowered = path.lowercased()
        if let liveHLS {
            transportStream = try NALUError.typed(field: path) {
                try RTPTransportStreamOutput(liveDirectory: path, options: liveHLS, codec: codec, audioSpecificConfig: audio?.audioSpecificConfig)
            }
        } else if path != "-", [".ts", ".m2ts", ".mts"].contains(where: { lowered.hasSuffix($0) }) {
            transportStream = try NALUError.typed(field: path) {
                try RTPTransportStreamOutput(path: path, codec: codec, timestamped: lowered.hasSuffix(".m2ts") || lowered.hasSuffix(".mts"),
                                             audioSpecificConfig: audio?.audioSpecificConfig)
            }
        } else if !isMP4 {
            annexB = try FileSink(path: path)
        }
    }

    /// Writes one access unit with its times.
    /// - Throws: ``NALU/NALUError`` from muxing or writing.
    public func write(_ unit: RTPTimedAccessUnit) throws(NALUError) {
        do {
            if isMP4 {
                if mp4 == nil {
                    var sets: [[UInt8]] = []
                    for set in parameterSets + unit.accessUnit.nalUnits.filter({ codec.isParameterSet($0) }) where !sets.contains(set) {
                        sets.append(set)
                    }
                    guard let writer = try makeWriter(sets) else {
                        skippedBeforeParameterSets += 1
                        return
                    }
                    mp4 = writer
                    videoOrigin = unit.accessUnit.rtpTimestamp
                    try writeQueuedAudio()
                }
                try mp4?.writer.append(unit)
                return
            }
            if let transportStream {
                var units = unit.accessUnit.nalUnits
                if !started {
                    started = true
                    videoOrigin = unit.accessUnit.rtpTimestamp
                    if !units.contains(where: { codec.isParameterSet($0) }) { units = parameterSets + units }
                    try transportStream.write(units, pts: unit.pts, dts: unit.dts)
                    try writeQueuedAudio()
                } else {
                    try transportStream.write(units, pts: unit.pts, dts: unit.dts)
                }
                return
            }
            guard let annexB else { return }
            if !started {
                started = true
                if !unit.accessUnit.nalUnits.contains(where: { codec.isParameterSet($0) }) {
                    try annexB.write(RTPTimedAccessUnit.annexB(parameterSets))
                }
            }
            try annexB.write(RTPTimedAccessUnit.annexB(unit.accessUnit.nalUnits))
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Finishes the file (MP4: the index) and commits it under its name.
    /// - Throws: `NALUError` `.missing` when no access unit with parameter sets came.
    public func finish() throws(NALUError) {
        do {
            holdsAudioUntilAligned = false
            if let mp4 {
                try writeQueuedAudio()
                if let audioTrack {
                    let offset = firstAudio?.offset
                    try audioTrack.finish(writer: mp4.writer, offset: offset, movieTimescale: 90_000)
                }
                try mp4.writer.finish()
                try mp4.file.commit()
            } else if let transportStream {
                try writeQueuedAudio()
                guard started else {
                    throw NALUError(.missing, field: path, detail: "no access unit was received: nothing to write")
                }
                packagerNotes = try transportStream.finish()
            } else if let annexB {
                try annexB.commit()
            } else {
                throw NALUError(.missing, field: path, detail: "no access unit with parameter sets was received: nothing to write")
            }
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// An MP4 writer whose record holds `sets` (the last of each type and id wins), or `nil`
    /// without an SPS and PPS (and VPS).
    private func makeWriter(_ sets: [[UInt8]]) throws -> (writer: MP4Writer<FileSink>, file: FileSink)? {
        var width = 0, height = 0
        for unit in sets {
            if codec == .h264, let sps = try? AVCSequenceParameterSet(nalUnit: unit) {
                width = sps.width
                height = sps.height
            } else if codec == .hevc, let sps = try? HEVCSequenceParameterSet(nalUnit: unit) {
                width = sps.width
                height = sps.height
            }
        }
        guard width > 0, height > 0, let record = try? DecoderConfigurationRecord(codec: codec, parameterSets: sets, lengthSize: 4, arrayCompleteness: true) else {
            return nil
        }
        var configuration = try MP4WriterConfiguration(decoderConfigurationRecord: record, parameterSetCarriage: .outOfBand,
                                                       width: width, height: height, timeBase: Rational(1, 90_000))
        if let audio {
            let track = RTPAACMP4Track(description: audio.description, format: audio.format, index: 0)
            configuration.passthroughTracks = [track.track]
            configuration.movieTimescale = 90_000
            audioTrack = track
        }
        let file = try FileSink(path: path)
        return (try MP4Writer(sink: file, configuration: configuration), file)
    }
}

extension RTPRecordingOutput {
    /// Writes one AAC AU of the session's audio stream (MP4: into its sound track; held until
    /// the first picture is written). Without an audio stream given at creation, or into an
    /// Annex-B stream, the AU is counted in ``audioNotWritten``.
    /// - Throws: ``NALU/NALUError`` from muxing or writing.
    public func writeAudio(_ unit: RTPAACAccessUnit) throws(NALUError) {
        do {
            guard let audio, isMP4 || transportStream != nil else {
                audioNotWritten += 1
                return
            }
            guard let videoOrigin, alignment != nil || !holdsAudioUntilAligned else {
                if audioQueue.count < Self.maxQueuedAudio { audioQueue.append(unit) } else { audioNotWritten += 1 }
                return
            }
            if firstAudio == nil {
                // Where the first AU presents against the first picture (0 when not known).
                let offset = alignment?.audioOffset(audioTime: unit.rtpTimestamp, videoOrigin: videoOrigin) ?? 0
                firstAudio = (unit.rtpTimestamp, unit.time, offset)
            }
            if let mp4, let audioTrack {
                try audioTrack.append(unit, to: mp4.writer)
            } else if let transportStream, let first = firstAudio {
                let time = first.offset &+ (unit.time &- first.time)
                // The stream starts 1.4 s before the first picture (TransportStreamMuxerOptions'
                // firstPresentationTime): audio earlier than that has no PTS; counted, not written.
                guard time > -(Int64(audio.format.clockRate) * 7 / 5) else {
                    audioNotWritten += 1
                    return
                }
                try transportStream.writeAudio(unit.bytes, time: time, rate: audio.format.clockRate)
            }
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Sets the ``alignment`` (when none is set yet) and writes the AAC AUs held for it.
    /// - Throws: ``NALU/NALUError`` from writing the audio held.
    public func align(_ alignment: RTPStreamAlignment) throws(NALUError) {
        do {
            guard self.alignment == nil else { return }
            self.alignment = alignment
            try writeQueuedAudio()
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// AAC AUs written, and those whose time went backwards (not written).
    public var audioWritten: (accessUnits: Int, outOfOrder: Int) {
        (audioTrack?.written ?? 0, audioTrack?.outOfOrder ?? 0)
    }

    /// Whether AAC AUs were written without an ``alignment``: their place against the video is a guess.
    public var audioIsUnaligned: Bool { alignment == nil && firstAudio != nil }

    private func writeQueuedAudio() throws {
        guard videoOrigin != nil, !audioQueue.isEmpty else { return }
        let queued = audioQueue
        audioQueue = []
        for unit in queued { try writeAudio(unit) }
    }
}
