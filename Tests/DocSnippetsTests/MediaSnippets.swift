// Sources/NALUMedia/Documentation.docc (CuttingAndJoining.md, Packaging.md): the examples, compiled.
import NALU
import NALUAVCodec
import NALUIO
import NALUMP4
import NALUMedia
import NALUPackager
import NALUSmartCut
import NALUX264

enum MediaSnippets {
    /// Docs/core-api.md: the report `nalu info --json` prints, from the library.
    static func infoReport() throws {
        let report = try StreamInfoReport(source: try MediaSource(path: "in.mp4"))
        print(report.json.prettyText)                          // byte for byte what `nalu info --json` prints
    }

    static func trim() throws {
        let trimmer = try Trimmer(path: "in.mp4")
        let plan = try trimmer.plan(start: MediaTime(parsing: "1"), end: MediaTime(parsing: "2"))
        let file = try FileSink(path: "cut.mp4")
        _ = try trimmer.writeMP4(plan, output: file, options: MP4MuxerOptions())
        try file.commit()
    }

    static func smartTrim() throws {
        let trimmer = try SmartTrimmer(path: "in.mp4", decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        trimmer.rateControl = .crf(12)
        let file = try FileSink(path: "cut.mp4")
        let report = try trimmer.writeMP4(start: MediaTime(parsing: "12.3"), end: MediaTime(parsing: "71.9"),
                                          output: file, options: MP4MuxerOptions())
        try file.commit()
        print(report.headPictures, report.copiedAccessUnits, report.tailPictures)
    }

    static func smartCutList() throws {
        let list = try SmartCutList(path: "in.mp4", ranges: SmartCutRange.list(parsing: "0:10-0:20,1:05.5-1:30"),
                                    decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        let file = try FileSink(path: "kept.mp4")
        let report = try list.writeMP4(output: file, options: MP4MuxerOptions())
        try file.commit()
        print(report.pictures, report.reencodedPictures, report.copiedAccessUnits)

        // Ranges of several inputs: a.mp4 from 5 s, then the first 10 s of b.mp4.
        let joined = try SmartCutList(pieces: [.init(path: "a.mp4", range: SmartCutRange(parsing: "5-")),
                                               .init(path: "b.mp4", range: SmartCutRange(parsing: "-10"))],
                                      decoder: AVCodecDecoderFactory(), encoder: X264BackendFactory())
        _ = joined
    }

    static func concatenate() throws {
        let joiner = try Concatenator(paths: ["a.mp4", "b.h264"])
        let file = try FileSink(path: "joined.mp4")
        let report = try joiner.writeMP4(output: file, options: MP4MuxerOptions())
        try file.commit()
        print(report.pictures)   // [25, 25]
    }

    static func package() throws {
        let options = PackagerOptions(segmentDuration: Rational(4, 1), hls: true, dash: true)
        let summary = try Packager(directory: "out", options: options).package(["high.mp4", "low.mp4"])
        for track in summary.video { print(track.name, track.codecs, track.peakBandwidth) }
    }

    /// Whether the live input is to stop (a signal handler's flag in a program).
    static var stopRequested: Bool { false }

    static func packageLive() throws {
        var options = PackagerOptions(segmentDuration: Rational(2, 1), hls: true, dash: true)
        options.partDuration = Rational(1, 2)
        options.window = 6
        let input = try LiveInput(path: "-") { stopRequested }
        let summary = try LivePackager(directory: "live", options: options).package(input)   // until the input ends
        print(summary.notes)
    }
}
