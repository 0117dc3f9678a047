import Foundation
import Testing

/// Nothing of a join's timing is lost silently: where `concat` cannot keep the inputs' own
/// times (an elementary input among them, a transport stream read once from a pipe) it times the
/// join at one rate, and that is exit 2 naming the inputs re-timed unless `--fps` chose the rate;
/// where it cannot hide the pictures an input's edit list hides between pieces (MPEG-TS output,
/// or MP4 timed at one rate) it shows them, and their audio leads them: exit 2 naming the input,
/// and `--smart` avoids it. Before, both were exit 0 (a VFR clip flattened to 60 fps; sscut.mp4's
/// 9 lead-in pictures shown with its audio 298.67 ms early by content).
@Suite struct JoinTimesKeptTests {
    static let vfr = CLIRunner.fixture("realworld/vfr.mp4")
    static let phone = CLIRunner.fixture("realworld/phone.mp4")
    /// `ffmpeg -ss -c copy` cut: an edit list hiding 9 lead-in pictures.
    static let sscut = CLIRunner.fixture("realworld/sscut.mp4")

    /// The steps between presented pictures (ffprobe), in ms rounded to 0.1.
    static func steps(_ path: String) throws -> [Double] {
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        let times = probe.stdout.split(separator: "\n").compactMap { Double($0.replacingOccurrences(of: ",", with: "").trimmingCharacters(in: .whitespaces)) }
        return zip(times.dropFirst(), times).map { (($0 - $1) * 10_000).rounded() / 10 }
    }

    /// A VFR MP4 (1/60 s and 1/15 s steps) joined with an Annex-B stream: timed at 60 fps, the
    /// VFR clip's 1/15 s steps are lost, so exit 2 names it with `--fps` as the way to ask for it.
    @Test func anElementaryInputRetimesTheOthersWithExit2() throws {
        let folder = try Scratch()
        let elementary = folder.file("head.h264")
        #expect(try CLIRunner.run(["trim", Self.vfr, "--end", "2", "--no-audio", "-o", elementary]).status == 0)
        #expect(try Self.steps(Self.vfr).contains(66.7))
        let joined = folder.file("joined.mp4")
        let result = try CLIRunner.run(["concat", Self.vfr, elementary, "--no-audio", "-o", joined])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("the times of \(Self.vfr) not kept: the join is timed at 60 fps: \(elementary) has no times of its own"),
                "\(result.stderr)")
        #expect(result.stderr.contains("give --fps 60"), "\(result.stderr)")
        // Written all the same, at the one rate.
        let steps = try Self.steps(joined)
        #expect(steps.allSatisfy { $0 == 16.7 || $0 > 1000 }, "\(steps)")
        let chosen = try CLIRunner.run(["concat", Self.vfr, elementary, "--no-audio", "--fps", "60", "-o", folder.file("chosen.mp4")])
        #expect(chosen.status == 0, "\(chosen.stderr)")
    }

    /// A transport stream from a pipe is read once, so its times cannot be read ahead: the join
    /// is timed at one rate, exit 2 naming it; the same file given by name keeps its 1/15 s steps.
    @Test func aPipedTransportStreamIsNamed() throws {
        let folder = try Scratch()
        let ts = CLIRunner.fixture("tsjoin/vfr.ts")
        let piped = try CLIRunner.run(["concat", "-", ts, "--no-audio", "-o", folder.file("piped.mp4")], stdin: Data(contentsOf: URL(fileURLWithPath: ts)))
        #expect(piped.status == 2, "\(piped.stderr)")
        #expect(piped.stderr.contains("- is read once (not a file)"), "\(piped.stderr)")
        let named = folder.file("named.mp4")
        #expect(try CLIRunner.run(["concat", ts, ts, "--no-audio", "-o", named]).status == 0)
        #expect(try Self.steps(named).filter { $0 == 66.7 }.count == 118)
    }

    /// `phone.mp4` + `sscut.mp4` (whose edit hides 9 lead-in pictures): MP4 keeps them hidden
    /// (exit 0, 531 pictures); MPEG-TS, and MP4 at `--fps 30`, show them (540) with the audio
    /// 0.3 s ahead: exit 2 naming sscut.mp4; `--smart` into MPEG-TS: exit 0, in sync by content.
    @Test func hiddenPicturesShownAtAJoinAreNamed() throws {
        let folder = try Scratch()
        let mp4 = folder.file("joined.mp4")
        #expect(try CLIRunner.run(["concat", Self.phone, Self.sscut, "-o", mp4]).status == 0)
        for (name, extra) in [("joined.ts", [String]()), ("rate.mp4", ["--fps", "30"])] {
            let result = try CLIRunner.run(["concat", Self.phone, Self.sscut, "-o", folder.file(name)] + extra)
            #expect(result.status == 2, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("the pictures hidden at the joins of \(Self.sscut) are shown, and their audio leads them"), "\(result.stderr)")
            #expect(result.stderr.contains("join with --smart"), "\(result.stderr)")
        }
        #expect(try frameCount(mp4) == 531)
        #expect(try frameCount(folder.file("rate.mp4")) == 540)
        let smart = folder.file("smart.ts")
        let result = try CLIRunner.run(["concat", Self.phone, Self.sscut, "--smart", "-o", smart])
        #expect(result.status == 0, "\(result.stderr)")
        // 2 s into sscut's part (10 s of phone.mp4 before it).
        let shift = try AudioPathsTests.shift(Self.sscut, smart, at: 12)
        #expect(abs(shift) <= 25, "A/V \(shift) ms")
    }

    private func frameCount(_ path: String) throws -> Int? {
        let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
