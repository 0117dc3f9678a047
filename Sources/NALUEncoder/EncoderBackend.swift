import NALU

/// One open encoder instance (an x264 or x265 handle, a hardware session, a fake for tests).
///
/// A backend is used from one thread at a time by one ``EncoderSession``, which owns it and calls
/// nothing after a thrown error except ``flush(into:)`` (to drain it) and `deinit`. To add an
/// encoder, implement this protocol and ``EncoderBackendFactory``; the session needs no change.
///
/// Error contract: throw an ``EncoderError`` with code ``EncoderError/Code/invalidSession`` or
/// ``EncoderError/Code/encodeFailed`` when the frame was *not* accepted and the instance should be
/// replaced; the session drains what it can, rebuilds, and re-sends the frame. Other codes are
/// passed to the caller as they are.
public protocol EncoderBackend: AnyObject {
    /// The parameter sets the stream uses (H.264 SPS, PPS; H.265 VPS, SPS, PPS) as NAL units
    /// without start codes or length prefixes, in that order.
    var parameterSets: [[UInt8]] { get }

    /// How many frames decoding order can run ahead of display order: 0 without B-frames, 1
    /// with B-frames, 2 with a B-pyramid (x264/x265). Overestimating is safe; the session derives
    /// decoding timestamps from it.
    var reorderDepth: Int { get }

    /// Whether frames may be encoded after ``flush(into:)``. When `false` the session rebuilds
    /// the backend for the next frame (x265 forbids input after a flush).
    var canEncodeAfterFlush: Bool { get }

    /// Encodes `frame` (or queues it for B-frame reordering) and appends every packet that is
    /// ready to `packets`, copied so that it outlives the next call. `forceKeyframe` asks for an
    /// IDR picture with parameter sets in front of it.
    func encode(_ frame: Frame, forceKeyframe: Bool, into packets: inout [EncodedPacket]) throws(EncoderError)

    /// Drains every delayed picture into `packets`.
    func flush(into packets: inout [EncodedPacket]) throws(EncoderError)

    /// Applies `configuration`'s rate control to the running encoder. Returns `false` when the
    /// change cannot be made live (the session then rebuilds with the new configuration).
    func reconfigure(rateControl configuration: EncoderConfiguration) throws(EncoderError) -> Bool
}

/// Creates backends of one kind. The session calls ``validate(_:)`` when it is created (so bad
/// settings fail before any frame) and ``makeBackend(for:)`` lazily, again after a failure, and
/// after ``EncoderSession/refresh(configuration:)``.
///
/// Factories are `Sendable` (a value describing how to open encoders), so one can be a global
/// constant or go into a `Task`; the backends they make are not, and stay with one session.
public protocol EncoderBackendFactory: Sendable {
    /// A short name for messages, e.g. `"x264"`.
    var name: String { get }

    /// Throws ``EncoderError/Code/invalidConfiguration`` or ``EncoderError/Code/unsupported``
    /// when `configuration` cannot be encoded, without opening an encoder.
    func validate(_ configuration: EncoderConfiguration) throws(EncoderError)

    /// Opens a new encoder. Throwing ``EncoderError/Code/backendCreationFailed`` makes the
    /// session retry; other codes are final.
    func makeBackend(for configuration: EncoderConfiguration) throws(EncoderError) -> any EncoderBackend
}
