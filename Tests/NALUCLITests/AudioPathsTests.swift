import Foundation
import Testing

/// Audio on every path that can hold it (issue 31, item 3), on the real-world clips
/// (Scripts/make-realworld-fixtures.sh): a transport stream's AAC into MP4 and into MPEG-TS, and
/// through trims; `edit` copying an MP4's audio; `concat` joining clips whose AAC differs only
/// in its bitrate fields into one continuous track that GStreamer plays through. Each checked
/// by content: A/V sync with Scripts/avsync.py (5 ms; 25 ms across joins), the audio
/// packets byte for byte where they are copied, GStreamer's and ffmpeg's decoded durations.
@Suite struct AudioPathsTests {
    static let realworld = CLIRunner.fixtures.appendingPathComponent("realworld")
    static func clip(_ name: String) -> String { realworld.appendingPathComponent(name).path }

    static let avsync = CLIRunner.repositoryRoot.appendingPathComponent("Scripts/avsync.py").path

    /// The A/V shift of `output` against `source` in ms, measured by content at `at` seconds.
    static func shift(_ source: String, _ output: String, at: Double = 1) throws -> Double {
        let result = try runTool("python3", [avsync, source, output, "--at", "\(at)"])
        #expect(result.status == 0, "avsync: \(result.stderr)")
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ms", with: "")
        return try #require(Double(text), "avsync said \(result.stdout)")
    }

