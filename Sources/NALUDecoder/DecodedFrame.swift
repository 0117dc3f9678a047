public import NALU
public import NALUEncoder

/// How a decoded picture's samples are to be read (H.264 / H.265 VUI, E.2.1): the ISO/IEC 23091-2
/// code points and the range, from the sequence parameter set the picture was decoded with;
/// `nil` where the SPS does not say.
public struct ColourDescription: Sendable, Hashable {
    /// `colour_primaries` (1 BT.709, 9 BT.2020…).
    public var primaries: Int?
    /// `transfer_characteristics` (1 BT.709, 16 PQ, 18 HLG…).
    public var transfer: Int?
    /// `matrix_coefficients` (1 BT.709, 9 BT.2020 non-constant…).
    public var matrix: Int?
    /// `video_full_range_flag`: `true` full range (0…255), `false` limited (16…235).
    public var fullRange: Bool?

    public init(primaries: Int? = nil, transfer: Int? = nil, matrix: Int? = nil, fullRange: Bool? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}

/// The pixels of one decoded picture, shared read-only: written once by the backend, never after,
/// so they may cross threads.
final class DecodedPixels: @unchecked Sendable {
    let buffer: FrameBuffer
    init(_ buffer: FrameBuffer) { self.buffer = buffer }
}

/// One decoded picture: planes, timing and what the stream says about it.
///
/// The planes are tightly packed in a ``NALUEncoder/PixelFormat`` layout (`yuv420p`, `yuv422p`,
/// `yuv444p` and their 10-bit forms, 16-bit little-endian samples), as ffmpeg's `rawvideo`
/// writes them; ``frame`` hands them to ``NALUEncoder/EncoderSession/encode(_:_:)`` without a copy.
/// A value type whose pixels are immutable and shared, so it is `Sendable`.
public struct DecodedFrame: Sendable {
    var pixels: DecodedPixels
    /// Presentation timestamp: the access unit's (an MP4 composition time, a TS PTS), or for raw
    /// streams the frame's index in presentation order.
    public var pts: Int64
    /// Decoding-order index of the access unit the picture was coded in.
    public var accessUnitIndex: Int
    /// The picture's coding type from its slice headers.
    public var pictureType: PictureType?
    /// Whether decoding can start at this picture (IDR, CRA, BLA, recovery point).
    public var isKeyframe: Bool
    /// Colour description and range from the SPS VUI.
    public var colour: ColourDescription
    /// Sample aspect ratio from the SPS VUI (`nil`: unspecified).
    public var sampleAspectRatio: Rational?
    /// `chroma_sample_loc_type_top_field` from the SPS VUI (H.264/H.265 E.2.1, Figure E-1), `nil`
    /// when absent (the specs then mean 0: chroma co-sited with the left luma column).
    public var chromaSampleLocation: Int?

    init(pixels: DecodedPixels, pts: Int64, accessUnitIndex: Int, pictureType: PictureType?, isKeyframe: Bool,
         colour: ColourDescription, sampleAspectRatio: Rational?, chromaSampleLocation: Int?) {
        self.pixels = pixels
        self.pts = pts
        self.accessUnitIndex = accessUnitIndex
        self.pictureType = pictureType
        self.isKeyframe = isKeyframe
        self.colour = colour
        self.sampleAspectRatio = sampleAspectRatio
        self.chromaSampleLocation = chromaSampleLocation
    }

    /// The sample layout (chroma subsampling, 8 or 10 bits).
    public var pixelFormat: PixelFormat { pixels.buffer.pixelFormat }
    /// Width and height after cropping (the conformance window).
    public var width: Int { pixels.buffer.width }
    public var height: Int { pixels.buffer.height }
    /// Number of planes (3).
    public var planeCount: Int { pixelFormat.planeCount }

    /// Bytes per row of `plane` (0 Y, 1 U, 2 V): no padding.
    public func bytesPerRow(plane: Int) -> Int { pixelFormat.rowBytes(plane: plane, width: width) }
    /// Rows of `plane`.
    public func rows(plane: Int) -> Int { pixelFormat.rows(plane: plane, height: height) }

    /// Calls `body` with the bytes of `plane` (0…2), rows tightly packed.
    /// - Throws: what `body` throws (typed: `Failure`).
    public func withPlane<Result, Failure: Error>(_ plane: Int, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(pixels.buffer.planeBytes(plane)))
    }

    /// Calls `body` with the whole picture, Y then U then V, as ffmpeg's `rawvideo` lays it out.
    /// - Throws: what `body` throws (typed: `Failure`).
    public func withBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(pixels.buffer.bytes))
    }

    /// A copy of `plane`'s bytes.
    public func planeBytes(_ plane: Int) -> [UInt8] { withPlane(plane) { Array($0) } }

    /// The picture as an encoder's input, with no copy: the ``NALUEncoder/Frame`` keeps the
    /// pixels alive. `pts` is ``pts`` unless given.
    public func frame(pts: Int64? = nil) -> Frame {
        pixels.buffer.retainingFrame(pts: pts ?? self.pts)
    }
}

extension Frame {
    /// A decoded picture as an encoder's input, without converting or copying when its format is
    /// the encoder's (``DecodedFrame/frame(pts:)``).
    public init(_ decoded: DecodedFrame) {
        self = decoded.frame()
    }
}
