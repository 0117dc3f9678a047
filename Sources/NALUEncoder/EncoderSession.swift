public import NALU

/// Drives an encoder backend the way a production capture pipeline does: lazy creation, retries,
/// transparent rebuilds, keyframe requests, live bitrate changes and flushes, with monotonic
/// timestamps and no silently lost frames.
///
/// ```swift
/// let session = try EncoderSession(configuration: config, factory: X264BackendFactory())
/// for frame in frames { try session.encode(frame) { packet in try sink.write(packet.bytes) } }
/// try session.flush { packet in try sink.write(packet.bytes) }
/// ```
///
/// - The backend is created on the first frame (or by ``prepare()``), and again after
///   ``refresh(configuration:_:)``, after a failure, or after a flush when the backend cannot
///   continue past one (x265).
/// - Creating a backend is retried ``RetryPolicy/creationRetries`` times before
///   ``EncoderError/Code/tooManyFailures`` is thrown. Configuration errors are never retried.
/// - When a backend reports an invalid or failed session for a frame, the session drains what
///   the old backend still holds, tears it down, builds a new one and re-sends the same frame. The
///   first packet of every new backend is an IDR preceded by parameter sets, so the joined stream
///   stays decodable. After ``RetryPolicy/maxConsecutiveFrameFailures`` failures in a row,
///   ``EncoderError/Code/tooManyFailures`` is thrown. Both counters reset on success, and when
///   that error is thrown, so the next call gets the full number of attempts again.
/// - **A call that throws did not accept its frame** (nothing of it is inside the encoder): to
///   keep it in the stream, send the same frame again (same pts); to skip it, send the next one.
///   Packets of earlier frames that came out before the error are delivered, never dropped.
/// - Packets come out in decoding order, and each input frame comes out exactly once. The session
///   assigns `dts` itself so that it increases strictly and never passes `pts` across rebuilds:
///   the k-th packet gets the pts of the (k − D)-th input frame, D being the largest
///   ``EncoderBackend/reorderDepth`` seen (as x264 does within one stream). Every backend is
///   drained before the next starts, so the k-th packet of the session is also the k-th of the
///   input in pts order. If a failed backend cannot even be drained, the frames it
///   held are reported with ``EncoderError/Code/framesLost``, never dropped silently; the
///   error's ``EncoderError/lostFramePTS`` names them. They cannot be sent again with those
///   timestamps (pts must increase); the frame of the call that threw was not accepted and can.
///
/// Packets are handed to the closure given to each call. If the closure throws, the remaining
/// packets stay queued and are delivered first by the next call. Packets drained by a call that
/// takes no closure (``refresh(configuration:_:)`` without one, ``setBitrate(_:)``) are queued
/// the same way. The closure must not call back into the session.
///
/// A session is not thread-safe; use it from one thread at a time. Its calls block for as long
/// as the library takes (tens of milliseconds per x265 frame): from Swift concurrency, use
/// ``AsyncEncoderSession``, which runs them on a thread of its own.
public final class EncoderSession {
    /// How hard the session tries before giving up.
    public struct RetryPolicy: Sendable, Hashable {
        /// Retries after a failed backend creation (so up to `creationRetries + 1` attempts).
        public var creationRetries: Int
        /// Consecutive failed frame encodes (each followed by a rebuild) before giving up.
        public var maxConsecutiveFrameFailures: Int

        public init(creationRetries: Int = 5, maxConsecutiveFrameFailures: Int = 20) {
            self.creationRetries = max(0, creationRetries)
            self.maxConsecutiveFrameFailures = max(1, maxConsecutiveFrameFailures)
        }
    }

    /// Something the session did on its own, for logging.
    public enum Event: Sendable, Hashable {
        /// A backend was opened; `generation` counts backends over the session's life (from 1).
        case backendCreated(generation: Int)
        /// Opening a backend failed (`attempt` from 1).
        case creationFailed(attempt: Int, error: EncoderError)
        /// Encoding the frame with `pts` failed; the session rebuilds and re-sends it.
        case frameFailed(pts: Int64, consecutiveFailures: Int, error: EncoderError)
        /// A backend was drained of `packets` delayed pictures and closed (`reason`: "failure",
        /// "refresh", "flush", "bitrate").
        case backendClosed(reason: String, drainedPackets: Int)
        /// The rate control changed, live or by rebuilding.
        case bitrateChanged(bitsPerSecond: Int, live: Bool)
    }

