/// A schedule of failures for ``FaultInjectingBackendFactory``, shared by every backend it
/// creates so faults can be placed across rebuilds.
///
/// A testing aid for applications too: wrap your real factory to check that your pipeline copes
/// with encoder failures the way it would on a device whose hardware encoder session gets
/// invalidated (for example when an app goes to the background).
///
/// A plan is shared by reference and may be read from any thread (a lock guards it), so the
/// factory holding it is `Sendable` like any other.
public final class FaultPlan: @unchecked Sendable {
    private struct State {
        var creationFailures: Int
        var invalidSessionAtFrame: [Int: Int]
        var flushFailures: Int
        var framesEncoded = 0
        var backendsCreated = 0
        var faultsInjected = 0
    }

    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var state: State

    /// The next `creationFailures` calls to `makeBackend` fail with
    /// ``EncoderError/Code/backendCreationFailed``.
    public var creationFailures: Int {
        get { lock.withLock { state.creationFailures } }
        set { lock.withLock { state.creationFailures = newValue } }
    }
    /// Frame index → how many times encoding that frame reports
    /// ``EncoderError/Code/invalidSession``. The index counts frames successfully encoded
    /// through this plan (0 is the first frame), so a re-sent frame keeps its index.
    public var invalidSessionAtFrame: [Int: Int] {
        get { lock.withLock { state.invalidSessionAtFrame } }
        set { lock.withLock { state.invalidSessionAtFrame = newValue } }
    }
    /// The next `flushFailures` drains (``EncoderBackend/flush(into:)``, also the drain of a
    /// failed backend) fail with ``EncoderError/Code/encodeFailed`` and return nothing, so the
    /// frames the backend holds are lost.
    public var flushFailures: Int {
        get { lock.withLock { state.flushFailures } }
        set { lock.withLock { state.flushFailures = newValue } }
    }
    /// Frames successfully encoded through this plan so far.
    public var framesEncoded: Int { lock.withLock { state.framesEncoded } }
    /// Backends created through this plan so far.
    public var backendsCreated: Int { lock.withLock { state.backendsCreated } }
    /// Failures injected so far (creation and encode).
    public var faultsInjected: Int { lock.withLock { state.faultsInjected } }

    public init(creationFailures: Int = 0, invalidSessionAtFrame: [Int: Int] = [:], flushFailures: Int = 0) {
        state = State(creationFailures: creationFailures, invalidSessionAtFrame: invalidSessionAtFrame, flushFailures: flushFailures)
    }

    func shouldFailFlush() -> Bool {
        lock.withLock {
            guard state.flushFailures > 0 else { return false }
            state.flushFailures -= 1
            state.faultsInjected += 1
            return true
        }
    }

    func shouldFailCreation() -> Bool {
        lock.withLock {
            guard state.creationFailures > 0 else {
                state.backendsCreated += 1
                return false
            }
            state.creationFailures -= 1
            state.faultsInjected += 1
            return true
        }
    }

    func shouldFailFrame() -> Bool {
        lock.withLock {
            guard let remaining = state.invalidSessionAtFrame[state.framesEncoded], remaining > 0 else { return false }
            state.invalidSessionAtFrame[state.framesEncoded] = remaining - 1
            state.faultsInjected += 1
            return true
        }
    }

    func frameEncoded() { lock.withLock { state.framesEncoded += 1 } }
}

/// Wraps another ``EncoderBackendFactory`` and injects the failures of a ``FaultPlan``: failed
/// creations and invalid sessions at chosen frames. Everything else is passed through, so the
/// output is real encoded video.
public struct FaultInjectingBackendFactory: EncoderBackendFactory {
    public let wrapped: any EncoderBackendFactory
    public let plan: FaultPlan

    public init(wrapping wrapped: any EncoderBackendFactory, plan: FaultPlan) {
        self.wrapped = wrapped
        self.plan = plan
    }

    public var name: String { "fault-injecting \(wrapped.name)" }

    public func validate(_ configuration: EncoderConfiguration) throws(EncoderError) {
        try wrapped.validate(configuration)
    }

    public func makeBackend(for configuration: EncoderConfiguration) throws(EncoderError) -> any EncoderBackend {
        if plan.shouldFailCreation() {
            throw EncoderError(.backendCreationFailed, field: name, detail: "injected creation failure")
        }
        return FaultInjectingBackend(wrapped: try wrapped.makeBackend(for: configuration), plan: plan)
    }
}

/// A backend that forwards to another and fails where its ``FaultPlan`` says.
public final class FaultInjectingBackend: EncoderBackend {
    public let wrapped: any EncoderBackend
    public let plan: FaultPlan
    /// Set once this instance reported an invalid session; it then refuses every frame, as a
    /// real invalidated session would.
    public private(set) var isInvalidated = false

    public init(wrapped: any EncoderBackend, plan: FaultPlan) {
        self.wrapped = wrapped
        self.plan = plan
    }

    public var parameterSets: [[UInt8]] { wrapped.parameterSets }
    public var canEncodeAfterFlush: Bool { wrapped.canEncodeAfterFlush }
    public var reorderDepth: Int { wrapped.reorderDepth }

    public func encode(_ frame: Frame, forceKeyframe: Bool, into packets: inout [EncodedPacket]) throws(EncoderError) {
        if isInvalidated || plan.shouldFailFrame() {
            isInvalidated = true
            throw EncoderError(.invalidSession, field: "fault injection", detail: "injected invalid session at frame \(plan.framesEncoded)")
        }
        try wrapped.encode(frame, forceKeyframe: forceKeyframe, into: &packets)
        plan.frameEncoded()
    }

    public func flush(into packets: inout [EncodedPacket]) throws(EncoderError) {
        if plan.shouldFailFlush() {
            throw EncoderError(.encodeFailed, field: "fault injection", detail: "injected drain failure")
        }
        try wrapped.flush(into: &packets)
    }

    public func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool {
        try wrapped.reconfigure(rateControl: configuration)
    }
}
