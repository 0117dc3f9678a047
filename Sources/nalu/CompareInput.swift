import ArgumentParser
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport
import NALUMedia

/// Frames of one `nalu compare` (or `nalu encode`) input in presentation order: a Y4M file read
/// directly, or any compressed input decoded on a thread of its own
/// (``NALUExport/BackgroundDecoder``, so two inputs go in step with bounded memory).
final class CompareInput {
    private enum Kind {
        case y4m(Y4MReader<EncodeSource>)
        case decoded(BackgroundDecoder)
    }

    let path: String
    private var kind: Kind

    init(path: String, decoder: DecoderName, options: MediaSourceOptions) throws {
        self.path = path
        if path.lowercased().hasSuffix(".y4m") {
            kind = .y4m(try Y4MReader(EncodeSource(path: path)))
            return
        }
        do {
            kind = .decoded(try BackgroundDecoder(path: path, factory: decoder.factory, options: options, warning: Diagnostics.libraryWarning))
        } catch let error as DecoderError {
            throw error.cliError(input: path)
        } catch let error as NALUError where error.code == .invalidValue && error.field.hasPrefix("--") {
            throw ValidationError("\(error.field): \(error.detail ?? "does not apply to this input")")
        }
    }

    /// The next frame, valid until the next call; `nil` at the end.
    func next() throws -> Frame? {
        switch kind {
        case .y4m(var reader):
            let frame = try reader.nextFrame()
            kind = .y4m(reader)
            return frame
        case .decoded(let decoded):
            do {
                return try decoded.next()?.frame()
            } catch let error as DecoderError {
                throw error.cliError(input: path)
            }
        }
    }

    /// After ``next()`` returned `nil`: what the decoder could not decode, as the error to end
    /// with once the output is complete; `nil` when nothing was lost, for Y4M input, or before
    /// the end.
    var loss: ExportError? {
        if case .decoded(let decoded) = kind { return decoded.loss }
        return nil
    }

    /// Stops a decoding thread early (the comparison ended).
    func cancel() {
        if case .decoded(let decoded) = kind { decoded.cancel() }
    }
}