    /// Counters over the session's life.
    public struct Statistics: Sendable, Hashable {
        /// Frames accepted.
        public var framesIn = 0
        /// Packets handed out.
        public var packetsOut = 0
        /// Packets handed out with a keyframe class.
        public var keyframes = 0
        /// Bytes of the packets handed out.
        public var bytesOut: Int64 = 0
        /// Backends opened.
        public var backendsCreated = 0
        /// Failed backend creations.
        public var creationFailures = 0
        /// Failed frame encodes (each followed by a rebuild).
        public var frameFailures = 0
        /// B pictures among the packets handed out.
        public var bFrames = 0

        /// Counters with the given values (all 0 by default), for example to compare with or to
        /// sum the statistics of several sessions.
        public init(framesIn: Int = 0, packetsOut: Int = 0, keyframes: Int = 0, bytesOut: Int64 = 0, backendsCreated: Int = 0,
                    creationFailures: Int = 0, frameFailures: Int = 0, bFrames: Int = 0) {
            self.framesIn = framesIn
            self.packetsOut = packetsOut
            self.keyframes = keyframes
            self.bytesOut = bytesOut
            self.backendsCreated = backendsCreated
            self.creationFailures = creationFailures
            self.frameFailures = frameFailures
            self.bFrames = bFrames
        }
    }

    public private(set) var configuration: EncoderConfiguration
    public let factory: any EncoderBackendFactory
    public let retryPolicy: RetryPolicy
    /// Called for every ``Event``.
    public var eventHandler: ((Event) -> Void)?
    public private(set) var statistics = Statistics()

    private var backend: (any EncoderBackend)?
    /// Frames the current backend accepted and has not yet returned.
    private var framesInBackend = 0
    /// The pts of those frames, in input order.
    private var ptsInBackend: [Int64] = []
    /// The next packet is the first of a new backend: it must carry parameter sets.
    private var firstPacketOfBackend = false
    private var keyframeRequested = false
    private var lastInputPTS: Int64?
    private var lastDTS: Int64?
    /// Input pts not yet used for a dts: `inputPTS[i]` is input frame `inputBase + i`.
    private var inputPTS: [Int64] = []
    private var inputPTSStart = 0
    private var inputBase = 0
    private var packetIndex = 0
    private var reorderDepth = 0
    private var firstPTS: Int64 = 0
    private var frameStep: Int64 = 1
    private var consecutiveFailures = 0
    private var lastParameterSets: [[UInt8]] = []
    /// The parameter sets of the first backend: the stream's record when they travel out of band.
    private var recordParameterSets: [[UInt8]]?
    private var pending: [EncodedPacket] = []
    private var pendingIndex = 0
    private var scratch: [EncodedPacket] = []

    /// Validates `configuration` with `factory` (so bad settings fail here, before any frame).
    /// The backend itself is opened lazily.
    public init(configuration: EncoderConfiguration, factory: any EncoderBackendFactory, retryPolicy: RetryPolicy = RetryPolicy()) throws(EncoderError) {
        try factory.validate(configuration)
        self.configuration = configuration
        self.factory = factory
        self.retryPolicy = retryPolicy
        pending.reserveCapacity(16)
        scratch.reserveCapacity(16)
    }

    /// Whether a backend is open.
    public var isBackendOpen: Bool { backend != nil }

    /// The parameter sets (H.264 SPS, PPS; H.265 VPS, SPS, PPS) of the current backend, or of
    /// the last one; empty before any backend was opened (call ``prepare()`` to open one early).
    public var parameterSets: [[UInt8]] { backend?.parameterSets ?? lastParameterSets }

