/// One access unit with its bytes: the NAL units (escaped, header included, no start code or
/// length prefix) in stream order, and what ``AccessUnitSplitter`` found out about it.
public struct AccessUnit: Hashable, Sendable {
    public var nalUnits: [[UInt8]]
    public var summary: AccessUnitSummary

    public init(nalUnits: [[UInt8]], summary: AccessUnitSummary) {
        self.nalUnits = nalUnits
        self.summary = summary
    }
}

/// A push parser for access units: append stream bytes as they arrive, in any chunking, and get
/// every access unit whose end is known.
///
/// ```swift
/// var assembler = try AccessUnitAssembler(codec: .h264)
/// for chunk in chunks { for unit in try assembler.append(chunk) { handle(unit) } }
/// for unit in try assembler.finish() { handle(unit) }
/// ```
///
/// After ``finish()`` the assembler takes another stream from its start, as a new one would
/// (access unit indexes from 0, no parameter sets kept).
///
/// The bytes go through a framer (``AnnexBFramer`` or ``LengthPrefixedFramer``), and its NAL units
/// through an ``AccessUnitSplitter``, which applies the specs' rules (ITU-T H.264 7.4.1.2.3,
/// ITU-T H.265 7.4.2.4.4): the access units and summaries are those of the splitter on the
/// whole stream, whatever the chunk edges. An access unit ends when the first NAL unit of the
/// next one arrives, so the last comes out of ``finish()``. NAL units from another source can be
/// pushed directly with ``push(_:)``.
///
/// Memory is bounded by the framer's limit plus ``maxAccessUnitBytes``; a larger access unit
/// throws ``NALUError/Code/tooLarge``. When an append throws, access units it completed before
/// the error are lost with it (the stream is malformed there).
public struct AccessUnitAssembler: Sendable {
    /// How the appended bytes are framed.
    public enum Framing: Hashable, Sendable {
        case annexB
        /// 1, 2 or 4-byte big-endian lengths.
        case lengthPrefixed(lengthSize: Int)
    }

    /// The default bound on one access unit's bytes: 64 MiB.
    public static let defaultMaxAccessUnitBytes = 64 << 20

    /// The largest access unit accepted, in NAL unit bytes.
    public let maxAccessUnitBytes: Int
    /// The splitter, with the parameter sets seen so far.
    public private(set) var splitter: AccessUnitSplitter
    private var framer: any NALUnitFramer
    private var units: [[UInt8]] = []
    private var unitBytes = 0
    /// A framer in its initial state, for the stream after ``finish()``.
    private let newFramer: any NALUnitFramer

    /// - Parameters:
    ///   - framing: Annex-B (default) or length-prefixed with a length size of 1, 2 or 4.
    ///   - maxBufferedBytes: the framer's memory bound.
    public init(codec: Codec, framing: Framing = .annexB, maxBufferedBytes: Int = AnnexBFramer.defaultMaxBufferedBytes,
                maxAccessUnitBytes: Int = AccessUnitAssembler.defaultMaxAccessUnitBytes) throws(NALUError) {
        splitter = AccessUnitSplitter(codec: codec)
        self.maxAccessUnitBytes = max(1, maxAccessUnitBytes)
        switch framing {
        case .annexB:
            framer = AnnexBFramer(maxBufferedBytes: maxBufferedBytes)
        case .lengthPrefixed(let lengthSize):
            framer = try LengthPrefixedFramer(lengthSize: lengthSize, maxBufferedBytes: maxBufferedBytes)
        }
        newFramer = framer
    }

    /// Stores a parameter set from an avcC/hvcC record, for streams that carry them out of band.
    public mutating func addParameterSet(_ nalUnit: [UInt8]) throws(NALUError) {
        try splitter.addParameterSet(nalUnit)
    }

    /// Appends stream bytes and returns the access units they complete.
    public mutating func append(_ bytes: [UInt8]) throws(NALUError) -> [AccessUnit] {
        var completed: [AccessUnit] = []
        var failure: NALUError?
        var framer = takeFramer()
        defer { self.framer = framer }
        bytes.withUnsafeBytes { raw in
            let error = Self.run { () throws in
                try framer.append(raw) { unit in self.take(unit, &completed, &failure) }
            }
            failure = failure ?? error
        }
        if let failure { throw failure }
        return completed
    }

    /// Ends the stream and returns the last access units.
    public mutating func finish() throws(NALUError) -> [AccessUnit] {
        var completed: [AccessUnit] = []
        var failure: NALUError?
        var framer = takeFramer()
        let error = Self.run { () throws in
            try framer.finishStream { unit in self.take(unit, &completed, &failure) }
        }
        failure = failure ?? error
        // The next append starts a new stream, whatever happened to this one.
        self.framer = newFramer
        defer {
            units.removeAll()
            unitBytes = 0
        }
        guard failure == nil else {
            _ = splitter.finish()
            throw failure ?? NALUError(.unsupported, field: "framer")
        }
        if let summary = splitter.finish() {
            completed.append(AccessUnit(nalUnits: units, summary: summary))
        }
        return completed
    }

    /// Moves the framer out while it works, so that its buffer is not copied on write and the
    /// NAL units it lends can be pushed into `self`.
    private mutating func takeFramer() -> any NALUnitFramer {
        let framer = self.framer
        self.framer = AnnexBFramer(maxBufferedBytes: 0)
        return framer
    }

    /// Runs a framer call whose NAL unit handler does not throw, so every error is the framer's
    /// ``NALUError``; returns it.
    private static func run(_ body: () throws -> Void) -> NALUError? {
        do {
            try body()
            return nil
        } catch let error as NALUError {
            return error
        } catch {
            return NALUError(.unsupported, field: "framer", detail: "\(error)")
        }
    }

    private mutating func take(_ unit: NALUnitView, _ completed: inout [AccessUnit], _ failure: inout NALUError?) {
        guard failure == nil else { return }
        do throws(NALUError) {
            if let done = try push(unit) { completed.append(done) }
        } catch {
            failure = error
        }
    }

    /// Feeds one NAL unit (from any framer or reader); returns the access unit it completes.
    public mutating func push(_ unit: NALUnitView) throws(NALUError) -> AccessUnit? {
        let step = try splitter.push(unit)
        var done: AccessUnit?
        if let summary = step.completed {
            done = AccessUnit(nalUnits: units, summary: summary)
            units.removeAll(keepingCapacity: true)
            unitBytes = 0
        }
        guard unit.count <= maxAccessUnitBytes - unitBytes else {
            throw NALUError(.tooLarge, field: "access unit", byteOffset: unit.offset,
                            detail: "more than \(maxAccessUnitBytes) bytes of NAL units")
        }
        units.append(unit.array)
        unitBytes += unit.count
        return done
    }
}
