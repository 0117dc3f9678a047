import NALU
import NALUMP4
public import NALUDecoder
import NALUIO
import NALUMedia

/// Still images of a video at given times: the `AVAssetImageGenerator` of nalu, with zero
/// tolerance (the picture shown at that instant, never a nearby keyframe).
///
/// ``image(at:)`` finds the picture a player shows at a time on the input's presentation
/// timeline (``NALUMedia/PresentationTimeline``: edit lists applied, zero at the earliest
/// track's start, as `ffmpeg -ss` counts), decodes from the keyframe before it to it, and
/// returns it as RGB at its display size: the width times the sample aspect ratio (an MP4
/// `pasp` box, ISO/IEC 14496-12 12.1.4, else the SPS VUI's, H.264/H.265 E.2.1), turned as the
/// track's display matrix says (`tkhd.matrix`, 8.3.2: a multiple of 90°).
///
/// ```swift
/// let generator = try ImageGenerator(path: "in.mp4")
/// let image = try generator.image(at: 2.5)
/// try image.writePNG(to: "frame.png")
/// ```
///
/// The input is read twice (once to index its pictures, once to decode): a file, not a pipe.
/// Memory: the index (40 bytes per access unit) and the decoder's pictures.
public final class ImageGenerator {
    /// The input's path.
    public let path: String
    private let factory: any DecoderBackendFactory
    private let index: TrimIndex
    /// The display matrix's rotation (counter-clockwise degrees, ffprobe's sign), if any.
    public let rotation: Int?
    /// The MP4 `pasp` box's ratio, which overrides the SPS's.
    private let containerAspectRatio: Rational?

    /// Opens and indexes `path`.
    /// - Throws: ``ExportError`` `.noInput` when it cannot be opened, `.invalidInput` when it
    ///   cannot be read or its display matrix is no rotation by a multiple of 90°.
    public init(path: String, decoder factory: any DecoderBackendFactory = ExportDefaults.decoder) throws(ExportError) {
        self.path = path
        self.factory = factory
        let source: MediaSource
        do {
            source = try MediaSource(path: path)
        } catch {
            throw ExportError(.noInput, subject: path, "\(error)", underlying: error)
        }
        do {
            index = try TrimIndex(source: source)
            let metadata = try source.movieMetadata()
            rotation = metadata?.video.rotation
            if let matrix = metadata?.video.matrix, rotation == nil, matrix != MP4TrackMetadata.unityMatrix {
                throw ExportError(.invalidInput, subject: path, "the display matrix \(matrix) is no rotation by a multiple of 90°")
            }
            containerAspectRatio = source.mp4?.track.sampleDescription.pixelAspectRatio.flatMap {
                $0.hSpacing > 0 && $0.vSpacing > 0 ? Rational(Int64($0.hSpacing), Int64($0.vSpacing)) : nil
            }
        } catch let error as ExportError {
            throw error
        } catch {
            throw ExportError(.invalidInput, subject: path, "\(error)", underlying: error)
        }
    }

    /// The input's duration on its presentation timeline: where its last picture stops showing.
    public var duration: Double {
        Double(CheckedNumber.sum(index.timelineStart, index.endTime) ?? Int64.max) * index.timeBase.doubleValue
    }

    /// The picture shown at `seconds` on the input's presentation timeline, as RGB at its
    /// display size, rotated upright. A time before the first picture gives the first picture.
    /// - Throws: ``ExportError`` `.invalidSettings` naming `time` for a time that is not finite,
    ///   negative, or at or past ``duration``; `.decodeFailed` when the picture cannot be decoded.
    public func image(at seconds: Double) throws(ExportError) -> RGBImage {
        let frame = try decodedFrame(at: seconds)
        do {
            var image = try RGBImage(frame)
            if let ratio = containerAspectRatio ?? frame.sampleAspectRatio, ratio.numerator > 0, ratio.denominator > 0,
               ratio.numerator != ratio.denominator {
                let width = (Double(image.width) * Double(ratio.numerator) / Double(ratio.denominator)).rounded()
                image = try image.resized(width: CheckedNumber.int(width) ?? 0, height: image.height)
            }
            if let rotation { image = try image.rotated(counterClockwise: rotation) }
            return image
        } catch {
            throw ExportError(.decodeFailed, subject: path, "\(error)", underlying: error)
        }
    }

