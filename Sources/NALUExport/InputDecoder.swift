public import NALU
public import NALUDecoder
public import NALUMedia

/// The access units of a ``MediaSource`` with their NAL units copied, as a decoder takes them:
/// pts from the MP4 sample or the PES packet; raw streams have none.
///
/// A NAL unit the access-unit splitter rejects (`forbidden_zero_bit` set, a slice header or
/// parameter set that does not parse) goes to `damaged` and is left out of the access units, as
/// a decoder drops it (H.264 7.4.1, H.265 7.4.2.1: a NAL unit with `forbidden_zero_bit` 1 is
/// not decoded): one bad NAL unit costs at most its picture, not the stream (issue 40 item 12).
public enum DecodeFeed {
    /// Calls `body` with each complete access unit of `source` in decoding order, its NAL
    /// units copied; `damaged` gets the NAL units left out.
    public static func forEachAccessUnit(_ source: MediaSource, damaged: (DamagedNALUnit) -> Void,
                                  _ body: (CodedAccessUnit) throws -> Void) throws {
        var units: [(offset: Int64, bytes: [UInt8])] = []
        var consumed = 0
        try source.forEachAccessUnit(nalUnit: { view, _ in units.append((view.offset, Array(view.bytes))) }, damaged: { view, error, index in
            damaged(DamagedNALUnit(accessUnitIndex: index, byteOffset: view.offset, error: error))
        }) { unit in
            // The NAL units of the completed unit are those before its end (the one just read
            // may start the next).
            let end = unit.summary.offset + unit.summary.size
            var split = consumed
            while split < units.count && units[split].offset < end { split += 1 }
            let nalUnits = units[consumed..<split].map(\.bytes)
            consumed = split
            if consumed > 64 {
                units.removeFirst(consumed)
                consumed = 0
            }
            let pts = unit.sample?.pts ?? unit.timestamps?.presentation
            try body(CodedAccessUnit(nalUnits: nalUnits, index: unit.summary.index, byteOffset: unit.summary.offset, pts: pts,
                                     keyframe: unit.summary.keyframe, pictureType: unit.summary.pictureType))
        }
    }

    /// The first SPS's description among `nalUnits`, if any.
    public static func streamDescription(_ nalUnits: [[UInt8]], codec: Codec) -> StreamDescription? {
        for unit in nalUnits where codec.isParameterSet(unit) {
            // The type through the typed header (H.264 7.3.1, H.265 7.3.1.2).
            let type = codec.nalUnitType(firstByte: unit[0])
            switch codec {
            case .h264:
                if AVCNALUnitType(rawValue: type) == .sps, let sps = try? AVCSequenceParameterSet(nalUnit: unit[...]) {
                    return StreamDescription(sps)
                }
            case .hevc:
                if unit.count > 1, HEVCNALUnitType(rawValue: type) == .sps, let sps = try? HEVCSequenceParameterSet(nalUnit: unit[...]) {
                    return StreamDescription(sps)
                }
            }
        }
        return nil
    }
}

/// A NAL unit left out of decoding because it is damaged (``DecodeFeed``).
public struct DamagedNALUnit: Sendable {
    /// The access unit being assembled when it came (decoding order): it was in that one, or
    /// would have started the next (a damaged unit cannot tell).
    public var accessUnitIndex: Int
    /// The offset of its header in the input.
    public var byteOffset: Int64
    /// Why the splitter rejected it.
    public var error: NALUError
}

/// Decodes a whole input through a ``DecoderSession``, handing frames on in presentation order.
public final class InputDecoder {
    /// The input's path (for messages).
    public let path: String
    /// The input, opened.
    public let source: MediaSource
    /// The decoder.
    public let session: DecoderSession
    /// The first SPS seen (frame rate, for Y4M).
    public private(set) var description: StreamDescription?
    /// MP4 input: the first sample (decoding order) fed to the decoder, a sync sample; the ones
    /// before it are read past, not decoded (a chunk of `nalu encode --chunk`).
    public var firstSample = 0
    /// Damaged NAL units left out (``DecodeFeed``): how many, and the first.
    public private(set) var damagedNALUnits = 0
    /// The first damaged NAL unit left out.
    public private(set) var firstDamaged: DamagedNALUnit?
    /// The decoder error that ended ``run(problem:_:)``.
    public private(set) var failure: DecoderError?

