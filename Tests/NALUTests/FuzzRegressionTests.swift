import Foundation
import Testing
import NALU
import FuzzHarness

/// Replays every input the fuzzers found (`Tests/Fixtures/fuzz-regressions/<target>/`), and the
/// real fixtures, through the same harness the libFuzzer target runs (`Fuzz/Harness`): each must
/// end in a value or a typed error, with every checked property holding. A trap kills the test
/// process, which fails the run.
@Suite struct FuzzRegressionTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let regressions = repositoryRoot.appendingPathComponent("Tests/Fixtures/fuzz-regressions")

    static let targets = ["annexb", "lengthprefixed", "avc-ps", "hevc-ps", "records", "access-units", "convert", "y4m", "mp4", "ts", "ps-write", "lent", "hls", "dash", "package-doctor", "package", "decoder-feed", "ts-audio", "tracks", "reader", "interlace", "rtp-depacketize", "sdp", "rtsp-response", "rtcp", "rtp-aac", "edit-options", "concat-ts"]

    static func files(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test func everyRegressionDirectoryHasAHarness() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path).filter { !$0.hasPrefix(".") }
        #expect(!directories.isEmpty)
        for directory in directories {
            #expect(FuzzHarnesses.all[directory] != nil, "no harness for \(directory)")
            #expect(!Self.files(in: Self.regressions.appendingPathComponent(directory)).isEmpty, "\(directory) is empty")
        }
        #expect(Set(Self.targets) == Set(FuzzHarnesses.all.keys))
    }

    /// The targets with regression inputs (every directory holds at least one: see above).
    static let targetsWithRegressions: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: regressions.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test(arguments: targetsWithRegressions) func replaysRegressionInputs(target: String) throws {
        let harness = try #require(FuzzHarnesses.all[target])
        for file in Self.files(in: Self.regressions.appendingPathComponent(target)) {
            let bytes = Array(try Data(contentsOf: file))
            #expect(throws: Never.self, "\(target)/\(file.lastPathComponent)") { try harness(bytes) }
        }
    }

    /// The real fixtures through every harness, framed the way the seed corpora are
    /// (Fuzz/make-seeds.py): the properties hold on real streams and records too.
    @Test(arguments: Fixture.all) func replaysFixtures(_ fixture: Fixture) throws {
        let stream = try fixture.bytes(fixture.streamExtension)
        let lengthPrefixed = try fixture.bytes("lp")
        let record = try fixture.bytes(fixture.codec == .h264 ? "avcC" : "hvcC")
        let codecBit: UInt8 = fixture.codec == .h264 ? 0 : 1
        let runs: [(String, [UInt8])] = [
            ("annexb", stream),
            (fixture.codec == .h264 ? "avc-ps" : "hevc-ps", stream),
            ("ps-write", [codecBit] + stream),
            ("access-units", [codecBit] + stream),
            ("interlace", [codecBit] + stream),
            ("decoder-feed", [codecBit] + stream),
            ("convert", [codecBit] + stream),
            ("convert", [codecBit | 8] + lengthPrefixed),
            ("convert", [codecBit | 8 | 0x20 | 0x40] + lengthPrefixed),
            ("lent", [codecBit] + stream),
            ("lent", [codecBit | 8] + lengthPrefixed),
            ("lengthprefixed", [2] + lengthPrefixed),
            ("records", [7] + record),
            ("mp4", [0] + (try fixture.bytes("mp4"))),
            ("mp4", [1 | codecBit << 1] + stream),
            ("mp4", [1 | codecBit << 1 | 4 | 16] + stream),
            ("mp4", [1 | codecBit << 1 | 32] + stream),
            ("reader", [codecBit] + stream),
            ("reader", [codecBit | 4 | 8 | 3 << 4] + stream),
            ("reader", [codecBit] + (try fixture.bytes("mp4"))),
        ]
        for (target, bytes) in runs {
            let harness = try #require(FuzzHarnesses.all[target])
            #expect(throws: Never.self, "\(target)") { try harness(bytes) }
        }
    }

    /// The MP4 fixtures ffmpeg wrote (B-frames, negative composition offsets, faststart, MOV,
    /// an audio track, fragments, hvc1) through the mp4 harness's reader, whole and cut short.
    @Test(arguments: ["mp4_avc_audio.mp4", "mp4_avc_bframes.mp4", "mp4_avc_faststart.mp4", "mp4_avc_frag.mp4",
                      "mp4_avc_negcts.mp4", "mp4_hevc_bframes.mp4", "mp4_hevc_frag.mp4", "mp4_hevc_hvc1.mp4", "mov_avc.mov"])
    func replaysMP4Fixtures(_ name: String) throws {
        let harness = try #require(FuzzHarnesses.all["mp4"])
        let file = Array(try Data(contentsOf: Self.repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)")))
        for length in [file.count, file.count - 1, file.count * 2 / 3, file.count / 2, 1000, 100, 9] {
            #expect(throws: Never.self, "\(name) cut to \(length) bytes") { try harness([0] + file.prefix(length)) }
        }
    }

    /// The MP4 and transport stream fixtures through the reader harness, whole, cut short and
    /// with bytes overwritten at data-derived places (damaged lengths, boxes, packets): the
    /// reader's items stay those of the one-thread walk, whatever the damage.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_frag.mp4", "mp4_avc_audio.mp4", "ts_avc_aac.ts"])
    func replaysDamagedFilesThroughTheReader(_ name: String) throws {
        let harness = try #require(FuzzHarnesses.all["reader"])
        let file = Array(try Data(contentsOf: Self.repositoryRoot.appendingPathComponent("Tests/Fixtures/\(name)")))
        for length in [file.count, file.count - 1, file.count * 2 / 3, file.count / 2, 1000] {
            #expect(throws: Never.self, "\(name) cut to \(length) bytes") { try harness([0] + file.prefix(length)) }
        }
        for seed in 1...6 {
            var damaged = file
            for k in 0..<8 {
                let position = (seed * 7919 + k * 104_729) % damaged.count
                damaged[position] ^= UInt8(truncatingIfNeeded: 0x5A &+ seed &* 31 &+ k)
            }
            let mode = UInt8(seed & 1) << 1 | UInt8(seed & 2) << 1
            #expect(throws: Never.self, "\(name) damaged (seed \(seed))") { try harness([mode] + damaged) }
        }
    }

    /// Found by the annexb target (ASan heap-buffer-overflow): the word-at-a-time search examined
    /// candidates up to the last byte of a 16-byte block and read two bytes past the end of the
    /// buffer, so a buffer ending in `00 00` followed in memory by `01` reported a start code that
    /// is not in it.
    @Test func startCodeSearchStopsAtTheEndOfTheBuffer() {
        for length in 16...40 {
            var bytes = [UInt8](repeating: 0xAA, count: length + 1)
            bytes[length - 2] = 0
            bytes[length - 1] = 0
            bytes[length] = 1
            let (inside, whole) = bytes.withUnsafeBytes { buffer in
                (AnnexB.findStartCode(in: UnsafeRawBufferPointer(rebasing: buffer[..<length]), from: 0),
                 AnnexB.findStartCode(in: buffer, from: 0))
            }
            #expect(inside == nil, "length \(length)")
            #expect(whole == length - 2, "length \(length)")
        }
    }
}
