public import NALU
import NALUEncoder

/// A schedule of decoder failures, shared by every backend a ``FaultInjectingDecoderFactory``
/// makes. A testing aid for applications too: check that a pipeline copes with a decoder that
/// fails mid-stream (a hardware decoder session invalidated in the background).
public final class DecoderFaultPlan: @unchecked Sendable {
    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var failAt: Set<Int>
    private var decoded = 0
    private var injected = 0

    /// Decoding the access units with these decoding-order positions (counted over every
    /// backend of the plan, from 0) reports ``DecoderError/Code/invalidSession``.
    public init(invalidSessionAtAccessUnits: Set<Int>) {
        failAt = invalidSessionAtAccessUnits
    }

    /// Faults injected so far.
    public var faultsInjected: Int { lock.withLock { injected } }

    /// Whether the next access unit fails; counts it.
    func nextFails() -> Bool {
        lock.withLock {
            let position = decoded
            decoded += 1
            if failAt.contains(position) {
                injected += 1
                return true
            }
            return false
        }
    }
}

/// Wraps a real factory; its backends fail as ``DecoderFaultPlan`` says (the failing access unit
/// is not passed to the library, as if the session had broken before it).
public struct FaultInjectingDecoderFactory: DecoderBackendFactory {
    public let wrapped: any DecoderBackendFactory
    public let plan: DecoderFaultPlan

    public init(wrapping wrapped: any DecoderBackendFactory, plan: DecoderFaultPlan) {
        self.wrapped = wrapped
        self.plan = plan
    }

    public var name: String { "faulty \(wrapped.name)" }

    public func validate(codec: Codec) throws(DecoderError) { try wrapped.validate(codec: codec) }

    public func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend {
        FaultInjectingDecoderBackend(wrapped: try wrapped.makeBackend(for: configuration), plan: plan)
    }
}

final class FaultInjectingDecoderBackend: DecoderBackend {
    let wrapped: any DecoderBackend
    let plan: DecoderFaultPlan

    init(wrapped: any DecoderBackend, plan: DecoderFaultPlan) {
        self.wrapped = wrapped
        self.plan = plan
    }

    func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError) {
        if plan.nextFails() {
            throw DecoderError(.invalidSession, field: "decode", detail: "injected fault")
        }
        try wrapped.decode(nalUnits, tag: tag, into: &pictures)
    }

    func flush(into pictures: inout [DecodedPicture]) throws(DecoderError) { try wrapped.flush(into: &pictures) }

    func takeMessages() -> [String] { wrapped.takeMessages() }
}
