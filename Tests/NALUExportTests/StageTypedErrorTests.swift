import Foundation
import NALU
import NALUDecoder
import NALUEncoder
import NALUExport
import NALUIO
import NALUMedia
import NALUMP4
import NALUSmartCut
import NALUTestSupport
import NALUX264
import Testing

/// Issue 39 item 6: the export pipeline's stages throw typed errors. Those that can fail in
/// several domains throw ``ExportError`` carrying the stage's cause whole
/// (``ExportError/init(stage:)``): its ``ExportError/stageError`` is the cause as thrown, its
/// description the cause's, and ``FailureKind`` (the CLI's exit status) is the cause's; the
/// stream-only outputs throw ``NALUError``. `let _: T = error` in each `catch` checks the static type.
@Suite("Typed errors of the export stages")
struct StageTypedErrorTests {
    private let input = ExportTestSupport.fixture("trim_avc_bframes_audio.mp4")

    @Test("DecodedVideoInput on a missing file: ExportError carrying the NALUError whole, its kind the cause's")
    func missingInput() throws {
        let missing = ExportTestSupport.fixture("no-such-input.mp4")
        do {
            _ = try DecodedVideoInput(path: missing, factory: ExportSettings().decoder)
            Issue.record("a missing file opened")
        } catch {
            let typed: ExportError = error
            let cause = try #require(typed.stageError as? NALUError)
            #expect(typed.underlying is NALUError)
            #expect(typed.description == cause.description)
            #expect(FailureKind(typed) == FailureKind(cause))
            #expect(FailureKind(typed).exitStatus == FailureKind(cause).exitStatus)
            // Exhaustive over the enum: a stream fault opening the input.
            switch typed.code {
            case .invalidInput, .io, .noInput: break
            case .invalidSettings, .decodeFailed, .picturesLost, .encodeFailed, .tracksNotCarried, .cannotCreate, .resources, .cancelled:
                Issue.record("\(typed.code) for \(cause)")
            }
            // unwrapping rethrows the cause as the stage threw it.
            #expect(throws: NALUError.self) { try ExportError.unwrapping { throw typed } }
        }
    }

    @Test("ExportError(stage:): each cause's code, and FailureKind of the cause where ExportError's own code would differ")
    func stageCodes() {
        let missingLibrary = DecoderError(.libraryUnavailable, field: "libavcodec", detail: "cannot open")
        let wrapped = ExportError(stage: missingLibrary)
        #expect(wrapped.code == .decodeFailed)
        // Classified as the cause (69), not as a decode failure (65): the CLI's exit status is kept.
        #expect(FailureKind(wrapped) == .unavailable && FailureKind(wrapped).exitStatus == 69)
        #expect(FailureKind(ExportError(.decodeFailed, "of its own")) == .data)

        let refused = EncoderError(.invalidConfiguration, field: "preset", detail: "unknown preset")
        #expect(ExportError(stage: refused).code == .invalidSettings)
        #expect(FailureKind(ExportError(stage: refused)).exitStatus == 64)
        #expect(ExportError(stage: NALUError(.io, field: "out.mp4", detail: "No space left on device")).code == .io)
        #expect(ExportError(stage: NALUError(.cannotCreate, field: "out.mp4")).code == .cannotCreate)
        #expect(ExportError(stage: NALUError(.lengthPastEnd, field: "stsz")).code == .invalidInput)

        let cancelled = ExportError(stage: CancellationError())
        #expect(cancelled.code == .cancelled && cancelled.stageError is CancellationError)
        #expect(throws: CancellationError.self) { try ExportError.unwrapping { throw cancelled } }

        // An export error of its own is no stage's: unchanged, and nothing to unwrap.
        let own = ExportError(.invalidSettings, subject: "--scale", "off the chroma grid")
        let same = ExportError(stage: own)
        #expect(same.stageError == nil && same.description == own.description && same.code == own.code)
    }

    @Test("SmartTrimmer.commit: a range past the end is an ExportError carrying the NALUError naming --start; nothing committed")
    func smartCommit() throws {
        let folder = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trimmer = try SmartTrimmer(path: input, decoder: ExportSettings().decoder, encoder: X264BackendFactory())
        let sink = try FileSink(path: folder.appendingPathComponent("cut.mp4").path)
        defer { sink.discard() }
        let late = try MediaTime(parsing: "100")
        do {
            _ = try trimmer.commit(start: late, end: nil, input: input, to: sink, format: .mp4(MP4MuxerOptions()),
                                   audio: true)
            Issue.record("a range after the end was cut")
        } catch {
            let typed: ExportError = error
            let cause = try #require(typed.stageError as? NALUError, "\(typed)")
            #expect(cause.field.hasPrefix("--start"), "\(cause)")
            #expect(typed.code == .invalidInput)
        }
        #expect(ExportTestSupport.contents(folder).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("the stream-only stages throw NALUError: TimedMP4Output's time base, SmartTrimmer's index")
    func streamOnly() throws {
        let source = try MediaSource(path: input)
        do {
            _ = try TimedMP4Output(path: "/nonexistent/out.mp4", codec: .h264, options: MP4MuxerOptions(), source: source,
                                   timeBase: Rational(2, 90_000), keptRange: nil, copyAudio: false)
            Issue.record("a time base of 2/90000 was taken")
        } catch {
            let typed: NALUError = error
            #expect(typed.code == .invalidValue && typed.field == "timeBase")
        }
        let trimmer = try SmartTrimmer(path: input, decoder: ExportSettings().decoder, encoder: X264BackendFactory())
        let late = try MediaTime(parsing: "100")
        do {
            _ = try trimmer.plan(start: late, end: nil)
            Issue.record("a range after the end was planned")
        } catch {
            let typed: NALUError = error
            #expect(typed.field.hasPrefix("--start"), "\(typed)")
        }
    }
}
