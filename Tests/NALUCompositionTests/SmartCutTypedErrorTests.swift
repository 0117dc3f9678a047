import Foundation
import NALU
import NALUAVCodec
import NALUEncoder
import NALUIO
import NALUMedia
import NALUMP4
import NALUSmartCut
import NALUX264
import Testing

/// Issue 39 item 6: the MP4 writers of a cut throw typed errors a caller can switch over
/// exhaustively: ``SmartCutError`` (the stream's, the decoder's, the encoder's error, or a
/// cancellation) for the smart cut, join and cut list; ``NALUError`` for the copying trim and join.
@Suite("Typed errors of the MP4 writers")
struct SmartCutTypedErrorTests {
    private let input = CompositionTestSupport.fixture("trim_avc_bframes_audio.mp4")

    @Test("SmartTrimmer.writeMP4 throws SmartCutError: a range past the input's end is the stream's error; a cancel is .cancelled")
    func smartTrimmer() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trimmer = try SmartTrimmer(path: input, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        let sink = try FileSink(path: folder.appendingPathComponent("cut.mp4").path)
        defer { sink.discard() }
        let late = try MediaTime(parsing: "100")
        do {
            _ = try trimmer.writeMP4(start: late, end: nil, output: sink, options: MP4MuxerOptions())
            Issue.record("a range after the end was cut")
        } catch {
            // `error` is statically a SmartCutError.
            switch error {
            case .stream(let cause): #expect(cause.field.hasPrefix("--start"), "\(cause)")
            case .decoder, .encoder, .cancelled: Issue.record("\(error)")
            }
        }
        trimmer.isCancelled = { true }
        let again = try FileSink(path: folder.appendingPathComponent("cancelled.mp4").path)
        defer { again.discard() }
        let (start, end) = (try MediaTime(parsing: "0.5"), try MediaTime(parsing: "1.5"))
        do {
            _ = try trimmer.writeMP4(start: start, end: end, output: again, options: MP4MuxerOptions())
            Issue.record("a cancelled cut finished")
        } catch {
            guard case .cancelled = error else { Issue.record("\(error)"); return }
            #expect(error.underlying is CancellationError)
        }
        // Nothing was committed.
        #expect(CompositionTestSupport.contents(folder).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("SmartCutList.writeMP4 and CompositionWriter.writeMP4 throw SmartCutError; Trimmer and Concatenator NALUError")
    func otherWriters() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = try SmartCutList(path: input, ranges: SmartCutRange.list(parsing: "0.2-0.6,1-1.4"),
                                    decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        let file = try FileSink(path: folder.appendingPathComponent("kept.mp4").path)
        let report: SmartCutList.Report
        do {
            report = try list.writeMP4(output: file, options: MP4MuxerOptions())
        } catch {
            let typed: SmartCutError = error
            Issue.record("\(typed)")
            return
        }
        try file.commit()
        #expect(report.pictures > 0)

        let trimmer = try Trimmer(path: input)
        let plan = try trimmer.plan(start: MediaTime(parsing: "0.5"), end: MediaTime(parsing: "1"))
        let cut = try FileSink(path: folder.appendingPathComponent("trim.mp4").path)
        defer { cut.discard() }
        do {
            _ = try trimmer.writeMP4(plan, output: cut, options: MP4MuxerOptions())
        } catch {
            let typed: NALUError = error
            Issue.record("\(typed)")
        }
        let joiner = try Concatenator(paths: [input, input])
        let joined = try FileSink(path: folder.appendingPathComponent("joined.mp4").path)
        defer { joined.discard() }
        do {
            _ = try joiner.writeMP4(output: joined, options: MP4MuxerOptions())
        } catch {
            let typed: NALUError = error
            Issue.record("\(typed)")
        }
    }

    @Test("SmartTrimmer and SmartCutList re-encode with the same default preset: nil, which x264 codes with medium's settings, not veryfast's")
    func presetDefaults() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = try SmartCutList(path: input, ranges: SmartCutRange.list(parsing: "0.5-1.5"), decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        let probe = try SmartTrimmer(path: input, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        #expect(list.preset == nil && probe.preset == nil)
        /// The settings x264 wrote in its SEI (`options: cabac=1 ref=3 …`), the thread counts
        /// left out (they follow the machine's load, not the preset).
        func settings(_ preset: String?) throws -> [String] {
            let trimmer = try SmartTrimmer(path: input, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
            trimmer.preset = preset
            let path = folder.appendingPathComponent("cut-\(preset ?? "default").h264").path
            let file = try FileSink(path: path)
            _ = try trimmer.writeAnnexB(start: MediaTime(parsing: "0.5"), end: MediaTime(parsing: "1.5"), output: file)
            try file.commit()
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            guard let start = text.range(of: "options: ") else { return [] }
            let line = text[start.upperBound...].prefix { $0 != "\0" }
            return line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("threads=") && !$0.hasPrefix("lookahead_threads=") }
        }
        let byDefault = try settings(nil)
        #expect(byDefault.contains("subme=7") && byDefault.contains("ref=3"), "\(byDefault)")
        #expect(byDefault == (try settings(EncoderConfiguration.defaultPreset)))
        #expect(byDefault != (try settings("veryfast")))
    }
}

/// Issue 39 item 6, the other writers: Annex-B, length-prefixed and MPEG-TS outputs throw the
/// same typed errors as the MP4 writers, and a join stopped by `isCancelled` is `.cancelled`.
@Suite("Typed errors of the elementary and MPEG-TS writers")
struct ElementaryWriterTypedErrorTests {
    private let input = CompositionTestSupport.fixture("trim_avc_bframes_audio.mp4")

    /// `error`'s static type is `SmartCutError`: a range after the end is the stream's error naming `--start`.
    private func expectLateStart(_ error: SmartCutError, _ writer: String) {
        switch error {
        case .stream(let cause): #expect(cause.field.hasPrefix("--start"), "\(writer): \(cause)")
        case .decoder, .encoder, .cancelled: Issue.record("\(writer): \(error)")
        }
    }

    @Test("SmartTrimmer's Annex-B, length-prefixed and MPEG-TS writers throw SmartCutError naming --start for a range after the end")
    func smartTrimmerOutputs() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trimmer = try SmartTrimmer(path: input, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        let late = try MediaTime(parsing: "100")
        let sink = try FileSink(path: folder.appendingPathComponent("cut.bin").path)
        defer { sink.discard() }
        do { _ = try trimmer.writeAnnexB(start: late, end: nil, output: sink); Issue.record("Annex-B past the end") } catch { expectLateStart(error, "Annex-B") }
        do { _ = try trimmer.writeLengthPrefixed(start: late, end: nil, output: sink); Issue.record("length-prefixed past the end") } catch {
            expectLateStart(error, "length-prefixed")
        }
        do { _ = try trimmer.writeTransportStream(start: late, end: nil, output: sink, options: .init()); Issue.record("MPEG-TS past the end") } catch {
            expectLateStart(error, "MPEG-TS")
        }
    }

    @Test("Trimmer's and Concatenator's Annex-B, length-prefixed and MPEG-TS writers throw NALUError; the outputs are written")
    func copyingWriters() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trimmer = try Trimmer(path: input)
        let plan = try trimmer.plan(start: MediaTime(parsing: "0.5"), end: MediaTime(parsing: "1"))
        let joiner = try Concatenator(paths: [input, input])
        var sizes: [Int64] = []
        let sinks = try (0..<6).map { try FileSink(path: folder.appendingPathComponent("out-\($0)").path) }
        defer { for sink in sinks { sink.discard() } }
        // Each `catch` binds `error` statically as a NALUError.
        do { _ = try trimmer.writeAnnexB(plan, output: sinks[0]) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        do { _ = try trimmer.writeLengthPrefixed(plan, output: sinks[1]) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        do { _ = try trimmer.writeTransportStream(plan, output: sinks[2], options: .init()) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        do { _ = try joiner.writeAnnexB(output: sinks[3]) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        do { _ = try joiner.writeLengthPrefixed(output: sinks[4]) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        do { _ = try joiner.writeTransportStream(output: sinks[5], options: .init()) } catch { let typed: NALUError = error; Issue.record("\(typed)") }
        sizes = sinks.map(\.bytesWritten)
        #expect(sizes.allSatisfy { $0 > 1000 }, "\(sizes)")
    }

    @Test("A join stopped by CompositionWriter.isCancelled after every piece was cut is .cancelled (MP4 and Annex-B), not the join's I/O error")
    func cancelledJoin() throws {
        let folder = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in ["mp4", "h264"] {
            let composition = try Composition(path: input, ranges: SmartCutRange.list(parsing: "0.2-0.6,1-1.4"))
            let writer = try CompositionWriter(composition, decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
            let planned = try writer.plannedPictures()
            #expect(planned > 10, "\(format): \(planned) pictures planned")
            let written = PictureCount()
            writer.pictureWritten = { written.add() }
            // Cancelled once every piece's pictures are written: only the join sees it.
            writer.isCancelled = { written.value >= planned }
            let sink = try FileSink(path: folder.appendingPathComponent("joined.\(format)").path)
            defer { sink.discard() }
            do {
                _ = format == "mp4" ? try writer.writeMP4(output: sink, options: MP4MuxerOptions()) : try writer.writeAnnexB(output: sink)
                Issue.record("\(format): a cancelled join finished")
            } catch {
                guard case .cancelled = error else { Issue.record("\(format): \(error)"); continue }
            }
            #expect(written.value == planned, "\(format): \(written.value) of \(planned) pictures written before the join")
        }
    }
}

/// A picture counter the writer's callbacks share.
private final class PictureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
