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
    /// units copied; `damaged` gets the NAL units left out. The library's one grouping
    /// (``NALUMedia/MediaSource/forEachCodedAccessUnit(maxAccessUnitBytes:damaged:_:)``).
    /// - Throws: the source's `NALUError`, or what `body` throws as thrown (untyped for it, as
    ///   ``EncodePipeline/encode(_:)`` is).
    public static func forEachAccessUnit(_ source: MediaSource, damaged: (DamagedNALUnit) -> Void,
                                         _ body: (CodedAccessUnit) throws -> Void) throws {
        try source.forEachCodedAccessUnit(damaged: { damaged($0) }, body)
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
    /// - Throws: the decoder's ``NALUDecoder/DecoderError``, the source's `NALUError`, or what `body` throws
    ///   as thrown (untyped for it, as ``EncodePipeline/encode(_:)`` is).
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

