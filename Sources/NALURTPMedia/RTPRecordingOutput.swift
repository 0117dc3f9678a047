public import NALU
import NALUIO
import NALUMedia
import NALUMP4
public import NALURTP

/// Where received RTP access units are written (`nalu rtp receive`, `nalu record`): an Annex-B stream, or an MP4 file with their
/// times (``NALURTP/RTPTimedAccessUnit`` through `MP4Writer.append(_:)`). The SDP's parameter
/// sets go before the first access unit that lacks them (Annex-B) or into the record (MP4).
public final class RTPRecordingOutput {
    private let codec: Codec
    private let path: String
    private let parameterSets: [[UInt8]]
    private let isMP4: Bool
    private var annexB: FileSink?
    private var mp4: (writer: MP4Writer<FileSink>, file: FileSink)?
    private var started = false
    /// Access units not written because no parameter sets had come yet (MP4 needs them for its record).
    public private(set) var skippedBeforeParameterSets = 0

    /// An output at `path` (`.mp4`/`.mov`: MP4; any other name or `-`: Annex-B) for `codec`,
    /// with the session description's `parameterSets`. Created through `FileSink` (exclusive
    /// temporary name, committed by ``finish()``).
    public init(path: String, codec: Codec, parameterSets: [[UInt8]]) throws {
        self.path = path
        self.codec = codec
        self.parameterSets = parameterSets
        isMP4 = path != "-" && ContainerDetection.hasMP4Extension(path)
        if !isMP4 { annexB = try FileSink(path: path) }
    }

    /// Writes one access unit with its times.
    public func write(_ unit: RTPTimedAccessUnit) throws {
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
            }
            try mp4?.writer.append(unit)
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
    }

    /// Finishes the file (MP4: the index) and commits it under its name.
    /// - Throws: `NALUError` `.missing` when no access unit with parameter sets came.
    public func finish() throws {
        if let mp4 {
            try mp4.writer.finish()
            try mp4.file.commit()
        } else if let annexB {
            try annexB.commit()
        } else {
            throw NALUError(.missing, field: path, detail: "no access unit with parameter sets was received: nothing to write")
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
        let configuration = try MP4WriterConfiguration(decoderConfigurationRecord: record, parameterSetCarriage: .outOfBand,
                                                       width: width, height: height, timeBase: Rational(1, 90_000))
        let file = try FileSink(path: path)
        return (try MP4Writer(sink: file, configuration: configuration), file)
    }
}
