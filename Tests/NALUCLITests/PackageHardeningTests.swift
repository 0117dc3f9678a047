import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40 (hardening), `nalu package`: inputs whose times overflow (item 4), planted links and
/// FIFOs in the output folder (6), an input inside it (7), a re-package that stops half way
/// (10), live runs that fail or are stopped early (13, 21), the intermediate MP4 of a raw input
/// on a signal (14), access-unit floods (18) and parts longer than the part target (23). Each
/// runs the built binary.
@Suite(.serialized) struct PackageHardeningTests {
    /// A fragmented MP4 from ffmpeg (libx264, `testsrc2` at `rate` fps for `seconds`, a keyframe
    /// every `gop` pictures), at `timescale` when given.
    static func fragmentedMP4(_ scratch: Scratch, name: String, rate: String = "30", seconds: String = "2", gop: Int = 30,
                              timescale: Int? = nil) throws -> String {
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file(name)
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=\(rate)", "-t", seconds,
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", String(gop), "-keyint_min", String(gop), "-sc_threshold", "0"]
        if let timescale { arguments += ["-video_track_timescale", String(timescale)] }
        arguments += ["-movflags", "frag_keyframe+empty_moov+default_base_moof", "-y", path]
        let result = try runProgram(ffmpeg, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// `path` with `add` added to every `tfdt`'s baseMediaDecodeTime (version 1, 64 bits).
    static func shiftingDecodeTimes(_ path: String, by add: UInt64, to output: String) throws {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var position = 0
        var count = 0
        while let index = (position..<max(position, data.count - 16)).first(where: { data[$0] == 0x74 && data[$0 + 1] == 0x66 && data[$0 + 2] == 0x64 && data[$0 + 3] == 0x74 }) {
            #expect(data[index + 4] == 1, "tfdt version 1 expected")
            var value: UInt64 = 0
            for byte in data[(index + 8)..<(index + 16)] { value = value << 8 | UInt64(byte) }
            value &+= add
            for offset in 0..<8 { data[index + 8 + offset] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(offset))) }
            position = index + 16
            count += 1
        }
        #expect(count > 0, "no tfdt in \(path)")
        try Data(data).write(to: URL(fileURLWithPath: output))
    }

    // MARK: Item 4

    @Test func aDecodeTimeOf2To62IsRefusedForTransportStreamSegments() throws {
        let scratch = try Scratch()
        let source = try Self.fragmentedMP4(scratch, name: "f.mp4")
        let input = scratch.file("huge.mp4")
        try Self.shiftingDecodeTimes(source, by: 1 << 62, to: input)
        let result = try CLIRunner.run(["package", input, "-o", scratch.file("out"), "--hls", "--segment-type", "ts"])
        #expect(!result.signalled, "trapped: \(result.stderr.prefix(300))")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("nalu: error: ") && result.stderr.contains("decoding time"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func hugeTimesAtTimescaleOneAreRefused() throws {
        let scratch = try Scratch()
        let source = try Self.fragmentedMP4(scratch, name: "t1.mp4", rate: "1", seconds: "4", gop: 1, timescale: 1)
        try Self.shiftingDecodeTimes(source, by: 1 << 55, to: scratch.file("a.mp4"))
        try Self.shiftingDecodeTimes(source, by: 1 << 56, to: scratch.file("b.mp4"))
        let result = try CLIRunner.run(["package", scratch.file("a.mp4"), scratch.file("b.mp4"), "-o", scratch.file("out"), "--hls", "--dash"])
        #expect(!result.signalled, "trapped: \(result.stderr.prefix(300))")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("a.mp4") && result.stderr.contains("decoding time"), "\(result.stderr)")
    }

    // MARK: Items 6 and 14

    /// Waits (at most `seconds`) for `process` to exit; false when it is still running.
    static func waitForExit(_ process: RunningNalu, seconds: Double) -> Bool {
        for _ in 0..<Int(seconds * 100) {
            if !process.process.isRunning { return true }
            usleep(10_000)
        }
        return !process.process.isRunning
    }