    /// The parameter sets as an `avcC` / `hvcC` record (ISO/IEC 14496-15 5.3.3.1 / 8.3.3.1), built
    /// by the core's one record builder
    /// (``NALU/DecoderConfigurationRecord/build(codec:parameterSets:lengthSize:arrayCompleteness:)``),
    /// for MP4 sample entries or `extradata`; `nil` before any backend was opened (call ``prepare()`` first). The hvcC's `array_completeness` follows
    /// ``EncoderConfiguration/parameterSetCarriage`` (the rule of ``NALU/ParameterSetCarriage``):
    /// set when the packets carry no parameter sets (`hvc1`), cleared when they do (`hev1`).
    public func decoderConfigurationRecord(lengthSize: Int = 4) throws(NALUError) -> DecoderConfigurationRecord? {
        let sets = parameterSets
        guard !sets.isEmpty else { return nil }
        return try DecoderConfigurationRecord(codec: configuration.codec, parameterSets: sets, lengthSize: lengthSize,
                                              arrayCompleteness: configuration.parameterSetCarriage.arrayCompleteness)
    }

    /// Opens the backend now rather than on the first frame (for example to write extradata
    /// before encoding). Retries like a lazy creation.
    public func prepare() throws(EncoderError) {
        if backend == nil { try openBackend() }
    }

    /// Forces the next frame to be an IDR picture (with parameter sets in front when the
    /// configuration repeats them).
    public func requestKeyframe() {
        keyframeRequested = true
    }

    /// Encodes `frame` and hands every packet that is ready to `handler`, in decoding order.
    ///
    /// Throws ``EncoderError`` (frame mismatch, non-monotonic pts, too many failures, frames
    /// lost) or whatever `handler` throws. When an ``EncoderError`` is thrown, `frame` was not
    /// accepted: send it again (same pts) to keep it in the stream. When `handler` throws, the
    /// frame was accepted and the undelivered packets come first from the next call.
    ///
    /// Untyped (`any Error`), not `throws(EncoderError)`: the session's own error and the
    /// handler's are of different types where it is called (the smart cut's handler writes the
    /// packets and throws the muxer's `NALUError`), and the handler's error reaches the caller as
    /// thrown. ``encode(_:)`` is the typed form.
    public func encode(_ frame: Frame, _ handler: (EncodedPacket) throws -> Void) throws {
        try deliverPending(handler)
        try frame.validate(against: configuration)
        if let lastInputPTS, frame.pts <= lastInputPTS {
            throw EncoderError(.nonMonotonicTimestamp, field: "pts", detail: "\(frame.pts) after \(lastInputPTS)")
        }
        while true {
            if backend == nil { try openBackend() }
            guard let current = backend else { continue }
            let force = keyframeRequested
            scratch.removeAll(keepingCapacity: true)
            if let error = Self.attempt({ () throws(EncoderError) in try current.encode(frame, forceKeyframe: force, into: &scratch) }) {
                guard error.isSessionFailure else { throw error }
                consecutiveFailures += 1
                statistics.frameFailures += 1
                eventHandler?(.frameFailed(pts: frame.pts, consecutiveFailures: consecutiveFailures, error: error))
                // Whatever the backend returned before failing is still valid output.
                accept(scratch)
                try closeBackend(reason: "failure")
                if consecutiveFailures >= retryPolicy.maxConsecutiveFrameFailures {
                    let failures = consecutiveFailures
                    // The next call starts counting afresh (and rebuilds): giving up on this
                    // frame says nothing about the next attempt.
                    consecutiveFailures = 0
                    try deliverPending(handler)
                    throw EncoderError(.tooManyFailures, field: "encode", detail: "\(failures) consecutive failed attempts for the frame with pts \(frame.pts), which was not accepted; last: \(error)")
                }
                continue
            }
            consecutiveFailures = 0
            keyframeRequested = false
            recordInput(frame.pts)
            statistics.framesIn += 1
            framesInBackend += 1
            ptsInBackend.append(frame.pts)
            accept(scratch)
            try deliverPending(handler)
            return
        }
    }

    /// Encodes `frame` and returns the packets that are ready.
    ///
    /// Nothing encoded is lost when this throws (issue 32 item 13): packets drained before the
    /// error (a backend that failed and was rebuilt gives up its delayed pictures) are kept and
    /// come first from the next ``encode(_:)`` or ``flush()``; ``Statistics/packetsOut`` counts
    /// only packets handed out.
    public func encode(_ frame: Frame) throws(EncoderError) -> [EncodedPacket] {
        try collecting { (handler) throws in try encode(frame, handler) }
    }

