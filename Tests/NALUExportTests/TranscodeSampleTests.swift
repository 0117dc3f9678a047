import Foundation
import Testing

/// Issue 39 item 7: `transcode-sample IN OUT [--hevc]`, built from the public library API only,
/// keeps every picture's time and the audio packets, in sync by content; on SIGINT it exits 130
/// leaving no OUT and no temporary file. `export-range-sample IN START END OUT` cuts
/// frame-exactly.
@Suite("TranscodeSample", .serialized)
struct TranscodeSampleTests {
    @Test("transcode-sample keeps every picture's time and the audio, A/V in sync", arguments: [
        ("realworld/phone.mp4", false), ("realworld/vfr.mp4", false), ("realworld/phone.mp4", true),
    ])
    func transcode(_ input: String, _ hevc: Bool) throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = ExportTestSupport.fixture(input)
        let output = directory.appendingPathComponent("out.mp4").path
        let run = try ExportTestSupport.run(ExportTestSupport.executable("transcode-sample"), [source, output] + (hevc ? ["--hevc"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        let codec = try ExportTestSupport.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output])
        #expect(codec.trimmingCharacters(in: .whitespacesAndNewlines) == (hevc ? "hevc" : "h264"))
        let sourceTimes = try ExportTestSupport.pictureTimes(source)
        let outputTimes = try ExportTestSupport.pictureTimes(output)
        #expect(sourceTimes.count == 300)
        #expect(outputTimes == sourceTimes)
        let sourceAudio = try ExportTestSupport.audioPackets(source)
        #expect(sourceAudio.count > 300)
        #expect(try ExportTestSupport.audioPackets(output) == sourceAudio)
        for at in [1.0, 5.0] {
            let shift = try #require(try ExportTestSupport.avShift(source: source, output: output, at: at))
            #expect(abs(shift) < 0.5, "A/V shift \(shift) ms at \(at) s")
        }
    }

    @Test("SIGINT: exit 130, no output, no temporary file")
    func interrupt() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A 720p input long enough that the transcode is still running when the signal comes.
        let input = directory.appendingPathComponent("in.mp4").path
        let make = try ExportTestSupport.run("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=20",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-shortest", input,
        ])
        try #require(make.status == 0, "\(make.stderr)")
        let outputs = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outputs) }
        let output = outputs.appendingPathComponent("out.mp4").path
        let child = try ExportTestSupport.start(ExportTestSupport.executable("transcode-sample"), [input, output])
        Thread.sleep(forTimeInterval: 1.5)
        #expect(child.process.isRunning, "the transcode ended within 1.5 s")
        let sent = ExportTestSupport.now()
        kill(child.process.processIdentifier, SIGINT)
        child.process.waitUntilExit()
        let elapsed = ExportTestSupport.now() - sent
        let result = child.result()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(child.process.terminationReason == .exit)
        #expect(elapsed < 3.0, "exited \(Int(elapsed * 1000)) ms after SIGINT")
        #expect(ExportTestSupport.contents(outputs) == [], "left \(ExportTestSupport.contents(outputs))")
    }

    @Test("export-range-sample cuts frame-exactly with the audio")
    func exportRange() throws {
        let directory = try ExportTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = ExportTestSupport.fixture("realworld/phone.mp4")
        let output = directory.appendingPathComponent("cut.mp4").path
        let run = try ExportTestSupport.run(ExportTestSupport.executable("export-range-sample"), [source, "2.2", "7.5", output])
        #expect(run.status == 0, "\(run.stderr)")
        // Pictures 66 to 224 of 30 fps: 159, the first shown at 0.
        let times = try ExportTestSupport.pictureTimes(output)
        #expect(times.count == 159)
        #expect(times.first.flatMap(Double.init) == 0)
        let shift = try #require(try ExportTestSupport.avShift(source: source, output: output, at: 2.0))
        #expect(abs(shift) < 0.5, "A/V shift \(shift) ms")
    }
}