    /// The decoded picture shown at `seconds` (``image(at:)`` before conversion).
    public func decodedFrame(at seconds: Double) throws(ExportError) -> DecodedFrame {
        let target = try pictureIndex(at: seconds)
        // Decode from the keyframe before the picture; should that give no such picture (an
        // open GOP's leading picture needs the GOP before), from the keyframe before that, then
        // from the start.
        var starts = index.entries[...target].indices.reversed().filter { index.entries[$0].keyframe != nil }.prefix(2).map { $0 }
        starts.append(0)
        for start in starts {
            if let frame = try decode(picture: target, from: start) { return frame }
        }
        throw ExportError(.decodeFailed, subject: path, "access unit \(target) gave no picture")
    }

    /// The decoding-order index of the access unit whose picture shows at `seconds`.
    func pictureIndex(at seconds: Double) throws(ExportError) -> Int {
        guard seconds.isFinite, seconds >= 0, seconds < duration else {
            throw ExportError(.invalidSettings, subject: "time", "\(seconds) s is outside the input's 0…\(duration) s")
        }
        // Seconds to ticks of the index (rounded to the nearest microsecond first, so 1.0 is
        // exactly the picture that starts at 1 s).
        let base = index.timeBase
        let micro = (seconds * 1_000_000).rounded()
        guard let microseconds = CheckedNumber.int64(micro),
              let scaled = CheckedNumber.product(microseconds, base.denominator),
              let divisor = CheckedNumber.product(1_000_000, base.numerator), divisor > 0,
              let time = CheckedNumber.sum(scaled / divisor, 0 &- index.timelineStart) else {
            throw ExportError(.invalidSettings, subject: "time", "\(seconds) s cannot be counted in ticks of \(base) s")
        }
        var best: (time: Int64, index: Int)?
        var first: (time: Int64, index: Int)?
        for (position, entry) in index.entries.enumerated() {
            guard let presented = entry.presentationTime, presented >= 0 else { continue }
            if first == nil || presented < first!.time { first = (presented, position) }
            if presented <= time, best == nil || presented > best!.time { best = (presented, position) }
        }
        guard let chosen = best ?? first else {
            throw ExportError(.invalidInput, subject: path, "no picture is presented")
        }
        return chosen.index
    }

    /// Decodes from access unit `start` until the picture of access unit `picture` comes out.
    private func decode(picture: Int, from start: Int) throws(ExportError) -> DecodedFrame? {
        do {
            let source = try MediaSource(path: path)
            let decoder = try InputDecoder(path: path, source: source, factory: factory)
            decoder.firstSample = start
            var found: DecodedFrame?
            do {
                try decoder.run(problem: { _ in }) { frame in
                    guard frame.accessUnitIndex == picture else { return true }
                    found = frame
                    throw Found()  // ends the read here, not at the end of the file
                }
            } catch is Found {}
            return found
        } catch let error as ExportError {
            throw error
        } catch {
            throw ExportError(.decodeFailed, subject: path, "\(error)", underlying: error)
        }
    }
}

/// Thrown by ``ImageGenerator``'s frame handler once the picture is decoded: the decoder's read
/// stops there.
private struct Found: Error {}

extension RGBImage {
    /// Writes the image as a PNG file (``NALUDecoder/PNGEncoder``) through the output rules of
    /// every file nalu writes (``NALUIO/OutputTarget``: a temporary name, renamed into place
    /// when complete; removed on failure or a signal).
    /// - Throws: ``ExportError`` `.cannotCreate` when the file cannot be created, `.io` when
    ///   writing fails.
    public func writePNG(to path: String) throws(ExportError) {
        let sink: FileSink
        do {
            sink = try FileSink(path: path)
        } catch {
            throw ExportError(.cannotCreate, subject: path, "\(error)", underlying: error)
        }
        do {
            try sink.write(pngData)
            try sink.commit()
        } catch {
            sink.discard()
            throw ExportError(.io, subject: path, "\(error)", underlying: error)
        }
    }
}