    @Test func linksAndFIFOsPlantedInTheFolderAreReplacedNotFollowed() throws {
        let scratch = try Scratch()
        let out = scratch.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let victims = ["input-victim", "playlist-victim", "segment-victim", "init-victim"].map(scratch.file)
        for victim in victims { try Data("precious".utf8).write(to: URL(fileURLWithPath: victim)) }
        // The intermediate's old predictable name, a playlist, a segment and the init segment.
        for (name, victim) in zip([".v0_input.mp4", "v0.m3u8", "v0_00001.m4s", "v0_init.mp4"], victims) {
            try FileManager.default.createSymbolicLink(atPath: out + "/" + name, withDestinationPath: victim)
        }
        #expect(mkfifo(out + "/v0_00002.m4s", 0o644) == 0)
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let run = try RunningNalu(["package", CLIRunner.fixture("avc_baseline.h264"), "-o", out, "--hls", "--segment-duration", "0.3",
                                   "--fps", "30"], environment: ["TMPDIR": tmp])
        let exited = Self.waitForExit(run, seconds: 20)
        if !exited { run.signal(SIGINT) }
        let status = run.wait()
        #expect(exited, "package hung on the FIFO at a segment name")
        #expect(status == 0, "\(run.stderr)")
        for victim in victims {
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious", "\(victim) was written through a link")
        }
        for name in ["v0.m3u8", "v0_00001.m4s", "v0_00002.m4s", "v0_init.mp4"] {
            let type = try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(name) is \(String(describing: type))")
        }
        // Item 14: no intermediate left, in the folder or in $TMPDIR.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).allSatisfy { !$0.hasSuffix("_input.mp4") || $0 == ".v0_input.mp4" })
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/.v0_input.mp4") == victims[0], "the planted link is not ours to remove")
    }

