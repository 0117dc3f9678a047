/// Changes made to a running encode at chosen frames (issue 14): bitrate changes and forced
/// IDR pictures, made through ``EncoderSession``'s live API (``EncoderSession/setBitrate(_:)``,
/// ``EncoderSession/requestKeyframe()``), each remembered with how it was made.
public struct EncoderLiveChanges: Sendable {
    /// One change made.
    public struct Applied: Sendable, Hashable {
        /// The frame (from 0) the change was made before.
        public var frame: Int64
        /// The new average bitrate, or `nil` for a forced IDR.
        public var bitsPerSecond: Int?
        /// Whether the running encoder took the change (a forced IDR always does); `false`: the
        /// encoder was rebuilt there.
        public var live: Bool
    }

    private var bitrates: [Int64: Int]
    private var keyframes: Set<Int64>
    /// The changes made so far, in order.
    public private(set) var applied: [Applied] = []

    /// - Parameters:
    ///   - bitrates: the average bitrate (bit/s) to set before each frame.
    ///   - keyframes: the frames coded as IDR pictures.
    public init(bitrates: [Int64: Int] = [:], keyframes: Set<Int64> = []) {
        self.bitrates = bitrates
        self.keyframes = keyframes
    }

    /// Makes the changes due before frame `index`.
    /// - Throws: ``EncoderError`` (typed): ``EncoderSession/setBitrate(_:)``'s.
    public mutating func beforeFrame(_ index: Int64, session: EncoderSession) throws(EncoderError) {
        if let rate = bitrates[index] {
            let live = try session.setBitrate(rate)
            applied.append(Applied(frame: index, bitsPerSecond: rate, live: live))
        }
        if keyframes.contains(index) {
            session.requestKeyframe()
            applied.append(Applied(frame: index, bitsPerSecond: nil, live: true))
        }
    }

    /// The frames of changes the input did not reach (`frames` were encoded), in order:
    /// nothing asked for is dropped unsaid.
    public func unreached(frames: Int64) -> (bitrates: [Int64], keyframes: [Int64]) {
        (bitrates.keys.filter { $0 >= frames }.sorted(), keyframes.filter { $0 >= frames }.sorted())
    }
}

extension EncoderLiveChanges {
    /// A bitrate change `FRAME:RATE` (`--bitrate-at 120:400k`): the frame (from 0) and the rate as
    /// ``BitRateText`` reads it; `nil` for anything else.
    public static func bitrateChange(parsing text: String) -> (frame: Int, bitsPerSecond: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let frame = Int(parts[0]), frame >= 0, let rate = BitRateText.bitsPerSecond(String(parts[1])) else { return nil }
        return (frame, rate)
    }

    /// Frames `FRAME[,FRAME…]` (`--idr-at 60,120`), each from 0; `nil` for anything else or none.
    public static func frames(parsing text: String) -> [Int]? {
        var frames: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let frame = Int(part), frame >= 0 else { return nil }
            frames.append(frame)
        }
        return frames.isEmpty ? nil : frames
    }
}
