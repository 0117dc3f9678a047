public import NALU
import NALUEncoder

/// Drives a decoder backend the way a player does: created lazily from the stream's parameter
/// sets, re-created when they change, rebuilt after a failure, with every loss counted.
///
/// ```swift
/// let session = try DecoderSession(codec: .h264, parameterSets: record.parameterSets, factory: AVCodecDecoderFactory())
/// for unit in accessUnits { for frame in try session.decode(unit) { try write(frame) } }
/// for frame in session.flush() { try write(frame) }
/// ```
///
/// - The backend is opened at the first access unit once a sequence and a picture parameter set
///   are known (an `avcC`/`hvcC` record given here, or the stream's own, in band). Access units
///   before that cannot be decoded: they are skipped and counted
///   (``Statistics/accessUnitsSkipped``).
/// - When a parameter set arrives with the id of a stored one and other bytes (a new sequence,
///   ITU-T H.264 7.4.1.2.1, H.265 7.4.2.4.2), the backend is drained and a new one opened with the
///   new sets.
/// - Frames come out in presentation order (the backends reorder as the specs' output process
///   does, H.264 C.4.5.3, H.265 C.5.2.2), each with the pts of the access unit it was coded in;
///   raw streams without timestamps number them 0, 1, 2….
/// - When the library rejects an access unit's data, ``decode(_:)`` throws
///   ``DecoderError/Code/decodeFailed`` with the unit's index, offset and the decoder's words;
///   frames decoded before come first from the next call. Errors the library conceals without
///   failing (libavcodec's "error while decoding MB x y") are reported as ``problems``.
/// - When a backend fails (``DecoderError/Code/invalidSession``), the session drains what it
///   still holds, drops it, skips access units up to the next keyframe and opens a new backend
///   there: at most one GOP is lost, and ``Statistics/accessUnitsLost`` and
///   ``Event/backendFailed(accessUnitIndex:error:)`` say so. Nothing traps.
///
/// A session is not thread-safe; use it from one thread at a time, or ``AsyncDecoderSession``.
public final class DecoderSession {
    /// How hard the session tries before giving up.
    public struct RetryPolicy: Sendable, Hashable {
        /// Retries after a failed backend creation (so up to `creationRetries + 1` attempts).
        public var creationRetries: Int
        public init(creationRetries: Int = 3) { self.creationRetries = max(0, creationRetries) }
    }

    /// A bitstream error the decoder reported, with where it was.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// Decoding-order index of the access unit being decoded when it was reported.
        public var accessUnitIndex: Int
        /// Offset of that access unit in the input.
        public var byteOffset: Int64
        /// The decoder's words.
        public var message: String

        public init(accessUnitIndex: Int, byteOffset: Int64, message: String) {
            self.accessUnitIndex = accessUnitIndex
            self.byteOffset = byteOffset
            self.message = message
        }

