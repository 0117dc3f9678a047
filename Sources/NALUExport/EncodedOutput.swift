public import NALU
public import NALUEncoder
import NALUIO
import NALUMedia
public import NALUMP4

/// How an encode's output is framed (`nalu encode --to`).
public enum EncodeOutputFraming: String, CaseIterable, Sendable {
    /// An elementary stream with start codes.
    case annexb
    /// An elementary stream with 4-byte lengths.
    case avcc
    /// MP4/MOV.
    case mp4
    /// MPEG-2 transport stream, 188-byte packets.
    case ts
    /// MPEG-2 transport stream, 192-byte packets with arrival time stamps.
    case m2ts

    /// The encoder's access unit framing.
    public var streamFormat: StreamFormat { self == .avcc ? .lengthPrefixed : .annexB }

    /// Whether this is MPEG-TS (`ts` or `m2ts`).
    public var isTransportStream: Bool { self == .ts || self == .m2ts }
}

/// Where an encode writes its access units (`nalu encode`, ``ExportSession``): an elementary
/// stream, MP4 muxed from the access units at a constant rate, MP4 keeping a compressed input's
/// times with its other tracks (``TimedMP4Output``), or MPEG-TS (``TimedTransportStreamOutput``).
/// Written under a temporary name and renamed into place by ``finish()``; ``discard()`` leaves
/// no file.
public final class EncodedOutput {
    private enum Kind {
        case timed(TimedMP4Output)
        case transportStream(TimedTransportStreamOutput)
        case constantRate(MP4FileSink)
        case stream(FileSink)
    }

    private let kind: Kind
    /// The input's tracks the output carries beside the video (for
    /// ``NALUMedia/MediaSource/tracksLeftOut(carried:noAudio:to:)``).
    public let carried: Set<UInt32>

    /// - Parameters:
    ///   - mp4Options: the MP4 muxer's options (sample entry, layout, access unit limit).
    ///   - maxAccessUnitSize: an MPEG-TS output's access unit limit.
    ///   - frameRate: the constant rate of uncompressed input (or a rate forced on a compressed one).
    ///   - keepsTimes: whether a compressed input's times are kept (`false`: `frameRate` forced).
    ///   - decoded: the compressed input, whose times and tracks are kept.
    ///   - keptRange: its pts kept (`--start/--end`, a chunk).
    ///   - copyAudio: whether its audio is carried.
    /// - Throws: ``NALU/NALUError`` from creating the output or reading the input's tracks.
    public init(path: String, framing: EncodeOutputFraming, codec: Codec, mp4Options: MP4MuxerOptions, maxAccessUnitSize: Int,
                frameRate: Rational, keepsTimes: Bool, decoded: DecodedVideoInput?, keptRange: Range<Int64>?, copyAudio: Bool) throws(NALUError) {
        do {
            switch framing {
            case .mp4:
                if keepsTimes, let decoded, let timeBase = decoded.timeBase {
                    let timed = try TimedMP4Output(path: path, codec: codec, options: mp4Options, source: decoded.source, timeBase: timeBase,
                                                   keptRange: keptRange, copyAudio: copyAudio,
                                                   chunk: decoded.chunkRange == nil ? nil : decoded.chunkEnds)
                    kind = .timed(timed)
                    carried = timed.carried
                } else {
                    var options = mp4Options
                    options.frameRate = frameRate
                    kind = .constantRate(try MP4FileSink(codec: codec, output: FileSink(path: path), options: options))
                    carried = []
                }
            case .ts, .m2ts:
                let output = try TimedTransportStreamOutput(path: path, codec: codec, timestamped: framing == .m2ts, maxAccessUnitSize: maxAccessUnitSize,
                                                            frameRate: frameRate, timeBase: keepsTimes ? decoded?.timeBase : nil,
                                                            source: decoded?.source, keptRange: keptRange, copyAudio: copyAudio)
                kind = .transportStream(output)
                carried = keepsTimes ? output.carried : []
            case .annexb, .avcc:
                kind = .stream(try FileSink(path: path))
                carried = []
            }
        } catch {
            throw NALUError.converting(error, field: path)
        }
    }

    /// Writes one access unit.
    /// - Throws: ``NALU/NALUError`` from muxing or writing.
    public func write(_ packet: EncodedPacket) throws(NALUError) {
        do {
            switch kind {
            case .timed(let output): try output.write(packet)
            case .transportStream(let output): try output.write(packet)
            case .constantRate(let sink): try packet.bytes.withUnsafeBytes { try sink.push(annexB: $0) }
            case .stream(let sink): try packet.bytes.withUnsafeBytes { try sink.write($0) }
            }
        } catch {
            throw NALUError.converting(error, field: "output")
        }
    }

    /// Completes the output and renames it into place; returns what the muxer did that a reader
    /// should know. `beforeCommit` runs once everything is written, before the rename: throwing
    /// there (a cancellation) leaves no output.
    /// - Throws: the output's `NALUError`, or what `beforeCommit` throws as thrown (untyped for it, as
    ///   ``EncodePipeline/encode(_:)`` is).
    public func finish(beforeCommit: () throws -> Void = {}) throws -> [String] {
        switch kind {
        case .timed(let output):
            return try output.finish(beforeCommit: beforeCommit)
        case .transportStream(let output):
            _ = try output.finish(beforeCommit: beforeCommit)
            return []
        case .constantRate(let sink):
            let notes = try sink.finish().notes
            try beforeCommit()
            try sink.output.commit()
            return notes
        case .stream(let sink):
            try beforeCommit()
            try sink.commit()
            return []
        }
    }

    /// The tracks copied beside the video, described (`track 2`, `AAC PID 257`).
    public var copiedTracks: [String] {
        if case .timed(let output) = kind { return output.copiedTracks }
        return []
    }

    /// Abandons the output: no file, no temporary file.
    public func discard() {
        switch kind {
        case .timed(let output): output.discard()
        case .transportStream(let output): output.discard()
        case .constantRate(let sink): sink.output.discard()
        case .stream(let sink): sink.discard()
        }
    }

    /// Writes `session`'s extradata to `path` (through the same output rules): the avcC/hvcC
    /// record when `lengthPrefixed`, else the parameter sets with start codes.
    /// - Throws: ``ExportError`` carrying the encoder's or the file's error whole
    ///   (``ExportError/init(stage:)``).
    public static func writeExtradata(of session: EncoderSession, to path: String, lengthPrefixed: Bool) throws(ExportError) {
        do {
            try session.prepare()
            var bytes: [UInt8] = []
            if lengthPrefixed, let record = try session.decoderConfigurationRecord() {
                bytes = record.bytes
            } else {
                for set in session.parameterSets { bytes += [0, 0, 0, 1] + set }
            }
            let extradata = try FileSink(path: path, bufferSize: 4096)
            try bytes.withUnsafeBytes { try extradata.write($0) }
            try extradata.commit()
        } catch {
            throw ExportError(stage: error)
        }
    }
}
