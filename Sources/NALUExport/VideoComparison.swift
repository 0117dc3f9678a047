import NALU
public import NALUDecoder
public import NALUEncoder
public import NALUMedia

/// Frames of one input of a comparison (`nalu compare`) in presentation order: a Y4M file read
/// directly, or any compressed input decoded on a thread of its own (``BackgroundDecoder``, so
/// two inputs go in step with bounded memory).
public final class ComparisonInput {
    private enum Kind {
        case y4m(Y4MReader<FrameFileSource>)
        case decoded(BackgroundDecoder)
    }

    /// The input's path.
    public let path: String
    private var kind: Kind

    /// Opens `path`: read as Y4M when named `.y4m`, else decoded by `factory`'s library.
    public init(path: String, factory: any DecoderBackendFactory, options: MediaSourceOptions = MediaSourceOptions(),
                warning: @escaping @Sendable (String) -> Void = { _ in }) throws(ExportError) {
        do {
            self.path = path
            if path.lowercased().hasSuffix(".y4m") {
                kind = .y4m(try Y4MReader(FrameFileSource(path: path)))
            } else {
                kind = .decoded(try BackgroundDecoder(path: path, factory: factory, options: options, warning: warning))
            }
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// The next frame, valid until the next call; `nil` at the end. A decoder's failure is an
    /// ``ExportError/Code/decodeFailed`` naming the path, the ``NALUDecoder/DecoderError`` as
    /// ``ExportError/underlying``.
    /// - Throws: ``ExportError`` (a decoder's failure as above; reading a Y4M file's error carried whole,
    ///   ``ExportError/init(stage:)``).
    public func next() throws(ExportError) -> Frame? {
        do {
            switch kind {
            case .y4m(var reader):
                let frame = try reader.nextFrame()
                kind = .y4m(reader)
                return frame
            case .decoded(let decoded):
                do {
                    return try decoded.next()?.frame()
                } catch {
                    guard let decoderError = error.stageError as? DecoderError else { throw error }
                    throw ExportError(.decodeFailed, subject: path, decoderError.description, underlying: decoderError)
                }
            }
        } catch {
            throw ExportError(stage: error)
        }
    }

    /// After ``next()`` returned `nil`: what the decoder could not decode; `nil` when nothing
    /// was lost, for Y4M input, or before the end.
    public var loss: ExportError? {
        if case .decoded(let decoded) = kind { return decoded.loss }
        return nil
    }

    /// Stops a decoding thread early (the comparison ended).
    public func cancel() {
        if case .decoded(let decoded) = kind { decoded.cancel() }
    }
}

/// PSNR and SSIM of a distorted video against its reference (`nalu compare`, issue 33): frames
/// matched in presentation order, as ffmpeg's `psnr` and `ssim` filters measure them.
public struct VideoComparison: Sendable {
    /// The figures over every frame compared.
    public private(set) var total = SequenceDistortion()
    /// The frames compared.
    public private(set) var frames = 0
    /// Which input ended first (both when they have the same frame count).
    public private(set) var referenceEnded = false
    /// Whether the distorted input ended (see ``referenceEnded``).
    public private(set) var distortedEnded = false

    /// Compares `reference` and `distorted` frame by frame until either ends, giving each
    /// frame's figures (index from 0) to `perFrame`. The inputs' decoders are left to the
    /// caller to cancel (``ComparisonInput/cancel()``) once it has read their ``ComparisonInput/loss``.
    ///
    /// - Throws: ``ExportError/Code/invalidInput`` when a frame's size or format differs from
    ///   the reference's, for semi-planar frames, or when there is no frame to compare (then a
    ///   decoder's loss first).
    ///   Untyped (`any Error`): what `perFrame` throws passes through as thrown, beside the
    ///   inputs' ``ExportError``s.
    public init(reference: ComparisonInput, distorted: ComparisonInput, perFrame: (Int, PictureDistortion) throws -> Void) throws {
        while true {
            let a = try reference.next()
            let b = try distorted.next()
            guard let a, let b else {
                referenceEnded = a == nil
                distortedEnded = b == nil
                break
            }
            guard a.pixelFormat == b.pixelFormat, a.width == b.width, a.height == b.height else {
                throw ExportError(.invalidInput, subject: distorted.path,
                                  "frame \(frames) is \(b.width)x\(b.height) \(b.pixelFormat.ffmpegName), the reference's \(a.width)x\(a.height) \(a.pixelFormat.ffmpegName)")
            }
            guard !a.pixelFormat.isSemiPlanar else {
                throw ExportError(.invalidInput, subject: reference.path, "semi-planar \(a.pixelFormat.ffmpegName) is not compared")
            }
            let picture = a.withPlaneSamples { refPlanes in
                b.withPlaneSamples { distPlanes in PictureDistortion(reference: refPlanes, distorted: distPlanes) }
            }
            total.add(picture)
            try perFrame(frames, picture)
            frames += 1
        }
        guard frames > 0 else {
            // Nothing compared: no PSNR to report (an infinite one would say "identical").
            if let loss = reference.loss ?? distorted.loss { throw loss }
            throw ExportError(.invalidInput, subject: referenceEnded ? reference.path : distorted.path, "no frame to compare: it has none")
        }
    }
}

extension VideoComparison {
    /// Six decimals (PSNR in dB, SSIM 0…1), `inf` for an infinite PSNR (identical planes).
    public static func text(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : "inf" }
        var text = String(Double(Int64((value * 1_000_000).rounded())) / 1_000_000)
        if !text.contains(".") { text += ".0" }
        return text
    }

    /// ``text(_:)`` as a number, or `null` for an infinite PSNR.
    public static func number(_ value: Double) -> ReportValue { value.isFinite ? .decimal(text(value)) : .null }

    /// One frame's figures (`n` from 1): `psnr` {y, u, v, average}, `ssim` {y, all, db}.
    public static func fields(frame index: Int, _ picture: PictureDistortion) -> ReportValue {
        .object([
            ("n", .int(Int64(index + 1))),
            ("psnr", .object([("y", number(picture.psnr(0))), ("u", number(picture.psnr(1))), ("v", number(picture.psnr(2))),
                              ("average", number(picture.psnrAverage))])),
            ("ssim", .object([("y", number(picture.ssim[0])), ("all", number(picture.ssimAll)),
                              ("db", number(PictureDistortion.decibels(ssim: picture.ssimAll)))])),
        ])
    }

    /// One frame's figures in a line: `n:1 psnr y:… u:… v:… average:… ssim y:… all:… (… dB)`.
    public static func line(frame index: Int, _ picture: PictureDistortion) -> String {
        "n:\(index + 1) psnr y:\(text(picture.psnr(0))) u:\(text(picture.psnr(1))) v:\(text(picture.psnr(2))) average:\(text(picture.psnrAverage)) ssim y:\(text(picture.ssim[0])) all:\(text(picture.ssimAll)) (\(text(PictureDistortion.decibels(ssim: picture.ssimAll))))"
    }

    /// The overall figures: `psnr` {y, u, v, average, global}, `ssim` {y, all, db}.
    public var fields: [(String, ReportValue)] {
        [("psnr", .object([("y", Self.number(total.psnr(0))), ("u", Self.number(total.psnr(1))), ("v", Self.number(total.psnr(2))),
                           ("average", Self.number(total.psnrAverage)), ("global", Self.number(total.psnrGlobal))])),
         ("ssim", .object([("y", Self.number(total.ssim(0))), ("all", Self.number(total.ssimAll)), ("db", Self.number(total.ssimDecibels))]))]
    }

    /// The overall figures in lines: `PSNR y:… global:…`, `SSIM Y:… All:… (…)`, `frames: N`.
    public var lines: [String] {
        ["PSNR y:\(Self.text(total.psnr(0))) u:\(Self.text(total.psnr(1))) v:\(Self.text(total.psnr(2))) average:\(Self.text(total.psnrAverage)) global:\(Self.text(total.psnrGlobal))",
         "SSIM Y:\(Self.text(total.ssim(0))) All:\(Self.text(total.ssimAll)) (\(Self.text(total.ssimDecibels)))",
         "frames: \(frames)"]
    }
}