    /// Opens a decoder of `factory`'s library for `source` (its out-of-band parameter sets
    /// given first); `threadCount` 0 lets the library choose.
    public init(path: String, source: MediaSource, factory: any DecoderBackendFactory, threadCount: Int = 0) throws(DecoderError) {
        self.path = path
        self.source = source
        session = try DecoderSession(codec: source.codec, parameterSets: source.outOfBandParameterSets, factory: factory,
                                     threadCount: threadCount)
        description = DecodeFeed.streamDescription(source.outOfBandParameterSets, codec: source.codec)
    }

    /// Frames per second: the container's, else the SPS VUI's, else 25.
    public func frameRate() -> Rational {
        if let rate = try? source.containerFrameRate(), rate.numerator > 0, rate.denominator > 0 { return rate }
        if let rate = description?.frameRate, rate.numerator > 0, rate.denominator > 0 { return rate }
        return Rational(25, 1)
    }

    /// Decodes every access unit; `body` returns `false` to stop. Decoder errors that leave the
    /// stream decodable (a rejected access unit) go to `problem`; others are thrown (a
    /// ``NALUDecoder/DecoderError`` is kept in ``failure`` too).
    public func run(problem: (DecoderError) -> Void, _ body: (DecodedFrame) throws -> Bool) throws {
        var stopped = false
        let session = self.session
        do {
            try DecodeFeed.forEachAccessUnit(source, damaged: { damaged in
                self.damagedNALUnits += 1
                if self.firstDamaged == nil { self.firstDamaged = damaged }
                problem(DecoderError(.decodeFailed, field: damaged.error.field, accessUnitIndex: damaged.accessUnitIndex,
                                     byteOffset: damaged.byteOffset, detail: "NAL unit left out: \(damaged.error)"))
            }) { unit in
                guard !stopped else { return }
                if self.firstSample > 0, unit.index < self.firstSample { return }
                if self.description == nil { self.description = DecodeFeed.streamDescription(unit.nalUnits, codec: source.codec) }
                let frames: [DecodedFrame]
                do {
                    frames = try session.decode(unit)
                } catch let error as DecoderError where error.code == .decodeFailed {
                    problem(error)
                    return
                }
                for frame in frames where !stopped {
                    if try !body(frame) { stopped = true }
                }
            }
        } catch let error as DecoderError {
            failure = error
            throw error
        }
        for frame in session.flush() where !stopped {
            if try !body(frame) { stopped = true }
        }
    }

    /// What was lost, for the final message: `nil` when nothing was.
    public var lossSummary: String? {
        let statistics = session.statistics
        var parts: [String] = []
        if statistics.accessUnitsSkipped > 0 { parts.append("\(statistics.accessUnitsSkipped) access unit(s) before the first parameter sets") }
        if statistics.backendFailures > 0 {
            parts.append("\(statistics.accessUnitsLost) access unit(s) after \(statistics.backendFailures) decoder failure(s)")
        }
        if statistics.drainFailures > 0 { parts.append("the reordered frames of \(statistics.drainFailures) decoder(s) that could not be drained") }
        if let firstDamaged {
            parts.append("\(damagedNALUnits) damaged NAL unit(s) left out, the first at byte \(firstDamaged.byteOffset), in or after access unit \(firstDamaged.accessUnitIndex) (\(firstDamaged.error))")
        }
        return parts.isEmpty ? nil : "not decoded: " + parts.joined(separator: "; ")
    }
}