    /// MD5 of each audio packet, without ADTS headers (`aac_adtstoasc` for a transport stream).
    static func audioPackets(_ path: String, adts: Bool = false) throws -> [String] {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-c", "copy"]
                                 + (adts ? ["-bsf:a", "aac_adtstoasc"] : []) + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        // stream, dts, pts, duration, size, hash[, side data]: the hash of the packet's bytes.
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count >= 6 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    static func codecs(_ path: String) throws -> Set<String> {
        let result = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        // (ffprobe's csv adds empty fields after some streams' names: "ac3,".)
        return Set(result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "," }) })
    }

    /// Seconds of audio GStreamer decodes (`qtdemux ! aacparse ! avdec_aac`, as mono S16 at the
    /// stream's rate): what a GStreamer-based player plays.
    static func gstreamerSeconds(_ path: String, rate: Int = 48_000) throws -> Double {
        let scratch = try Scratch()
        let raw = scratch.file("audio.raw")
        let result = try runTool("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", "qtdemux", "!", "aacparse", "!", "avdec_aac", "!",
                                                    "audioconvert", "!", "audio/x-raw,format=S16LE,channels=1", "!", "filesink", "location=\(raw)"])
        #expect(result.status == 0, "gst-launch: \(result.stderr)")
        let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? nil
        return Double(size ?? 0) / 2 / Double(rate)
    }

    /// Seconds of audio ffmpeg decodes (edit lists applied).
    static func ffmpegSeconds(_ path: String, rate: Int = 48_000) throws -> Double {
        let result = try runToolData("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"])
        #expect(result.status == 0)
        return Double(result.stdout.count) / 2 / Double(rate)
    }

    @Test func transportStreamAACIntoMP4() throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.ts")
        let output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["convert", source, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(try Self.codecs(output) == ["h264", "aac"])
        // Every ADTS frame's payload is an MP4 sample, byte for byte, with an esds ffmpeg reads.
        let packets = try Self.audioPackets(source, adts: true)
        #expect(packets.count > 400)
        #expect(try Self.audioPackets(output) == packets)
        #expect(abs(try Self.shift(source, output, at: 8)) <= 5)
        // GStreamer plays the whole audio (the TS's 10 s, priming hidden by the edit list).
        #expect(try Self.gstreamerSeconds(output) >= 9.9)
        #expect(abs(try Self.ffmpegSeconds(output) - 10) < 0.03)
    }

    /// Fragmented output writes `moov` first: the edit that shows the first picture at time 0 comes
    /// from the first PES time stamps (it was missing: the audio led by 66.7 ms).
    @Test func transportStreamAACIntoFragmentedMP4() throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.ts")
        let output = scratch.file("out.mp4")
        let run = try CLIRunner.run(["convert", source, "--fragmented", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.codecs(output) == ["h264", "aac"])
        #expect(abs(try Self.shift(source, output, at: 3)) <= 5)
    }

    @Test func transportStreamAACIntoTransportStream() throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.ts")
        let output = scratch.file("out.ts")
        let run = try CLIRunner.run(["convert", source, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.codecs(output) == ["h264", "aac"])
        #expect(try Self.audioPackets(output, adts: true) == Self.audioPackets(source, adts: true))
        #expect(abs(try Self.shift(source, output, at: 8)) <= 5)
    }

    @Test(arguments: ["cut.mp4", "cut.ts"]) func trimOfATransportStreamKeepsTheAAC(_ name: String) throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.ts")
        let output = scratch.file(name)
        let run = try CLIRunner.run(["trim", source, "--start", "2.5", "--end", "5.5", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("not carried"))
        #expect(try Self.codecs(output) == ["h264", "aac"])
        #expect(abs(try Self.shift(source, output, at: 2.5)) <= 5)
        if name.hasSuffix(".mp4") {
            // The edit list presents exactly the 3 s of the video.
            #expect(abs(try Self.ffmpegSeconds(output) - 3) < 0.03)
            #expect(try Self.gstreamerSeconds(output) >= 2.95)
        }
    }

    @Test func editCopiesTheAudio() throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.mp4")
        for name in ["out.mp4", "out.ts"] {
            let output = scratch.file(name)
            let run = try CLIRunner.run(["edit", source, "--color-primaries", "bt709", "--color-transfer", "bt709", "--color-space", "bt709", "-o", output])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "")
            #expect(try Self.codecs(output) == ["h264", "aac"])
            #expect(try Self.audioPackets(output, adts: name.hasSuffix(".ts")) == Self.audioPackets(source))
            #expect(abs(try Self.shift(source, output, at: 3)) <= 5)
        }
        // Annex-B cannot hold it: the video is written, exit 2, unless --no-audio.
        let annexB = try CLIRunner.run(["edit", source, "--color-primaries", "bt709", "-o", scratch.file("out.h264")])
        #expect(annexB.status == 2)
        #expect(annexB.stderr.contains("(soun, mp4a) not carried"))
        #expect(FileManager.default.fileExists(atPath: scratch.file("out.h264")))
        let chosen = try CLIRunner.run(["edit", source, "--color-primaries", "bt709", "--no-audio", "-o", scratch.file("video.h264")])
        #expect(chosen.status == 0)
        #expect(chosen.stderr == "")
    }

    /// Two ordinary ffmpeg clips (the phone clip's halves, 0–4 s and 4–8 s, their video copied,
    /// their audio encoded by ffmpeg at 64 and 96 kbit/s: `esds` and `btrt` bitrates differ)
    /// join into one continuous AAC track with one edit; GStreamer plays all of it; the audio
    /// after the join stays with the pictures. (The halves are cut frame-exactly by `nalu trim`
    /// first: ffmpeg's own `-t 4 -c copy` keeps two B-frame-tail pictures past 4 s, so its
    /// halves overlap and no join of them can be continuous with the source.)
    @Test func concatJoinsAudioThatDiffersInBitrateOnly() throws {
        let scratch = try Scratch()
        let source = Self.clip("phone.mp4")
        let first = scratch.file("a.mp4"), second = scratch.file("b.mp4")
        for (path, range) in [(first, ["--start", "0", "--end", "4"]), (second, ["--start", "4", "--end", "8"])] {
            let cut = scratch.file("cut-" + (path == first ? "a" : "b") + ".mp4")
            let trimmed = try CLIRunner.run(["trim", source] + range + ["-o", cut])
            #expect(trimmed.status == 0, "\(trimmed.stderr)")
            let made = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", cut, "-c:v", "copy", "-c:a", "aac", "-b:a", path == first ? "64k" : "96k", "-y", path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        for (format, name) in [("mp4", "joined.mp4"), ("ts", "joined.ts")] {
            let output = scratch.file(name)
            let run = try CLIRunner.run(["concat", first, second, "-o", output])
            #expect(run.status == 0, "\(format): \(run.stderr)")
            #expect(run.stderr == "", "\(format)")
            #expect(try Self.codecs(output) == ["h264", "aac"])
            // Before the join (4 s) and after it.
            for at in format == "mp4" ? [3.5, 5.0] : [5.0] {
                #expect(abs(try Self.shift(source, output, at: at)) <= 25, "\(format) at \(at) s")
            }
        }
        let joined = scratch.file("joined.mp4")
        // Every sample of both clips, byte for byte, but the second's priming frame (and at most
        // one frame more at the join, where the first clip's short last frame would overlap).
        let pieces = try [first, second].map { try Self.audioPackets($0) }
        let packets = try Self.audioPackets(joined)
        let joins = [(0, 1), (1, 1), (0, 2), (1, 2)].filter { packets == Array(pieces[0].dropLast($0.0)) + Array(pieces[1].dropFirst($0.1)) }
        #expect(joins.count == 1, "\(packets.count) packets from \(pieces.map(\.count))")
        let total = try [first, second].map { try Self.ffmpegSeconds($0) }.reduce(0, +)
        #expect(abs(try Self.ffmpegSeconds(joined) - total) <= 1024.0 / 48_000)
        #expect(abs(try Self.gstreamerSeconds(joined) - total) <= 2 * 1024.0 / 48_000)
    }
}
