import Foundation
import NALU
import NALUMedia
import Testing

/// ``MediaSource/interlace(options:)`` (issue 41 item 15) on real streams: the H.264 ones give
/// the field order ffprobe reports (`field_order`: interlaced exactly when it says `tt` or
/// `bb`), x265's field pictures are separate fields (ffprobe reports progressive half-height
/// pictures at the field rate: its parser reads no field order there). The source stays
/// readable afterwards (its single pass untouched).
@Suite struct InterlaceDetectionTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture(name) }

    static func ffprobeFieldOrder(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=field_order", "-of", "csv=p=0", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test(arguments: ["interlaced/avc_480i_tff.mp4", "interlaced/avc_576i_bff.ts", "interlaced/avc_1080i_tff.mp4",
                      "avc_interlaced.mp4", "avc_interlaced.h264", "avc_main.mp4", "avc_high_bframes.h264", "ts_avc_aac.ts"])
    func h264MatchesFFprobe(name: String) throws {
        let path = Self.fixture(name)
        let source = try MediaSource(path: path)
        let interlace = try source.interlace()
        let expected = try Self.ffprobeFieldOrder(path)
        #expect(["tt", "bb", "progressive"].contains(expected), "\(name): ffprobe says \(expected)")
        #expect(interlace?.fieldOrder.rawValue ?? "progressive" == expected, "\(name): \(interlace.map(String.init(describing:)) ?? "progressive")")
        if let interlace { #expect(interlace.layout == .interleavedFrames) }
        // Still readable from the start: every NAL unit of the stream.
        var count = 0
        try source.forEachNALUnit { _ in count += 1 }
        #expect(count > 0)
    }

    @Test func hevcFieldPictures() throws {
        let interlace = try MediaSource(path: Self.fixture("interlaced/hevc_fields_tff.h265")).interlace()
        #expect(interlace == Interlace(fieldOrder: .topFieldFirst, layout: .separateFields))
        for name in ["hevc_main.mp4", "hevc_open_gop.h265", "ts_hevc_aac.ts"] {
            #expect(try MediaSource(path: Self.fixture(name)).interlace() == nil, "\(name)")
        }
    }
}