        public var description: String { "access unit \(accessUnitIndex) at byte \(byteOffset): \(message)" }
    }

    /// Something the session did on its own, for logging.
    public enum Event: Sendable, Hashable {
        /// A backend was opened; `generation` counts backends over the session's life (from 1).
        case backendCreated(generation: Int)
        /// Opening a backend failed (`attempt` from 1).
        case creationFailed(attempt: Int, error: DecoderError)
        /// A parameter set changed at this access unit: the backend was drained and replaced.
        case parameterSetsChanged(accessUnitIndex: Int)
        /// The backend failed at this access unit; decoding resumes at the next keyframe.
        case backendFailed(accessUnitIndex: Int, error: DecoderError)
        /// An access unit was not decoded: before the first parameter sets, or while waiting for
        /// a keyframe after a failure.
        case accessUnitSkipped(index: Int, byteOffset: Int64, reason: String)
        /// The decoder reported a bitstream error.
        case problem(Problem)
    }

    /// Counters over the session's life.
    public struct Statistics: Sendable, Hashable {
        /// Access units passed to ``decode(_:)``.
        public var accessUnitsIn = 0
        /// Frames returned.
        public var framesOut = 0
        /// Backends opened.
        public var backendsCreated = 0
        /// Failed backend creations.
        public var creationFailures = 0
        /// Backends that failed mid-stream (each followed by a rebuild at the next keyframe).
        public var backendFailures = 0
        /// Access units lost to backend failures: the failing one and those up to the next keyframe.
        public var accessUnitsLost = 0
        /// Access units skipped before the first parameter sets were known.
        public var accessUnitsSkipped = 0
        /// Times a failed backend could not even be drained (its reordered frames are lost).
        public var drainFailures = 0
        /// Bitstream errors the decoder reported (thrown or concealed).
        public var decodeErrors = 0

        public init() {}
    }

    /// Per access unit, what its frame takes over.
    private struct UnitInfo {
        var index: Int
        var pts: Int64?
        var keyframe: Bool
        var pictureType: PictureType?
        var colour: ColourDescription
        var sampleAspectRatio: Rational?
        var chromaSampleLocation: Int?
    }

    public let codec: Codec
    public let factory: any DecoderBackendFactory
    public let retryPolicy: RetryPolicy
    /// Decoding threads for the backends opened from now on (0: the library chooses).
    public var threadCount: Int
    /// Called for every ``Event``.
    public var eventHandler: ((Event) -> Void)?
    public private(set) var statistics = Statistics()
    /// The bitstream errors reported so far (the first ``problemLimit``; ``Statistics/decodeErrors``
    /// counts them all).
    public private(set) var problems: [Problem] = []
    /// How many ``problems`` are kept.
    public static let problemLimit = 1000

    private var store: ParameterSetStore
    private var backend: (any DecoderBackend)?
    private var waitingForKeyframe = false
    private var nextTag: Int64 = 0
    private var units: [Int64: UnitInfo] = [:]
    private var rawPTS: Int64 = 0
    /// The last pts handed out when the stream has pts, and the step between the last two.
    private var lastPTS: Int64?
    private var ptsStep: Int64 = 1
    /// Where the last access unit decoded was, for messages that come with a drain.
    private var lastUnit: (index: Int, byteOffset: Int64) = (0, 0)
    private var pending: [DecodedFrame] = []
    private var scratch: [DecodedPicture] = []

    /// A session for `codec`, knowing the out-of-band `parameterSets` (an `avcC`/`hvcC` record's,
    /// ISO/IEC 14496-15 5.3.3.1 / 8.3.3.1; empty when they come in band). Checks that `factory`
    /// can decode `codec` (and that its library loads); the backend itself opens lazily.
    public init(codec: Codec, parameterSets: [[UInt8]] = [], factory: any DecoderBackendFactory, threadCount: Int = 0,
                retryPolicy: RetryPolicy = RetryPolicy()) throws(DecoderError) {
        try factory.validate(codec: codec)
        self.codec = codec
        self.factory = factory
        self.threadCount = max(0, threadCount)
        self.retryPolicy = retryPolicy
        store = ParameterSetStore(codec: codec)
        for unit in parameterSets {
            do {
                try store.add(unit)
            } catch {
                throw DecoderError(.invalidParameterSet, field: error.field, detail: "decoder configuration record: \(error)")
            }
        }
    }

    /// A session for a stream described by `record` (its codec and parameter sets).
    public convenience init(record: DecoderConfigurationRecord, factory: any DecoderBackendFactory, threadCount: Int = 0) throws(DecoderError) {
        try self.init(codec: record.codec, parameterSets: record.parameterSets, factory: factory, threadCount: threadCount)
    }

    /// Whether a backend is open.
    public var isBackendOpen: Bool { backend != nil }

    /// Decodes `accessUnit` and returns the frames now ready, in presentation order.
    ///
    /// Throws ``DecoderError/Code/invalidParameterSet`` for a parameter set that cannot be
    /// parsed, ``DecoderError/Code/decodeFailed`` when the decoder rejects the unit's data (the
    /// next call returns the frames decoded meanwhile), and final errors (library unavailable,
    /// unsupported format, too many failed creations). Errors carry the unit's index and offset.
    public func decode(_ accessUnit: CodedAccessUnit) throws(DecoderError) -> [DecodedFrame] {
        statistics.accessUnitsIn += 1
        var output = takePending()
        var changed = false
        for unit in accessUnit.nalUnits where codec.isParameterSet(unit) {
            do {
                if try store.add(unit) == .changed { changed = true }
            } catch {
                throw DecoderError(.invalidParameterSet, field: error.field, accessUnitIndex: accessUnit.index,
                                   byteOffset: accessUnit.byteOffset, detail: error.description)
            }
        }
        if changed, backend != nil {
            drainAndClose(into: &output)
            eventHandler?(.parameterSetsChanged(accessUnitIndex: accessUnit.index))
        }
        if waitingForKeyframe {
            guard accessUnit.keyframe != nil else {
                statistics.accessUnitsLost += 1
                eventHandler?(.accessUnitSkipped(index: accessUnit.index, byteOffset: accessUnit.byteOffset,
                                                 reason: "waiting for a keyframe after a decoder failure"))
                return output
            }
            waitingForKeyframe = false
        }
        if backend == nil {
            guard hasParameterSets else {
                statistics.accessUnitsSkipped += 1
                eventHandler?(.accessUnitSkipped(index: accessUnit.index, byteOffset: accessUnit.byteOffset,
                                                 reason: "no sequence and picture parameter sets yet"))
                return output
            }
            try openBackend(at: accessUnit)
        }
        guard let current = backend else { return output }
        let tag = nextTag
        nextTag += 1
        lastUnit = (accessUnit.index, accessUnit.byteOffset)
        units[tag] = info(for: accessUnit)
        scratch.removeAll(keepingCapacity: true)
        var failure: DecoderError?
        do {
            try current.decode(accessUnit.nalUnits, tag: tag, into: &scratch)
        } catch {
            failure = error
        }
        appendFrames(scratch, to: &output)
        let messages = current.takeMessages()
        if let failure {
            var located = failure
            located.accessUnitIndex = accessUnit.index
            located.byteOffset = accessUnit.byteOffset
            switch failure.code {
            case .decodeFailed:
                let words = ([failure.detail].compactMap { $0 } + messages).joined(separator: "; ")
                record(Problem(accessUnitIndex: accessUnit.index, byteOffset: accessUnit.byteOffset, message: words))
                located.detail = words
                pending = output
                throw located
            case .unsupported, .libraryUnavailable:
                throw located
            default:
                statistics.backendFailures += 1
                statistics.accessUnitsLost += 1
                eventHandler?(.backendFailed(accessUnitIndex: accessUnit.index, error: located))
                drainAndClose(into: &output)
                waitingForKeyframe = true
                return output
            }
        }
        if !messages.isEmpty {
            record(Problem(accessUnitIndex: accessUnit.index, byteOffset: accessUnit.byteOffset, message: messages.joined(separator: "; ")))
        }
        return output
    }

    /// Outputs every frame still held for reordering and closes the backend; the next access unit
    /// opens a new one (it should be a keyframe). A backend that cannot be drained is counted in
    /// ``Statistics/drainFailures`` and reported as a ``Event/backendFailed(accessUnitIndex:error:)``.
    public func flush() -> [DecodedFrame] {
        var output = takePending()
        drainAndClose(into: &output)
        return output
    }

    // MARK: - Internals

    private var hasParameterSets: Bool {
        switch codec {
        case .h264: !store.avcSPS.isEmpty && !store.avcPPS.isEmpty
        case .hevc: !store.hevcVPS.isEmpty && !store.hevcSPS.isEmpty && !store.hevcPPS.isEmpty
        }
    }

    /// Every stored parameter set, VPS, SPS then PPS, each by id.
    private var parameterSets: [[UInt8]] {
        switch codec {
        case .h264:
            store.avcSPS.sorted { $0.key < $1.key }.map(\.value.nalUnit) + store.avcPPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
        case .hevc:
            store.hevcVPS.sorted { $0.key < $1.key }.map(\.value.nalUnit) + store.hevcSPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
                + store.hevcPPS.sorted { $0.key < $1.key }.map(\.value.nalUnit)
        }
    }

    private func openBackend(at accessUnit: CodedAccessUnit) throws(DecoderError) {
        let configuration = DecoderConfiguration(codec: codec, parameterSets: parameterSets, threadCount: threadCount)
        var attempt = 0
        while true {
            attempt += 1
            do {
                backend = try factory.makeBackend(for: configuration)
                statistics.backendsCreated += 1
                eventHandler?(.backendCreated(generation: statistics.backendsCreated))
                return
            } catch {
                guard error.code == .backendCreationFailed || error.code == .invalidSession else {
                    var located = error
                    located.accessUnitIndex = accessUnit.index
                    located.byteOffset = accessUnit.byteOffset
                    throw located
                }
                statistics.creationFailures += 1
                eventHandler?(.creationFailed(attempt: attempt, error: error))
                if attempt > retryPolicy.creationRetries {
                    throw DecoderError(.tooManyFailures, field: "create \(factory.name) decoder", accessUnitIndex: accessUnit.index,
                                       byteOffset: accessUnit.byteOffset, detail: "\(attempt) attempts failed; last: \(error)")
                }
            }
        }
    }

    private func drainAndClose(into output: inout [DecodedFrame]) {
        guard let current = backend else { return }
        scratch.removeAll(keepingCapacity: true)
        do {
            try current.flush(into: &scratch)
        } catch {
            statistics.drainFailures += 1
            eventHandler?(.backendFailed(accessUnitIndex: statistics.accessUnitsIn - 1, error: error))
        }
        appendFrames(scratch, to: &output)
        let messages = current.takeMessages()
        if !messages.isEmpty {
            record(Problem(accessUnitIndex: lastUnit.index, byteOffset: lastUnit.byteOffset, message: messages.joined(separator: "; ")))
        }
        backend = nil
    }

    private func takePending() -> [DecodedFrame] {
        let taken = pending
        pending = []
        return taken
    }

    private func record(_ problem: Problem) {
        statistics.decodeErrors += 1
        if problems.count < Self.problemLimit { problems.append(problem) }
        eventHandler?(.problem(problem))
    }

    /// What the frame of `accessUnit` takes over: timing, type, and the VUI of the SPS in force.
    private func info(for accessUnit: CodedAccessUnit) -> UnitInfo {
        var colour = ColourDescription()
        var sar: Rational?
        var location: Int?
        if let id = store.lastSPSId {
            switch codec {
            case .h264:
                if let vui = store.avcSPS[id]?.parsed.vuiParameters {
                    colour = Self.colour(vui)
                    sar = vui.sampleAspectRatio
                    if vui.chromaLocInfoPresentFlag { location = vui.chromaSampleLocTypeTopField }
                }
            case .hevc:
                if let vui = store.hevcSPS[id]?.parsed.vuiParameters {
                    colour = Self.colour(vui)
                    sar = vui.sampleAspectRatio
                    if vui.chromaLocInfoPresentFlag { location = vui.chromaSampleLocTypeTopField }
                }
            }
        }
        return UnitInfo(index: accessUnit.index, pts: accessUnit.pts, keyframe: accessUnit.keyframe != nil,
                        pictureType: accessUnit.pictureType, colour: colour, sampleAspectRatio: sar, chromaSampleLocation: location)
    }

    private static func colour(_ vui: some VUIVideoSignal) -> ColourDescription {
        var colour = ColourDescription()
        if vui.videoSignalTypePresentFlag {
            colour.fullRange = vui.videoFullRangeFlag
            if vui.colourDescriptionPresentFlag {
                colour.primaries = vui.colourPrimaries
                colour.transfer = vui.transferCharacteristics
                colour.matrix = vui.matrixCoefficientsCode
            }
        }
        return colour
    }

    private func appendFrames(_ pictures: [DecodedPicture], to output: inout [DecodedFrame]) {
        for picture in pictures {
            let unit = units.removeValue(forKey: picture.tag)
            // The access unit's pts; without one (a raw stream, or a TS access unit that shares
            // its PES packet), the last pts plus the last step, or the frame's output index.
            let pts: Int64
            if let given = unit?.pts {
                if let last = lastPTS, given > last { ptsStep = given - last }
                pts = given
            } else if let last = lastPTS {
                pts = last &+ ptsStep
            } else {
                pts = rawPTS
            }
            if unit?.pts != nil || lastPTS != nil { lastPTS = pts }
            rawPTS += 1
            output.append(DecodedFrame(pixels: DecodedPixels(picture.buffer), pts: pts, accessUnitIndex: unit?.index ?? -1,
                                       pictureType: unit?.pictureType, isKeyframe: unit?.keyframe ?? false,
                                       colour: unit?.colour ?? ColourDescription(), sampleAspectRatio: unit?.sampleAspectRatio,
                                       chromaSampleLocation: unit?.chromaSampleLocation))
            statistics.framesOut += 1
        }
        // Units whose picture never comes out (second fields, pictures a decoder drops): forget
        // them once far behind (a DPB holds at most 16 frames, 32 fields).
        if units.count > 256 {
            let keep = nextTag - 128
            units = units.filter { $0.key >= keep }
        }
    }
}
