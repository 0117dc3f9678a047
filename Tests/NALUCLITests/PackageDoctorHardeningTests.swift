import Foundation
import Testing

/// Issue 40 (items 3, 5, 10, 17, 19, 24): `nalu doctor` on a streaming package whose manifests
/// or files are hostile or damaged. Each case ran into a trap (exit 132), read files outside the
/// package, cost minutes and gigabytes, or was called clean before the fix; through the built
/// binary, each must now be a finding (exit 3) or a typed error, quickly.
@Suite struct PackageDoctorHardeningTests {
    typealias Doctor = PackageDoctorTests

    /// Runs doctor on `path` (JSON Lines), timing it.
    static func doctor(_ path: String) throws -> (status: Int32, codes: [String], output: String, seconds: Double) {
        let started = Date()
        let run = try Doctor.doctor(path)
        return (run.status, run.codes, run.output, Date().timeIntervalSince(started))
    }

    static func mediaPlaylist(_ entries: [(extinf: String, uri: String)], extra: String = "") -> String {
        "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n" + extra
            + entries.map { "#EXTINF:\($0.extinf),\n\($0.uri)\n" }.joined() + "#EXT-X-ENDLIST\n"
    }

    static func mpd(_ timeline: String, template: String = "timescale=\"1000\" media=\"v_$Number%05d$.m4s\" initialization=\"v_init.mp4\"") -> String {
        """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT8S">
          <Period>
            <AdaptationSet contentType="video" segmentAlignment="true">
              <Representation id="v" bandwidth="100000" codecs="avc1.64000d">
                <SegmentTemplate \(template)>
                  <SegmentTimeline>\(timeline)</SegmentTimeline>
                </SegmentTemplate>
              </Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """
    }

    /// Item 3: numbers that trapped (exit 132) are `manifest-invalid` findings.
    @Test func numbersInManifestsAreFindingsNotTraps() throws {
        let scratch = try Scratch()
        var cases: [(name: String, text: String)] = [
            ("nan.m3u8", Self.mediaPlaylist([("nan", "a.ts"), ("4", "b.ts")])),
            ("inf.m3u8", Self.mediaPlaylist([("inf", "a.ts")])),
            ("big.m3u8", Self.mediaPlaylist([("1e19", "a.ts")])),
            // r = 2^62 of d = 2^62 ticks: the times pass 2^63 at the second (manifestCostsAreBounded: r past the segment limit).
            ("repeat.mpd", Self.mpd("<S t=\"0\" d=\"4611686018427387904\" r=\"4611686018427387904\"/>")),
            ("limits.mpd", Self.mpd("<S t=\"9223372036854775000\" d=\"9223372036854775000\" r=\"3\"/><S d=\"9223372036854775807\"/>")),
            ("width.mpd", Self.mpd("<S t=\"0\" d=\"1000\" r=\"1\"/>", template: "timescale=\"1000\" media=\"v_$Number%0999999999999999999d$.m4s\"")),
            ("timescale.mpd", Self.mpd("<S t=\"0\" d=\"1000\" r=\"1\"/>", template: "timescale=\"0\" media=\"v_$Number$.m4s\"")),
        ]
        // EXTINF:1e300 in two renditions: the alignment check formatted 1e300 s.
        try scratch.write("r0.m3u8", Data(Self.mediaPlaylist([("1e300", "a.ts"), ("4", "b.ts")]).utf8))
        try scratch.write("r1.m3u8", Data(Self.mediaPlaylist([("4", "a.ts"), ("4", "b.ts")]).utf8))
        cases.append(("two.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1.64000d\"\nr0.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2,CODECS=\"avc1.64000d\"\nr1.m3u8\n"))
        for (name, text) in cases {
            try scratch.write(name, Data(text.utf8))
            let run = try Self.doctor(scratch.file(name))
            #expect(run.status == 3 && run.codes.contains("manifest-invalid"), "\(name): \(run.output)")
            #expect(run.seconds < 10, "\(name): \(run.seconds) s")
        }
    }