    /// Drains every delayed picture and returns the packets (see ``flush(_:)``). When it throws,
    /// the packets drained before the error come first from the next call, as for ``encode(_:)``.
    public func flush() throws(EncoderError) -> [EncodedPacket] {
        try collecting { (handler) throws in try flush(handler) }
    }

    /// Runs a closure-form call with a handler that collects the packets; when it throws, they go
    /// back to the front of the queue (uncounted), and the error is the session's own.
    private func collecting(_ body: ((EncodedPacket) throws -> Void) throws -> Void) throws(EncoderError) -> [EncodedPacket] {
        var packets: [EncodedPacket] = []
        do {
            try body { packets.append($0) }
        } catch {
            requeue(packets)
            // The handler above cannot throw: every error here is the session's.
            throw (error as? EncoderError) ?? EncoderError(.encodeFailed, field: "encode", detail: "\(error)")
        }
        return packets
    }

    /// Drains every delayed picture (B-frames, lookahead) to `handler`. Encoding may continue
    /// afterwards; when the backend cannot continue past a flush (x265) the next frame opens a
    /// new one, which starts with parameter sets and an IDR.
    ///
    /// Throws ``EncoderError`` (`.framesLost`) or what `handler` throws: untyped for the reason
    /// ``encode(_:_:)`` is; ``flush()`` is the typed form.
    public func flush(_ handler: (EncodedPacket) throws -> Void) throws {
        try deliverPending(handler)
        if let current = backend {
            scratch.removeAll(keepingCapacity: true)
            if let error = Self.attempt({ () throws(EncoderError) in try current.flush(into: &scratch) }) {
                accept(scratch)
                let lost = ptsInBackend
                discardBackend()
                try deliverPending(handler)
                var failure = EncoderError(.framesLost, field: "flush", detail: "\(lost.count) frame(s) held by the \(factory.name) backend could not be drained: \(error)")
                failure.lostFramePTS = lost
                throw failure
            }
            accept(scratch)
            framesInBackend = 0
            ptsInBackend.removeAll()
            if !current.canEncodeAfterFlush {
                discardBackend()
                eventHandler?(.backendClosed(reason: "flush", drainedPackets: scratch.count))
            }
        }
        try deliverPending(handler)
    }

    /// Drains and closes the backend; the next frame opens a new one (an IDR with parameter
    /// sets) with `configuration` if given, which is validated first. This is also how to change
    /// settings the backend cannot change live. Drained packets go to `handler`, or are queued for
    /// the next call when there is none.
    ///
    /// Throws ``EncoderError`` (a configuration refused, a backend that fails to drain) or what
    /// `handler` throws: untyped for the reason ``encode(_:_:)`` is.
    public func refresh(configuration newConfiguration: EncoderConfiguration? = nil, _ handler: ((EncodedPacket) throws -> Void)? = nil) throws {
        if let newConfiguration {
            try factory.validate(newConfiguration)
        }
        if let handler { try deliverPending(handler) }
        try closeBackend(reason: "refresh")
        if let newConfiguration { configuration = newConfiguration }
        if let handler { try deliverPending(handler) }
    }

    /// Changes the average bitrate and returns whether the change was live.
    ///
    /// Live when the backend applies it to the running encoder (x264 in ABR mode with VBV);
    /// otherwise the backend is drained and closed, and the next frame opens one with the new
    /// rate control, starting with an IDR (x264 without VBV, CRF/QP sessions, and x265, whose
    /// `x265_encoder_reconfig` accepts a new bitrate but does not apply it). Packets drained then
    /// are queued for the next call. Switches CRF/QP sessions to ABR.
    @discardableResult
    public func setBitrate(_ bitsPerSecond: Int) throws(EncoderError) -> Bool {
        var newConfiguration = configuration
        newConfiguration.rateControl = .bitrate(bitsPerSecond)
        try factory.validate(newConfiguration)
        if let current = backend {
            var live = false
            if let error = Self.attempt({ () throws(EncoderError) in live = try current.reconfigure(rateControl: newConfiguration) }) {
                guard error.isSessionFailure else { throw error }
                live = false
            }
            if live {
                configuration = newConfiguration
                eventHandler?(.bitrateChanged(bitsPerSecond: bitsPerSecond, live: true))
                return true
            }
            try closeBackend(reason: "bitrate")
        }
        configuration = newConfiguration
        eventHandler?(.bitrateChanged(bitsPerSecond: bitsPerSecond, live: false))
        return false
    }

