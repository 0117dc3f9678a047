public import NALU
public import NALUEncoder

/// What a decoder backend is opened for: the codec, the parameter sets in force (VPS, SPS, PPS
/// NAL units without start codes, from the `avcC`/`hvcC` record or the stream) and threads.
public struct DecoderConfiguration: Sendable, Hashable {
    public var codec: Codec
    /// The parameter sets in force when the backend is opened; the backend hands them to the
    /// library before the first access unit.
    public var parameterSets: [[UInt8]]
    /// Decoding threads: 0 lets the library choose (one per core, frame threads for libavcodec),
    /// 1 decodes on the calling thread (messages then belong to the access unit being sent).
    public var threadCount: Int

    public init(codec: Codec, parameterSets: [[UInt8]] = [], threadCount: Int = 0) {
        self.codec = codec
        self.parameterSets = parameterSets
        self.threadCount = max(0, threadCount)
    }
}

/// One decoded picture as a backend returns it: the pixels, tightly packed, and the `tag` of the
/// access unit it was coded in (``DecoderBackend/decode(_:tag:into:)``).
public struct DecodedPicture {
    /// The planes, in a ``NALUEncoder/PixelFormat`` layout (planar, 8- or 10-bit).
    public var buffer: FrameBuffer
    /// The tag passed with the access unit the picture came from.
    public var tag: Int64

    public init(buffer: FrameBuffer, tag: Int64) {
        self.buffer = buffer
        self.tag = tag
    }
}

/// One open decoder instance (a libavcodec context, a libde265 decoder, a fake for tests).
///
/// A backend is used from one thread at a time by one ``DecoderSession``, which owns it. To add a
/// decoder, implement this protocol and ``DecoderBackendFactory``; the session needs no change.
///
/// Error contract: throw ``DecoderError/Code/decodeFailed`` when the library rejected the coded
/// data but can go on (the session reports it with the access unit's index and offset), and
/// ``DecoderError/Code/invalidSession`` when the instance is unusable (the session drains what it
/// can, drops it, and starts a new one at the next keyframe). Pictures appended to `pictures`
/// before the throw are kept.
public protocol DecoderBackend: AnyObject {
    /// Decodes one access unit (its NAL units in order) and appends every picture that is ready,
    /// in output (presentation) order. `tag` comes back with the picture coded in this unit.
    func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError)

    /// Outputs every picture still held for reordering. The session closes the backend after.
    func flush(into pictures: inout [DecodedPicture]) throws(DecoderError)

    /// The library's error messages since the last call (concealed errors that returned no
    /// error code, such as libavcodec's "error while decoding MB 5 1"), oldest first.
    func takeMessages() -> [String]
}

/// Creates backends of one kind; `Sendable` (a value describing how to open decoders), so one
/// can be a global constant or go into a `Task`. The backends it makes stay with one session.
public protocol DecoderBackendFactory: Sendable {
    /// A short name for messages, e.g. `"avcodec"`.
    var name: String { get }

    /// Throws ``DecoderError/Code/unsupported`` when this backend cannot decode `codec`, and
    /// ``DecoderError/Code/libraryUnavailable`` when its library cannot be loaded.
    func validate(codec: Codec) throws(DecoderError)

    /// Opens a new decoder. Throwing ``DecoderError/Code/backendCreationFailed`` makes the
    /// session retry; other codes are final.
    func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend
}

extension DecoderError {
    /// The decoder-side form of an encoder library error (``NALUEncoder/SharedLibrary`` loads
    /// both kinds of library).
    package init(library error: EncoderError) {
        self.init(.libraryUnavailable, field: error.field, detail: error.detail)
    }
}
