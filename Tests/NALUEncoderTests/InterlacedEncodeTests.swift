import Foundation
import NALU
import NALUEncoder
import NALUOpenH264
import NALUX264
import NALUX265
import Testing

/// ``EncoderConfiguration/interlace`` (issue 41 item 15) through the real libraries: x264 codes
/// interleaved frames MBAFF with the field order asked (ffprobe's `interlaced_frame` and
/// `top_field_first` of every decoded frame), x265 codes separate fields as field pictures
/// (GStreamer's h265parse reports the frame height, twice the pictures'), and every backend
/// that cannot code a layout refuses it before any frame instead of writing progressive pictures.
@Suite struct InterlacedEncodeTests {
    static func configuration(_ codec: Codec, _ interlace: Interlace?, width: Int = 176, height: Int = 144) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: codec, width: width, height: height)
        configuration.rateControl = .crf(23)
        configuration.preset = "ultrafast"
        configuration.gopLength = 12
        configuration.threads = 1
        configuration.interlace = interlace
        return configuration
    }

    /// Runs a tool, returning its status, standard output and standard error.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    static func file(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-interlaced-\(UUID().uuidString)-\(name)")
        try Data(bytes).write(to: url)
        return url
    }

    /// ffprobe's `interlaced_frame|top_field_first` of every decoded frame of an H.264 stream.
    static func frameFlags(_ stream: [UInt8]) throws -> [String] {
        let url = try file(stream, "s.h264")
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run("ffprobe", ["-v", "error", "-f", "h264", "-show_entries", "frame=interlaced_frame,top_field_first",
                                         "-of", "csv=p=0", url.path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") }
    }

    @Test(arguments: Interlace.FieldOrder.allCases)
    func x264CodesInterleavedFramesWithTheFieldOrder(order: Interlace.FieldOrder) throws {
        let interlace = Interlace(fieldOrder: order, layout: .interleavedFrames)
        let (run, _) = try encodePattern(Self.configuration(.h264, interlace), factory: X264BackendFactory(), frames: 24)
        expectEveryFrameOnce(run, frames: 24)
        let flags = try Self.frameFlags(run.stream)
        #expect(flags.count == 24)
        #expect(Set(flags) == [order == .topFieldFirst ? "1,1" : "1,0"], "\(Set(flags))")
        // The SPS allows field coding, MBAFF; the detector reads the field order back.
        var detector = InterlaceDetector(codec: .h264)
        run.stream.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { detector.add(Array(buffer[$0])[...]) }
        }
        #expect(detector.interlace == interlace)
        #expect(detector.avcFieldOrderName == order.rawValue)
        // The same settings without interlace: progressive frames, as ffprobe sees them.
        let (progressive, _) = try encodePattern(Self.configuration(.h264, nil), factory: X264BackendFactory(), frames: 6)
        #expect(Set(try Self.frameFlags(progressive.stream)) == ["0,0"])
    }

    @Test func x265CodesSeparateFieldsAsFieldPictures() throws {
        let interlace = Interlace(fieldOrder: .bottomFieldFirst, layout: .separateFields)
        let (run, _) = try encodePattern(Self.configuration(.hevc, interlace, width: 176, height: 72), factory: X265BackendFactory(), frames: 24)
        expectEveryFrameOnce(run, frames: 24)
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .hevc) == 24)
        var detector = InterlaceDetector(codec: .hevc)
        run.stream.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { detector.add(Array(buffer[$0])[...]) }
        }
        #expect(detector.interlace == interlace)
        // GStreamer's h265parse gives a field-coded stream (field_seq_flag 1) the frame's height.
        let url = try Self.file(run.stream, "s.h265")
        defer { try? FileManager.default.removeItem(at: url) }
        let gst = try Self.run("gst-launch-1.0", ["-v", "filesrc", "location=\(url.path)", "!", "h265parse", "!", "fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")
        #expect(gst.stdout.contains("height=(int)144"), "\(gst.stdout.split(separator: "\n").filter { $0.contains("caps") }.first ?? "")")
    }

    @Test func backendsRefuseWhatTheyCannotCode() throws {
        let frames = Interlace(fieldOrder: .topFieldFirst, layout: .interleavedFrames)
        let fields = Interlace(fieldOrder: .topFieldFirst, layout: .separateFields)
        var openH264 = Self.configuration(.h264, frames)
        openH264.rateControl = .bitrate(500_000)
        let cases: [(any EncoderBackendFactory, EncoderConfiguration)] = [
            (OpenH264BackendFactory(), openH264),
            (X264BackendFactory(), Self.configuration(.h264, fields)),
            (X265BackendFactory(), Self.configuration(.hevc, frames)),
        ]
        for (factory, configuration) in cases {
            #expect(throws: EncoderError.self, "\(factory.name)") { try factory.validate(configuration) }
            do {
                try factory.validate(configuration)
            } catch {
                #expect(error.code == .unsupported && error.field == "interlace", "\(factory.name): \(error)")
            }
        }
        var baseline = Self.configuration(.h264, frames)
        baseline.profile = "baseline"
        baseline.bFrames = 0
        #expect { try baseline.validate() } throws: { ($0 as? EncoderError)?.field == "profile" }
        var oddHeight = Self.configuration(.h264, frames, height: 146)
        oddHeight.profile = "high"
        #expect { try oddHeight.validate() } throws: { ($0 as? EncoderError)?.field == "size" }
    }
}