    /// ``refresh(configuration:_:)`` returning the drained packets; when it throws they come
    /// first from the next call (``AsyncEncoderSession/refresh(configuration:)``).
    func refreshCollecting(configuration newConfiguration: EncoderConfiguration?) throws(EncoderError) -> [EncodedPacket] {
        try collecting { (handler) throws in
            try withoutActuallyEscaping(handler) { try refresh(configuration: newConfiguration, $0) }
        }
    }

    // MARK: - Internals

    private func openBackend() throws(EncoderError) {
        var attempt = 0
        while true {
            attempt += 1
            var made: (any EncoderBackend)?
            if let error = Self.attempt({ () throws(EncoderError) in made = try factory.makeBackend(for: configuration) }) {
                guard error.code == .backendCreationFailed || error.isSessionFailure else { throw error }
                statistics.creationFailures += 1
                eventHandler?(.creationFailed(attempt: attempt, error: error))
                if attempt > retryPolicy.creationRetries {
                    throw EncoderError(.tooManyFailures, field: "create \(factory.name) backend", detail: "\(attempt) attempts failed; last: \(error)")
                }
                continue
            }
            if let created = made {
                backend = created
                lastParameterSets = created.parameterSets
                if recordParameterSets == nil { recordParameterSets = created.parameterSets }
                framesInBackend = 0
                ptsInBackend.removeAll()
                firstPacketOfBackend = true
                reorderDepth = max(reorderDepth, created.reorderDepth)
                // The first frame of every backend is an IDR, also when a library would
                // otherwise start differently.
                keyframeRequested = true
                statistics.backendsCreated += 1
                eventHandler?(.backendCreated(generation: statistics.backendsCreated))
                return
            }
        }
    }

    /// Runs `body`; returns its error instead of throwing it.
    private static func attempt(_ body: () throws(EncoderError) -> Void) -> EncoderError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// Drains the backend into the pending queue and closes it.
    private func closeBackend(reason: String) throws(EncoderError) {
        guard let current = backend else { return }
        scratch.removeAll(keepingCapacity: true)
        let drainError = Self.attempt { () throws(EncoderError) in try current.flush(into: &scratch) }
        accept(scratch)
        let lost = ptsInBackend
        discardBackend()
        eventHandler?(.backendClosed(reason: reason, drainedPackets: scratch.count))
        if let drainError, !lost.isEmpty {
            var failure = EncoderError(.framesLost, field: "drain", detail: "\(lost.count) frame(s) held by the failed \(factory.name) backend could not be drained: \(drainError)")
            failure.lostFramePTS = lost
            throw failure
        }
    }

    private func discardBackend() {
        if let current = backend { lastParameterSets = current.parameterSets }
        backend = nil
        framesInBackend = 0
        ptsInBackend.removeAll()
    }

    /// Fixes timestamps, makes sure a new backend's first packet carries parameter sets, counts,
    /// and queues `packets`.
    private func accept(_ packets: [EncodedPacket]) {
        for var packet in packets {
            let first = firstPacketOfBackend
            firstPacketOfBackend = false
            switch configuration.parameterSetCarriage {
            case .inBand:
                if first { prependParameterSetsIfMissing(&packet) }
            case .outOfBand:
                if first || packet.keyframe != nil { moveParameterSetsOutOfBand(&packet, first: first) }
            }
            packet.format = configuration.outputFormat
            packet.timeBase = configuration.effectiveTimeBase
            packet.dts = nextDTS()
            framesInBackend -= 1
            if let index = ptsInBackend.firstIndex(of: packet.pts) { ptsInBackend.remove(at: index) }
            pending.append(packet)
        }
    }