    /// Item 5: URIs that leave the package, and names of things that are no files, are findings
    /// and never opened (a FIFO would block the open).
    @Test func urisOutsideThePackageAreNeverOpened() throws {
        let scratch = try Scratch()
        let dir = scratch.file("pkg")
        try FileManager.default.createDirectory(atPath: dir + "/dir.ts", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.ts", withDestinationPath: "/etc/passwd")
        #expect(mkfifo(dir + "/fifo.ts", 0o600) == 0)
        let playlist = Self.mediaPlaylist([("4", "../../../../../../../../etc/passwd"), ("4", "/etc/shadow"), ("4", "/proc/self/environ"),
                                           ("4", "file:///etc/passwd"), ("4", "link.ts"), ("4", "fifo.ts"), ("4", "dir.ts")])
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: dir + "/v.m3u8"))
        let run = try Self.doctor(dir + "/v.m3u8")
        #expect(run.status == 3, "\(run.output)")
        #expect(Set(run.codes) == ["segment-outside-package", "segment-not-a-file"], "\(run.output)")
        #expect(run.output.contains("[5 times]") || run.output.contains("\"count\": 5"), "\(run.output)")
        #expect(run.output.contains("a FIFO") || run.output.contains("a directory"), "\(run.output)")
        #expect(!run.output.contains("root:"), "\(run.output)")
        #expect(run.seconds < 10)
        // The folder itself: the same.
        let folder = try Self.doctor(dir)
        #expect(folder.status == 3 && Set(folder.codes) == ["segment-outside-package", "segment-not-a-file"], "\(folder.output)")
    }

    /// Item 10: segments replaced by an interrupted re-package (2 s segments where the playlist
    /// and the MPD say 4 s) are `segment-duration-mismatch`.
    @Test func replacedSegmentsLastOtherThanTheManifestsSay() throws {
        let scratch = try Scratch()
        let dir = try Doctor.package(scratch)
        let other = try Scratch()
        let (short, result) = try PackageCommandTests.package([PackageCommandTests.realWorld("phone.mp4")],
                                                              ["--hls", "--dash", "--segment-duration", "2"], in: other)
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["v0_00001.m4s", "v0_00002.m4s"] {
            try FileManager.default.removeItem(atPath: dir + "/" + name)
            try FileManager.default.copyItem(atPath: short + "/" + name, toPath: dir + "/" + name)
        }
        for path in [dir + "/master.m3u8", dir + "/manifest.mpd"] {
            let run = try Self.doctor(path)
            #expect(run.status == 3 && run.codes.contains("segment-duration-mismatch"), "\(path): \(run.output)")
            #expect(run.output.contains("v0_00001.m4s lasts 2.000 s by its samples"), "\(path): \(run.output)")
        }
        // MPEG-TS segments: their duration by the PES time stamps.
        let ts = try Scratch()
        let (tsDir, tsRun) = try PackageCommandTests.package([PackageCommandTests.realWorld("phone.ts")], ["--hls", "--segment-type", "ts"], in: ts)
        #expect(tsRun.status == 0, "\(tsRun.stderr)")
        try Doctor.edit(tsDir + "/v0.m3u8") { text in
            guard let range = text.range(of: "#EXTINF:4.000000,") else { return text }
            return text.replacingCharacters(in: range, with: "#EXTINF:3.000000,")
        }
        let run = try Self.doctor(tsDir)
        #expect(run.status == 3 && run.codes == ["segment-duration-mismatch"], "\(run.output)")
        #expect(run.output.contains("v0_00001.ts lasts 4.000 s by its samples; the playlist says 3.000 s"), "\(run.output)")
    }

    /// Item 19: damage that doctor called clean.
    @Test func damagedFilesAreFindings() throws {
        let scratch = try Scratch()
        let dir = try Doctor.package(scratch)
        func copy(_ name: String, _ damage: (String) throws -> Void) throws -> String {
            let path = scratch.file(name)
            try FileManager.default.copyItem(atPath: dir, toPath: path)
            try damage(path)
            return path
        }
        var generator = SystemRandomNumberGenerator()
        let random = try copy("random") { path in
            try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path + "/v0_00002.m4s"))
        }
        let emptyInit = try copy("empty-init") { path in try Data().write(to: URL(fileURLWithPath: path + "/v0_init.mp4")) }
        let directory = try copy("directory") { path in
            try FileManager.default.removeItem(atPath: path + "/v0_00002.m4s")
            try FileManager.default.createDirectory(atPath: path + "/v0_00002.m4s", withIntermediateDirectories: false)
        }
        for (path, code) in [(random, "segment-unreadable"), (emptyInit, "segment-unreadable"), (directory, "segment-not-a-file")] {
            for manifest in ["/master.m3u8", "/manifest.mpd"] {
                let run = try Self.doctor(path + manifest)
                #expect(run.status == 3 && run.codes.contains(code), "\(path + manifest): \(run.output)")
            }
        }
        // A byte range past the end of a single-file package's file (fMP4 and MPEG-TS).
        for (input, extra) in [("phone.mp4", [String]()), ("phone.ts", ["--segment-type", "ts"])] {
            let single = try Scratch()
            let (singleDir, singleRun) = try PackageCommandTests.package([PackageCommandTests.realWorld(input)], ["--hls", "--single-file"] + extra, in: single)
            #expect(singleRun.status == 0, "\(singleRun.stderr)")
            let clean = try Self.doctor(singleDir)
            #expect(clean.status == 0 && clean.codes.isEmpty, "\(input): \(clean.output)")
            let playlist = try String(contentsOfFile: singleDir + "/v0.m3u8", encoding: .utf8)
            let last = try #require(playlist.split(separator: "\n").last { $0.hasPrefix("#EXT-X-BYTERANGE:") })
            let length = try #require(Int(last.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")[0]))
            try Doctor.edit(singleDir + "/v0.m3u8") {
                $0.replacingOccurrences(of: String(last), with: last.replacingOccurrences(of: "\(length)@", with: "\(length + 1000)@"))
            }
            let past = try Self.doctor(singleDir)
            #expect(past.status == 3 && past.codes == ["segment-unreadable"] && past.output.contains("past the end"), "\(input): \(past.output)")
        }
        // A deleted LL-HLS part.
        let parts = try Scratch()
        let (partsDir, partsRun) = try PackageCommandTests.package([PackageCommandTests.realWorld("phone.mp4")], ["--hls", "--part-duration", "1"], in: parts)
        #expect(partsRun.status == 0, "\(partsRun.stderr)")
        let partPlaylist = try String(contentsOfFile: partsDir + "/v0.m3u8", encoding: .utf8)
        let partLine = try #require(partPlaylist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-PART:") })
        let partName = try #require(partLine.split(separator: "\"").dropFirst().first)
        try FileManager.default.removeItem(atPath: partsDir + "/" + partName)
        let missingPart = try Self.doctor(partsDir)
        #expect(missingPart.status == 3 && missingPart.codes == ["package-file-missing"] && missingPart.output.contains(String(partName)),
                "\(missingPart.output)")
        // An empty and a garbage MPD.
        try scratch.write("empty.mpd", Data())
        try scratch.write("garbage.mpd", Data("this is not XML at all \u{0}\u{1}<<<>".utf8))
        try scratch.write("garbage.m3u8", Data("hello\nworld.ts\n".utf8))
        for name in ["empty.mpd", "garbage.mpd", "garbage.m3u8"] {
            let run = try Self.doctor(scratch.file(name))
            #expect(run.status == 3 && run.codes.contains("manifest-invalid"), "\(name): \(run.output)")
        }
    }

    /// Item 17: what a manifest may cost is bounded: an MPD repeating `S` past the segment
    /// limit, a master naming one playlist thousands of times, a manifest over 16 MiB (an error,
    /// not a silent cut), a single-file package of many segments (read by their byte ranges).
    @Test func manifestCostsAreBounded() throws {
        let scratch = try Scratch()
        let repeats = String(repeating: "<S d=\"1000\" r=\"999999999\"/>", count: 20)
        try scratch.write("repeat.mpd", Data(Self.mpd("<S t=\"0\" d=\"1000\" r=\"999999999\"/>" + repeats).utf8))
        let repeated = try Self.doctor(scratch.file("repeat.mpd"))
        #expect(repeated.status == 3 && repeated.codes.contains("manifest-invalid") && repeated.output.contains("more than 1000000 segments"),
                "\(repeated.output.prefix(2000))")
        #expect(repeated.output.utf8.count < 10_000, "\(repeated.output.utf8.count) bytes of output")
        // 1,000,000 segments resolved: ~13 s in a debug build on one core, ~1.5 s optimised.
        #expect(repeated.seconds < 60, "\(repeated.seconds) s")
        // A master naming one 4 MB playlist 20,000 times: read once.
        let big = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n" + String(repeating: "# a comment line of some length to make the playlist large\n", count: 70_000)
        try scratch.write("media.m3u8", Data(big.utf8))
        let master = "#EXTM3U\n" + String(repeating: "#EXT-X-STREAM-INF:BANDWIDTH=1\nmedia.m3u8\n", count: 20_000)
        try scratch.write("master.m3u8", Data(master.utf8))
        let many = try Self.doctor(scratch.file("master.m3u8"))
        #expect(many.status == 0, "\(many.output.prefix(2000))")
        #expect(many.seconds < 10, "\(many.seconds) s")
        // Over 16 MiB: a typed error (65), not a cut.
        let over = try Scratch()
        #expect(FileManager.default.createFile(atPath: over.file("x.m3u8"), contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: over.file("x.m3u8")))
        try handle.write(contentsOf: Data("#EXTM3U\n".utf8))
        try handle.truncate(atOffset: (16 << 20) + 1)
        try handle.close()
        let tooLarge = try CLIRunner.run(["doctor", over.file("x.m3u8")])
        #expect(tooLarge.status == 65 && tooLarge.stderr.contains("nalu: error:") && tooLarge.stderr.contains("16777216"), "\(tooLarge.stderr)")
        // A single-file package of 1 s segments is read by its byte ranges.
        let single = try Scratch()
        let (singleDir, singleRun) = try PackageCommandTests.package([PackageCommandTests.realWorld("phone.mp4")],
                                                                     ["--hls", "--single-file", "--segment-duration", "1"], in: single)
        #expect(singleRun.status == 0, "\(singleRun.stderr)")
        let ranges = try Self.doctor(singleDir + "/v0.m3u8")
        #expect(ranges.status == 0 && ranges.codes.isEmpty, "\(ranges.output)")
        #expect(ranges.seconds < 5, "\(ranges.seconds) s")
    }

    /// Item 24: control characters from a playlist's URIs are escaped in the text output.
    @Test func controlCharactersAreEscaped() throws {
        let scratch = try Scratch()
        try scratch.write("v.m3u8", Data(Self.mediaPlaylist([("4", "\u{1B}]0;owned\u{07}\u{1B}[2Jseg.ts")]).utf8))
        let run = try CLIRunner.run(["doctor", scratch.file("v.m3u8")])
        #expect(run.status == 3, "\(run.stdout)")
        #expect(!run.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("\\u001b]0;owned\\u0007\\u001b[2Jseg.ts"), "\(run.stdout)")
    }
}