    @Test func aSignalWhilePackagingARawInputLeavesNoIntermediate() throws {
        let scratch = try Scratch()
        let tmp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        // A raw stream of 3,000 pictures (the fixture 150 times): it is muxed into the
        // intermediate MP4, then cut into 300 segments; the signal comes once the first is written.
        let fixture = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_baseline.h264")))
        let input = scratch.file("long.h264")
        try Data((0..<150).flatMap { _ in fixture }).write(to: URL(fileURLWithPath: input))
        for (signal, expected) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let out = scratch.file("out\(signal)")
            let run = try RunningNalu(["package", input, "-o", out, "--hls", "--fps", "30", "--segment-duration", "0.3"],
                                      environment: ["TMPDIR": tmp])
            PackageLiveTests.waitUntil { FileManager.default.fileExists(atPath: out + "/v0_00001.m4s") || !run.process.isRunning }
            let scratchFiles = try FileManager.default.contentsOfDirectory(atPath: tmp)
            run.signal(signal)
            let status = run.wait()
            try #require(status == expected, "the run ended before the signal: \(status) \(run.stderr)")
            #expect(scratchFiles.contains { $0.hasSuffix("_input.mp4") }, "the intermediate MP4 is made in $TMPDIR: \(scratchFiles)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "left in $TMPDIR")
            let left = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") || $0.contains("input") }
            #expect(left.isEmpty, "left in the package folder: \(left)")
        }
    }

    // MARK: Item 7

    @Test func anInputInsideTheFolderWithAPackageFileNameIsRefused() throws {
        let scratch = try Scratch()
        let out = scratch.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let original = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_baseline.mp4")))
        let cases: [(name: String, extra: [String])] = [("v0.mp4", ["--single-file"]), ("v0_init.mp4", []), ("v0_00001.m4s", []),
                                                       ("v0_00001.ts", ["--segment-type", "ts"]), ("v0.m3u8", [])]
        for (name, extra) in cases {
            let input = out + "/" + name
            try original.write(to: URL(fileURLWithPath: input))
            let result = try CLIRunner.run(["package", input, "-o", out, "--hls", "--segment-duration", "0.3"] + extra)
            #expect(result.status == 73, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("is the input file"), "\(name): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original, "\(name) was overwritten")
            try FileManager.default.removeItem(atPath: input)
        }
        // The --extradata record of a length-prefixed input is an input too.
        let record = out + "/v0_init.mp4"
        let recordBytes = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixture("avc_baseline.avcC")))
        try recordBytes.write(to: URL(fileURLWithPath: record))
        let result = try CLIRunner.run(["package", CLIRunner.fixture("avc_baseline.lp"), "--extradata", record, "--length-size", "4",
                                        "--fps", "30", "-o", out, "--hls"])
        #expect(result.status == 73 && result.stderr.contains("is the input file"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: record)) == recordBytes, "the record was overwritten")
    }

    // MARK: Item 10

    /// The URIs a playlist or MPD names (segments, parts, init segments, media playlists).
    static func namedFiles(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var names: [String] = []
        for line in text.split(separator: "\n") {
            if !line.hasPrefix("#") { names.append(String(line)) }
            for marker in ["URI=\"", "media=\"", "initialization=\""] {
                var rest = Substring(line)
                while let range = rest.range(of: marker) {
                    rest = rest[range.upperBound...]
                    if let end = rest.firstIndex(of: "\"") { names.append(String(rest[..<end])) }
                }
            }
        }
        return names.filter { !$0.contains("$") }
    }

    @Test func aRepackageThatFailsLeavesNoPlaylistNamingReplacedFiles() throws {
        let scratch = try Scratch()
        let out = scratch.file("out")
        let good = try Self.fragmentedMP4(scratch, name: "good.mp4", seconds: "4", gop: 30)
        let first = try CLIRunner.run(["package", good, "-o", out, "--hls", "--dash", "--segment-duration", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        // A run that stops on an unreadable input before writing anything leaves the package whole.
        let junk = scratch.file("junk.bin")
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: junk))
        let refused = try CLIRunner.run(["package", junk, "-o", out, "--hls", "--dash", "--segment-duration", "2"])
        #expect(refused.status == 65, "\(refused.stderr)")
        for name in ["v0.m3u8", "master.m3u8", "manifest.mpd"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + name), "\(name) removed by a run that wrote nothing")
        }
        var before: [String: UInt64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: out) {
            before[name] = (try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.systemFileNumber] as? NSNumber)?.uint64Value
        }
        // Again with 2 s segments and a second rendition whose keyframes do not align: v0's
        // segments are replaced, then the run stops (exit 65).
        let misaligned = try Self.fragmentedMP4(scratch, name: "misaligned.mp4", seconds: "4", gop: 45)
        let second = try CLIRunner.run(["package", good, misaligned, "-o", out, "--hls", "--dash", "--segment-duration", "2"])
        #expect(second.status == 65, "\(second.stderr)")
        let replaced = try FileManager.default.contentsOfDirectory(atPath: out).filter { name in
            let inode = (try? FileManager.default.attributesOfItem(atPath: out + "/" + name)[.systemFileNumber] as? NSNumber)?.uint64Value
            return before[name] != nil && inode != before[name]
        }
        #expect(!replaced.isEmpty, "the failed run replaced no segment: the test proves nothing")
        for name in try FileManager.default.contentsOfDirectory(atPath: out) where name.hasSuffix(".m3u8") || name.hasSuffix(".mpd") {
            let stale = try Self.namedFiles(out + "/" + name).filter(replaced.contains)
            #expect(stale.isEmpty, "\(name), left from the first run, names \(stale), replaced by the failed run")
        }
    }

    // MARK: Items 13 and 21

    /// An Annex-B H.264 stream from ffmpeg (libx264 with VUI timing) of `size` pictures.
    static func annexB(_ scratch: Scratch, name: String, size: String = "64x64", rate: String = "30", seconds: String = "2") throws -> Data {
        let ffmpeg = try #require(ffmpegPath)
        let path = scratch.file(name)
        let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)", "-t", seconds,
                                             "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-bf", "0",
                                             "-f", "h264", "-y", path])
        #expect(result.status == 0, "\(result.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func aLiveRunThatFailsEndsItsPlaylists() throws {
        let scratch = try Scratch()
        // Two 2 s transport streams joined, the second's times starting again: the decoding time
        // goes back (exit 65). (A change of parameter sets, which failed here before issue 41
        // item 17, now starts a new period: PackageLiveAudioTests.)
        let ffmpeg = try #require(ffmpegPath)
        var data = Data()
        for name in ["a.ts", "b.ts"] {
            let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30", "-t", "2",
                                                 "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-keyint_min", "30", "-bf", "0",
                                                 "-f", "mpegts", "-y", scratch.file(name)])
            #expect(result.status == 0, "\(result.stderr)")
            data.append(try Data(contentsOf: URL(fileURLWithPath: scratch.file(name))))
        }
        let out = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", out] + PackageLiveTests.liveArguments, stdin: data)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("DTS") && result.stderr.contains("does not increase"), "\(result.stderr)")
        let playlist = try String(contentsOfFile: out + "/v0.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-ENDLIST"), "\(playlist)")
        #expect(!playlist.contains("#EXT-X-PRELOAD-HINT"), "\(playlist)")
        let parts = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PART:") }
        for part in parts {
            let uri = try #require(part.split(separator: "\"").dropFirst().first)
            #expect(FileManager.default.fileExists(atPath: out + "/" + uri), "\(uri) is listed and missing")
        }
        let mpd = try PackageLiveTests.parseMPD(out + "/manifest.mpd")
        let attributes = try #require(mpd["attributes"] as? [String: String])
        #expect(attributes["mediaPresentationDuration"] != nil, "the MPD was not ended: \(attributes)")
        // The segments written before the change are all listed (2 s, 1 s segments).
        #expect(playlist.contains("v0_00002.m4s"), "\(playlist)")
    }

    @Test func aSignalBeforeTheFirstKeyframeExitsWithTheSignal() throws {
        let scratch = try Scratch()
        // A FIFO nobody opens for writing: the signal comes while `open` waits.
        let fifo = scratch.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let blocked = try RunningNalu(["package", fifo, "-o", scratch.file("out1")] + PackageLiveTests.liveArguments)
        usleep(500_000)
        blocked.signal(SIGINT)
        #expect(blocked.wait() == 130, "\(blocked.stderr)")
        // A pipe that gave no keyframe yet (nothing at all).
        let input = Pipe()
        let waiting = try RunningNalu(["package", "-", "-o", scratch.file("out2")] + PackageLiveTests.liveArguments, stdin: input)
        try input.fileHandleForReading.close()
        usleep(500_000)
        waiting.signal(SIGTERM)
        #expect(waiting.wait() == 143, "\(waiting.stderr)")
        try? input.fileHandleForWriting.close()
    }

    // MARK: Item 18

    /// `count` H.264 filler data NAL units (type 12) of `size` bytes each, in Annex-B.
    static func filler(count: Int, size: Int) -> Data {
        var unit = Data([0, 0, 0, 1, 0x0C])
        unit.append(Data(repeating: 0xFF, count: size - 6))
        unit.append(0x80)
        var data = Data(capacity: count * (size + 4))
        for _ in 0..<count { data.append(unit) }
        return data
    }

    @Test func aFloodOfFillerInALiveStreamStopsAtTheAccessUnitLimit() throws {
        try #require(ResourceRunner.available, "GNU time is needed")
        let scratch = try Scratch()
        let stream = try Self.annexB(scratch, name: "s.h264", seconds: "1")
        // Filler after the stream's last picture: 100 units of 1 MiB against the default limit
        // (64 MiB), and one unit of 16 MiB against --max-access-unit-size 8 MiB (the NAL unit
        // reader's limit too).
        let cases = [("100 units of 1 MiB", Self.filler(count: 100, size: 1 << 20), [String](), "67108864"),
                     ("one unit of 16 MiB", Self.filler(count: 1, size: 16 << 20), ["--max-access-unit-size", "8388608"], "8388608")]
        for (label, flood, options, limit) in cases {
            let input = scratch.file("flood.h264")
            try (stream + flood).write(to: URL(fileURLWithPath: input))
            let result = try ResourceRunner.run(["package", "-", "-o", scratch.file("out"), "--hls", "--live", "--segment-duration", "1"] + options,
                                                stdin: input, pipe: true, addressSpaceKiB: 1 << 20)
            #expect(result.signal == nil && result.status == 65, "\(label): status \(result.status), signal \(String(describing: result.signal)): \(result.stderr)")
            #expect(result.stderr.contains(limit), "\(label): the limit is not named: \(result.stderr)")
            #expect(result.peakRSS < 400 << 20, "\(label): peak RSS \(result.peakRSS >> 20) MiB")
            try FileManager.default.removeItem(atPath: input)
        }
    }

    // MARK: Item 23

    @Test func aPictureLongerThanThePartTargetIsRefused() throws {
        let scratch = try Scratch()
        // The SPS VUI says 0.01 fps: each picture lasts 100 s.
        let data = try Self.annexB(scratch, name: "slow.h264", rate: "1/100", seconds: "300")
        let out = scratch.file("out")
        let result = try CLIRunner.run(["package", "-", "-o", out, "--hls", "--live", "--segment-duration", "1", "--part-duration", "0.5"], stdin: data)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("PART-TARGET"), "\(result.stderr)")
        if let playlist = try? String(contentsOfFile: out + "/v0.m3u8", encoding: .utf8) {
            for line in playlist.split(separator: "\n") where line.hasPrefix("#EXT-X-PART:") {
                let duration = line.split(separator: ",").first { $0.hasPrefix("DURATION=") || $0.hasPrefix("#EXT-X-PART:DURATION=") }
                let value = duration.flatMap { Double($0.split(separator: "=").last ?? "") } ?? 0
                #expect(value <= 0.5, "\(line)")
            }
        }
    }
}