    private func recordInput(_ pts: Int64) {
        if lastInputPTS == nil {
            firstPTS = pts
        } else if inputBase + inputPTS.count - inputPTSStart == 1, let lastInputPTS {
            frameStep = max(1, pts &- lastInputPTS)
        }
        lastInputPTS = pts
        inputPTS.append(pts)
    }

    /// The decoding timestamp of the next packet: the pts of input frame k − D (before the first
    /// frame: first pts − (D − k) frame steps), kept strictly increasing when D grows.
    private func nextDTS() -> Int64 {
        let source = packetIndex - reorderDepth
        var dts: Int64
        if source < 0 {
            dts = firstPTS &- Int64(-source) &* frameStep
        } else {
            let index = source - inputBase + inputPTSStart
            dts = index >= inputPTSStart && index < inputPTS.count ? inputPTS[index] : (lastDTS ?? firstPTS) &+ 1
        }
        if let lastDTS, dts <= lastDTS { dts = lastDTS &+ 1 }
        lastDTS = dts
        packetIndex += 1
        // Drop input pts no later packet needs (the next one uses frame packetIndex − D).
        let keepFrom = packetIndex - reorderDepth
        while inputBase < keepFrom && inputPTSStart < inputPTS.count {
            inputPTSStart += 1
            inputBase += 1
        }
        if inputPTSStart > 1024 && inputPTSStart * 2 > inputPTS.count {
            inputPTS.removeFirst(inputPTSStart)
            inputPTSStart = 0
        }
        return dts
    }

    private func prependParameterSetsIfMissing(_ packet: inout EncodedPacket) {
        let format = configuration.outputFormat
        let units = EncoderFraming.nalUnits(in: packet.bytes, format: format)
        guard EncoderFraming.parameterSets(units, codec: configuration.codec).isEmpty else { return }
        prepend(parameterSets, to: &packet)
    }

    /// Out-of-band carriage: removes the record's parameter sets from `packet` (x265 writes them
    /// before its first picture even without repetition), and puts a later backend's different
    /// ones in band in front of its first picture, so the stream still decodes.
    private func moveParameterSetsOutOfBand(_ packet: inout EncodedPacket, first: Bool) {
        let record = recordParameterSets ?? parameterSets
        let format = configuration.outputFormat
        let units = EncoderFraming.nalUnits(in: packet.bytes, format: format)
        let sets = EncoderFraming.parameterSets(units, codec: configuration.codec)
        let carriage = ParameterSetCarriage.outOfBand
        let kept = units.filter { unit in !sets.contains(unit) || carriage.keepsInAccessUnit(unit, record: record) }
        if kept.count != units.count {
            packet.bytes = EncoderFraming.frame(kept, format: format)
        }
        if first {
            let missing = parameterSets.filter { carriage.keepsInAccessUnit($0, record: record) && !kept.contains($0) }
            if !missing.isEmpty { prepend(missing, to: &packet) }
        }
    }

    private func prepend(_ sets: [[UInt8]], to packet: inout EncodedPacket) {
        guard !sets.isEmpty else { return }
        packet.bytes = EncoderFraming.frame(sets, format: configuration.outputFormat) + packet.bytes
    }

    private func deliverPending(_ handler: (EncodedPacket) throws -> Void) throws {
        while pendingIndex < pending.count {
            // A packet counts as delivered once the handler returns; if it throws, the same
            // packet comes first next time.
            try handler(pending[pendingIndex])
            count(pending[pendingIndex], by: 1)
            pendingIndex += 1
        }
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
    }

    /// Puts packets that were delivered to a collecting handler back in front of the queue, no
    /// longer counted as handed out.
    private func requeue(_ packets: [EncodedPacket]) {
        guard !packets.isEmpty else { return }
        for packet in packets { count(packet, by: -1) }
        pending.insert(contentsOf: packets, at: pendingIndex)
    }

    /// Counts `packet` as handed out (`sign` 1) or takes it back (−1).
    private func count(_ packet: EncodedPacket, by sign: Int) {
        statistics.packetsOut += sign
        statistics.bytesOut += Int64(sign * packet.bytes.count)
        if packet.keyframe != nil { statistics.keyframes += sign }
        if packet.pictureType == .b { statistics.bFrames += sign }
    }
}
