/// A contiguous run of input frames, `first ..< first + count` (0-based frame indices): what one
/// chunk of a distributed encode codes.
public struct FrameRange: Hashable, Sendable, CustomStringConvertible {
    /// The index of the first frame.
    public var first: Int64
    /// How many frames.
    public var count: Int64

    public init(first: Int64, count: Int64) {
        self.first = first
        self.count = count
    }

    /// One past the last frame.
    public var end: Int64 { first + count }

    public var description: String { count > 0 ? "frames \(first)–\(end - 1)" : "no frames" }

    /// Chunk `index` (0-based) of `chunks` contiguous ranges over `frames` frames:
    /// `[⌊index·frames/chunks⌋, ⌊(index+1)·frames/chunks⌋)`. The ranges cover every frame once,
    /// in order, and their lengths differ by at most one. Computed in double width, so no
    /// frame count overflows.
    ///
    /// Throws ``EncoderError/Code/invalidConfiguration`` (field `chunk`) when `index` is not below
    /// `chunks`, or when there are fewer frames than chunks (a chunk would be empty).
    public static func chunk(_ index: Int, of chunks: Int, frames: Int64) throws(EncoderError) -> FrameRange {
        guard chunks > 0, index >= 0, index < chunks else {
            throw EncoderError(.invalidConfiguration, field: "chunk", detail: "chunk \(index) of \(chunks): the index must be between 0 and \(max(0, chunks - 1))")
        }
        guard frames >= Int64(chunks) else {
            throw EncoderError(.invalidConfiguration, field: "chunk", detail: "\(chunks) chunks of \(frames) frames: a chunk would be empty")
        }
        let first = boundary(index, of: chunks, frames: frames)
        let end = boundary(index + 1, of: chunks, frames: frames)
        return FrameRange(first: first, count: end - first)
    }

    /// `⌊index·frames/chunks⌋` with a 128-bit product (`0 ≤ index ≤ chunks`, `frames ≥ 0`).
    private static func boundary(_ index: Int, of chunks: Int, frames: Int64) -> Int64 {
        let product = UInt64(frames).multipliedFullWidth(by: UInt64(index))
        // The quotient is at most `frames`, so it fits.
        return Int64(UInt64(chunks).dividingFullWidth(product).quotient)
    }
}
