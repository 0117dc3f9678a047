import Foundation
import Testing
import NALU
import NALUMP4
import NALUMedia

/// Runs every input-reading subcommand on every file of `Tests/Fixtures/malformed/` (made by
/// `Scripts/make-malformed.sh`) and requires, for each run:
/// - an exit, never a signal; status 0, or 65 (malformed input) with exactly one line `nalu: error: …` on stderr;
/// - output files complete or absent: after a failure neither the output nor its temporary file
///   (`.out.<random>.nalu-tmp`) exists; after a success the output is exactly what the library
///   produces for the same input in memory (convert), or a record that parses (extradata).
/// Length-prefixed files (`.lp`) get `--length-size 4` (`--input-length-size 4` for
/// `convert --to avcc|mp4`), so they reach the length-prefixed reader rather than format
/// detection; `.mp4`/`.mov` files are read as MP4 (by their extension). Transport streams
/// (`.ts`/`.m2ts`) may print `nalu: warning:` lines (damage stepped over) before the error line.
@Suite struct MalformedCorpusTests {
    static let directory = CLIRunner.fixtures.appendingPathComponent("malformed")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    enum Subcommand: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case info, nals, keyframes, convertToAVCC, convertToAnnexB, convertToMP4, extradata
        var testDescription: String { rawValue }
    }

    @Test func corpusCoversEveryKindOfDamage() {
        #expect(Self.files.count >= 400)
        for prefix in ["truncated-", "lp-truncated-", "bitflip-", "forbidden-", "lp-length-", "expgolomb-", "ids-",
                       "empty", "startcodes-", "random-", "truncated-mp4_", "truncated-mov_", "mp4-", "ts-", "m2ts-"] {
            #expect(Self.files.contains { $0.hasPrefix(prefix) }, "no \(prefix) files")
        }
    }

    @Test(arguments: Subcommand.allCases)
    func failsCleanlyOnEveryFile(_ subcommand: Subcommand) throws {
        let failures = Locked<[String]>([])
        let statuses = Locked<[Int32: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: Self.files.count) { index in
            let name = Self.files[index]
            do {
                let (status, problems) = try Self.check(subcommand, name)
                statuses.update { $0[status, default: 0] += 1 }
                if !problems.isEmpty { failures.update { $0.append("\(name): " + problems.joined(separator: "; ")) } }
            } catch {
                failures.update { $0.append("\(name): \(error)") }
            }
        }
        #expect(failures.value.sorted() == [])
        // Both outcomes occur: the corpus holds valid inputs as well as broken ones.
        #expect(statuses.value[65, default: 0] > 0)
        #expect(statuses.value[0, default: 0] > 0)
        #expect(statuses.value.keys.allSatisfy { $0 == 0 || $0 == 65 })
    }

    /// Runs one subcommand on one file and returns its exit status and every broken rule.
    static func check(_ subcommand: Subcommand, _ name: String) throws -> (Int32, [String]) {
        let input = directory.appendingPathComponent(name).path
        let lengthPrefixed = name.hasSuffix(".lp")
        let container = name.hasSuffix(".mp4") || name.hasSuffix(".mov")
        let transport = name.hasSuffix(".ts") || name.hasSuffix(".m2ts")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-malformed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("out").path

        var arguments: [String]
        switch subcommand {
        case .info, .nals, .keyframes:
            arguments = [subcommand.rawValue, input] + (lengthPrefixed ? ["--length-size", "4"] : [])
        case .extradata:
            arguments = ["extradata", input, "-o", output] + (lengthPrefixed ? ["--length-size", "4"] : [])
        case .convertToAVCC:
            arguments = ["convert", input, "--no-audio", "--no-other-tracks", "--to", "avcc", "-o", output, "--extradata-out", scratch.appendingPathComponent("record").path]
                + (lengthPrefixed ? ["--input-length-size", "4"] : [])
        case .convertToAnnexB:
            arguments = ["convert", input, "--no-audio", "--no-other-tracks", "--to", "annexb", "-o", output] + (lengthPrefixed ? ["--length-size", "4"] : [])
        case .convertToMP4:
            arguments = ["convert", input, "--no-audio", "--no-other-tracks", "--to", "mp4", "-o", output] + (lengthPrefixed ? ["--input-length-size", "4"] : [])
        }
        let result = try CLIRunner.run(arguments)
        var problems: [String] = []
        if result.signalled {
            problems.append("killed by signal \(result.status)")
            return (result.status, problems)
        }
        let leftovers = (try FileManager.default.contentsOfDirectory(atPath: scratch.path)).filter { $0 != "out" && $0 != "record" }
        if !leftovers.isEmpty { problems.append("left \(leftovers)") }
        let outputExists = FileManager.default.fileExists(atPath: output)
        switch result.status {
        case 0:
            if subcommand == .extradata {
                if !outputExists { problems.append("success without an output file") }
                else if (try? DecoderConfigurationRecord(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: output))))) == nil {
                    problems.append("extradata output is not a record")
                }
            }
            if subcommand == .convertToAVCC || subcommand == .convertToAnnexB || subcommand == .convertToMP4 {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
                let expected = container ? try? libraryConversion(mp4: bytes, to: subcommand)
                    : transport ? try? libraryConversion(transportStream: input, to: subcommand)
                    : try? libraryConversion(bytes, to: subcommand, lengthPrefixed: lengthPrefixed)
                let written = outputExists ? Array(try Data(contentsOf: URL(fileURLWithPath: output))) : nil
                if written == nil { problems.append("success without an output file") }
                else if expected == nil { problems.append("the CLI succeeded where the library fails") }
                else if written != expected { problems.append("output of \(written?.count ?? 0) bytes, the library makes \(expected?.count ?? 0)") }
            }
        case 65:
            // A transport stream's warnings (and the note on tracks not carried) come first.
            let stderr = transport ? result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("nalu: warning: ") && !$0.hasPrefix("nalu: note: ") }.joined(separator: "\n") : result.stderr
            if !stderr.hasPrefix("nalu: error: ") || !stderr.hasSuffix("\n")
                || stderr.dropLast().contains("\n") {
                problems.append("stderr is not one `nalu: error:` line: \(result.stderr.debugDescription)")
            }
            if outputExists { problems.append("failed but left an output file") }
        default:
            problems.append("exit status \(result.status)")
        }
        return (result.status, problems)
    }

    /// What `nalu convert` writes for the elementary stream `bytes`, done by the library in memory.
    static func libraryConversion(_ bytes: [UInt8], to subcommand: Subcommand, lengthPrefixed: Bool) throws -> [UInt8] {
        var reader = try ElementaryStreamReader(MemorySource(bytes), format: lengthPrefixed ? .lengthPrefixed : nil,
                                                lengthSize: lengthPrefixed ? 4 : nil)
        var sink = MemorySink()
        switch subcommand {
        case .convertToAnnexB:
            var converter = try LengthPrefixedToAnnexB(codec: reader.codec)
            try reader.forEachNALUnit { unit in try converter.push(unit, to: &sink) }
            try converter.finish(to: &sink)
        case .convertToMP4:
            let muxer = try MP4Muxer(codec: reader.codec, sink: MemorySink())
            try reader.forEachNALUnit { unit in try muxer.push(unit) }
            try muxer.finish()
            return muxer.output?.bytes ?? []
        default:
            var converter = try AnnexBToLengthPrefixed(codec: reader.codec)
            try reader.forEachNALUnit { unit in try converter.convert(unit, to: &sink) }
        }
        return sink.bytes
    }

    /// What `nalu convert` writes for the transport stream at `path`, done by the library in memory:
    /// the PES payload copied (annexb), or the NAL units converted, timed by the PES time stamps (mp4).
    static func libraryConversion(transportStream path: String, to subcommand: Subcommand) throws -> [UInt8] {
        let source = try MediaSource(path: path, options: MediaSourceOptions(codecFromFileName: false))
        var sink = MemorySink()
        switch subcommand {
        case .convertToAnnexB:
            _ = try source.copyElementaryStream(to: &sink)
        case .convertToMP4:
            // The PES times, kept (issue 31).
            let muxer = try MP4Muxer(codec: source.codec, sink: MemorySink())
            let clock = try #require(source.sampleClock())
            try muxer.useSourceTiming(timescale: clock.timescale, lookup: clock.lookup)
            try source.forEachNALUnit { unit in try muxer.push(unit) }
            try muxer.finish()
            return muxer.output?.bytes ?? []
        default:
            var converter = try AnnexBToLengthPrefixed(codec: source.codec)
            try source.forEachNALUnit { unit in try converter.convert(unit, to: &sink) }
        }
        return sink.bytes
    }

    /// What `nalu convert` writes for the MP4/MOV file `bytes`, done by the library in memory.
    static func libraryConversion(mp4 bytes: [UInt8], to subcommand: Subcommand) throws -> [UInt8] {
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        let track = reader.track
        var sink = MemorySink()
        switch subcommand {
        case .convertToAnnexB:
            try MP4ToAnnexB.convert(reader, to: &sink)
        case .convertToMP4:
            // The input's times and edit list, kept (issue 31).
            var samples = reader.samples()
            let firstDecode = try samples.next()?.dts ?? 0
            var options = MP4MuxerOptions()
            if !track.editList.isEmpty { options.movieTimescale = track.movieTimescale }
            options.editList = track.editList.map { edit in
                var edit = edit
                if edit.mediaTime >= 0 { edit.mediaTime &-= firstDecode }
                return edit
            }
            options.editListFollowsSampleTimes = true
            // The movie's metadata (times, matrix, udta) goes along, as convert copies it.
            if let movie = try? MP4MovieReader(MemoryRandomAccessSource(bytes)) {
                var metadata = movie.metadata
                if let video = movie.track(id: track.trackID) { metadata.video = video.track.metadata }
                options.metadata = metadata
            }
            let muxer = try MP4Muxer(codec: track.codec, sink: MemorySink(), options: options)
            let clock = SampleClock(timescale: track.timescale)
            try muxer.useSourceTiming(timescale: track.timescale, lookup: clock.lookup)
            for unit in track.decoderConfiguration.parameterSets { try muxer.push(nalUnit: unit) }
            try reader.forEachNALUnit(sampleStarts: { clock.add($0) }) { unit in try muxer.push(unit) }
            try muxer.finish()
            return muxer.output?.bytes ?? []
        default:
            var converter = try AnnexBToLengthPrefixed(codec: track.codec, outOfBandParameterSets: track.decoderConfiguration.parameterSets)
            try reader.forEachNALUnit { unit in try converter.convert(unit, to: &sink) }
        }
        return sink.bytes
    }
}

/// A value shared between the threads of `concurrentPerform`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
