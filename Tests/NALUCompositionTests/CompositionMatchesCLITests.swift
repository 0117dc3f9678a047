import Foundation
import NALUExport
import NALUMedia
import NALUSmartCut
import Testing

/// The library's composition export writes what `nalu concat --smart` and `nalu trim --keep`
/// write (issue 39: one code path; the library is the product).
///
/// Byte for byte where both run in processes of their own under `MALLOC_PERTURB_=85`: libx264
/// (build 164) writes other bytes for the re-encoded pictures depending on what the heap held
/// (Docs/export.md), so in this process the re-encoded pictures' sizes may differ; every
/// packet's times and flags, and the copied audio's bytes, may not.
@Suite struct CompositionMatchesCLITests {
    static let phone = CompositionTestSupport.fixture("realworld/phone.mp4")
    static let mov = CompositionTestSupport.fixture("realworld/avc_2997.mov")
    static let perturb = ["MALLOC_PERTURB_": "85"]

    /// Every packet's stream, pts, dts, duration and flags (ffprobe), and the audio's framemd5.
    static func packets(_ path: String) throws -> [String] {
        let video = try CompositionTestSupport.ffprobe(["-show_entries", "packet=stream_index,pts,dts,duration,flags", "-of", "csv=p=0", path])
        let audio = try CompositionTestSupport.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
        #expect(audio.status == 0, "\(audio.stderr)")
        return video.split(separator: "\n").map(String.init) + audio.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// Exports `composition` to `name` in this process and runs `nalu ARGS -o` beside it.
    func compare(_ composition: Composition, cli arguments: [String], name: String) async throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library-\(name)").path
        let command = directory.appendingPathComponent("cli-\(name)").path
        let report = try await CompositionSession(composition: composition, output: library).export()
        let run = try CompositionTestSupport.run(CompositionTestSupport.executable("nalu"), arguments + ["-o", command])
        #expect(run.status == 0, "\(run.stderr)")
        let (ours, theirs) = (try Self.packets(library), try Self.packets(command))
        #expect(ours.count > 100)
        #expect(ours == theirs, "\(name): \(zip(ours, theirs).first { $0 != $1 }.map { "\($0) ≠ \($1)" } ?? "\(ours.count) ≠ \(theirs.count) packets")")
        #expect(report.frames == (try CompositionTestSupport.pictureTimes(command).count))
    }

    @Test("clips of two files, MP4: the packets of nalu concat --smart")
    func concatMP4() async throws {
        var composition = Composition()
        try composition.append(Self.phone, seconds: 2.2, to: 7.5)
        try composition.append(Self.mov, seconds: 1, to: 2.5)
        try await compare(composition, cli: ["concat", "--smart", "\(Self.phone)@2.2-7.5", "\(Self.mov)@1-2.5"], name: "joined.mp4")
    }

    @Test("ranges of one file, MPEG-TS: the packets of nalu trim --keep")
    func keepTransportStream() async throws {
        let composition = try Composition(path: Self.phone, ranges: SmartCutRange.list(parsing: "0.5-2.25,4-6.1,8.2-"))
        try await compare(composition, cli: ["trim", Self.phone, "--keep", "0.5-2.25,4-6.1,8.2-"], name: "kept.ts")
    }

    @Test("append-clips-sample writes the bytes of nalu concat --smart (both under MALLOC_PERTURB_=85)")
    func sampleBytes() throws {
        let directory = try CompositionTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (sample, command) = (directory.appendingPathComponent("sample.mp4").path, directory.appendingPathComponent("cli.mp4").path)
        let a = try CompositionTestSupport.run(CompositionTestSupport.executable("append-clips-sample"), [sample, Self.mov, Self.phone],
                                               environment: Self.perturb)
        let b = try CompositionTestSupport.run(CompositionTestSupport.executable("nalu"), ["concat", "--smart", Self.mov, Self.phone, "-o", command],
                                               environment: Self.perturb)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let (ours, theirs) = (try Data(contentsOf: URL(fileURLWithPath: sample)), try Data(contentsOf: URL(fileURLWithPath: command)))
        #expect(ours.count > 100_000)
        #expect(ours == theirs, "sample \(ours.count) bytes, nalu \(theirs.count) bytes")
    }
}
