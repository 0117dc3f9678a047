/// A schedule of failures for ``FaultInjectingBackendFactory``, shared by every backend it
/// creates so faults can be placed across rebuilds.
///
/// A testing aid for applications too: wrap your real factory to check that your pipeline copes
/// with encoder failures the way it would on a device whose hardware encoder session gets
/// invalidated (for example when an app goes to the background).
public final class FaultPlan {
    /// The next `creationFailures` calls to `makeBackend` fail with
    /// ``EncoderError/Code/backendCreationFailed``.
    public var creationFailures: Int
    /// Frame index → how many times encoding that frame reports
    /// ``EncoderError/Code/invalidSession``. The index counts frames successfully encoded
    /// through this plan (0 is the first frame), so a re-sent frame keeps its index.
    public var invalidSessionAtFrame: [Int: Int]
    /// The next `flushFailures` drains (``EncoderBackend/flush(into:)``, also the drain of a
    /// failed backend) fail with ``EncoderError/Code/encodeFailed`` and return nothing, so the
    /// frames the backend holds are lost.
    public var flushFailures: Int
    /// Frames successfully encoded through this plan so far.
    public private(set) var framesEncoded = 0
    /// Backends created through this plan so far.
    public private(set) var backendsCreated = 0
    /// Failures injected so far (creation and encode).
    public private(set) var faultsInjected = 0

    public init(creationFailures: Int = 0, invalidSessionAtFrame: [Int: Int] = [:], flushFailures: Int = 0) {
        self.creationFailures = creationFailures
        self.invalidSessionAtFrame = invalidSessionAtFrame
        self.flushFailures = flushFailures
    }

    func shouldFailFlush() -> Bool {
        guard flushFailures > 0 else { return false }
        flushFailures -= 1
        faultsInjected += 1
        return true
    }

    func shouldFailCreation() -> Bool {
        guard creationFailures > 0 else {
            backendsCreated += 1
            return false
        }
        creationFailures -= 1
        faultsInjected += 1
        return true
    }

    func shouldFailFrame() -> Bool {
        guard let remaining = invalidSessionAtFrame[framesEncoded], remaining > 0 else { return false }
        invalidSessionAtFrame[framesEncoded] = remaining - 1
        faultsInjected += 1
        return true
    }

    func frameEncoded() { framesEncoded += 1 }
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
            throw EncoderError(.backendCreationFailed, context: name, detail: "injected creation failure")
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
            throw EncoderError(.invalidSession, context: "fault injection", detail: "injected invalid session at frame \(plan.framesEncoded)")
        }
        try wrapped.encode(frame, forceKeyframe: forceKeyframe, into: &packets)
        plan.frameEncoded()
    }

    public func flush(into packets: inout [EncodedPacket]) throws(EncoderError) {
        if plan.shouldFailFlush() {
            throw EncoderError(.encodeFailed, context: "fault injection", detail: "injected drain failure")
        }
        try wrapped.flush(into: &packets)
    }

    public func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool {
        try wrapped.reconfigure(rateControl: configuration)
    }
}
