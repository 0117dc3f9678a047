import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Real content through the real libraries, checked with the core's readers and with ffmpeg.
@Suite struct BackendEncodeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var codec: Codec
        var pixelFormat: PixelFormat = .i420
        var preset = "ultrafast"
        var profile: String?
        var bFrames: Int?
        var gop = 12
        var rateControl: RateControl = .bitrate(400_000)
        var outputFormat: StreamFormat = .annexB
        var expectedProfileIdc: Int
        var expectsB: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "x264 baseline, no B", codec: .h264, profile: "baseline", bFrames: 0, gop: 10, expectedProfileIdc: 66, expectsB: false),
        Case(name: "x264 high, 3 B (veryfast)", codec: .h264, preset: "veryfast", bFrames: 3, gop: 15, expectedProfileIdc: 100, expectsB: true),
        Case(name: "x264 main crf, NV12, 2 B", codec: .h264, pixelFormat: .nv12, profile: "main", bFrames: 2, gop: 8, rateControl: .crf(26), expectedProfileIdc: 77, expectsB: true),
        Case(name: "x264 high10 qp, 10-bit", codec: .h264, pixelFormat: .yuv420p10le, bFrames: 0, gop: 12, rateControl: .qp(30), expectedProfileIdc: 110, expectsB: false),
        // ultrafast turns off 8x8 transforms and x264 signals the lowest profile the stream fits:
        // Main, although High was applied.
        Case(name: "x264 length-prefixed", codec: .h264, bFrames: 2, gop: 12, outputFormat: .lengthPrefixed, expectedProfileIdc: 77, expectsB: true),
        Case(name: "x265 main, no B", codec: .hevc, bFrames: 0, gop: 10, expectedProfileIdc: 1, expectsB: false),
        Case(name: "x265 main, 4 B (veryfast)", codec: .hevc, preset: "veryfast", bFrames: 4, gop: 16, expectedProfileIdc: 1, expectsB: true),
        Case(name: "x265 main10 crf, 10-bit", codec: .hevc, pixelFormat: .yuv420p10le, bFrames: 3, gop: 12, rateControl: .crf(30), expectedProfileIdc: 2, expectsB: true),
        Case(name: "x265 NV12 input", codec: .hevc, pixelFormat: .nv12, bFrames: 0, gop: 12, expectedProfileIdc: 1, expectsB: false),
        // 4:2:2 and 4:4:4 (issue 17): High 4:2:2 (122), High 4:4:4 Predictive (244), HEVC RExt (4).
        Case(name: "x264 high422, 4:2:2", codec: .h264, pixelFormat: .yuv422p, bFrames: 0, gop: 12, rateControl: .qp(24), expectedProfileIdc: 122, expectsB: false),
        Case(name: "x264 high444, 4:4:4 10-bit, 2 B", codec: .h264, pixelFormat: .yuv444p10le, bFrames: 2, gop: 12, expectedProfileIdc: 244, expectsB: true),
        Case(name: "x265 main422-10, 4:2:2 10-bit", codec: .hevc, pixelFormat: .yuv422p10le, bFrames: 0, gop: 12, expectedProfileIdc: 4, expectsB: false),
        Case(name: "x265 main444-8, 4:4:4, 3 B", codec: .hevc, pixelFormat: .yuv444p, bFrames: 3, gop: 12, rateControl: .crf(28), expectedProfileIdc: 4, expectsB: true),
    ]

    static func factory(for codec: Codec) -> any EncoderBackendFactory {
        codec == .h264 ? X264BackendFactory() : X265BackendFactory()
    }

    @Test(arguments: cases)
    func encodesAndParses(_ testCase: Case) throws {
        let frames = 40
        var configuration = EncoderConfiguration(codec: testCase.codec, width: 160, height: 96)
        configuration.pixelFormat = testCase.pixelFormat
        configuration.preset = testCase.preset
        configuration.profile = testCase.profile
        configuration.bFrames = testCase.bFrames
        configuration.gopLength = testCase.gop
        configuration.sceneCutDetection = false
        configuration.rateControl = testCase.rateControl
        configuration.outputFormat = testCase.outputFormat
        configuration.threads = 1
        let (run, session) = try encodePattern(configuration, factory: Self.factory(for: testCase.codec), frames: frames)

        expectEveryFrameOnce(run, frames: frames)
        #expect(session.statistics.backendsCreated == 1)
        let summary = try StreamInspector.inspect(run.stream, codec: testCase.codec, format: testCase.outputFormat)
        #expect(summary.accessUnits.count == frames)
        #expect(summary.profileIdc == testCase.expectedProfileIdc)
        #expect(summary.width == 160)
        #expect(summary.height == 96)
        #expect(summary.bitDepth == testCase.pixelFormat.bitDepth)
        #expect(summary.description?.chromaFormatIdc == testCase.pixelFormat.chromaSubsampling.chromaFormatIdc)
        // Keyframes exactly every GOP (scene-cut detection off), in display order.
        let keyframePTS = run.packets.filter { $0.keyframe == .idr }.map(\.pts).sorted()
        #expect(keyframePTS == stride(from: 0, to: Int64(frames), by: testCase.gop).map { $0 })
        #expect(summary.idrIndices.count == keyframePTS.count)
        #expect(summary.accessUnits.first?.keyframe == .idr)
        #expect(summary.accessUnits.first?.hasParameterSets == true)
        #expect(summary.idrIndices.allSatisfy { summary.accessUnits[$0].hasParameterSets })
        #expect((summary.bPictureCount > 0) == testCase.expectsB)
        #expect(run.packets.contains { $0.pictureType == .b } == testCase.expectsB)
        // The packets' own keyframe flags agree with the bitstream.
        #expect(run.packets.indices.filter { run.packets[$0].keyframe == .idr } == summary.idrIndices)
        // Parameter sets from the encoder headers.
        let types = session.parameterSets.compactMap(\.first).map { testCase.codec == .h264 ? $0 & 0x1F : ($0 >> 1) & 0x3F }
        #expect(types == (testCase.codec == .h264 ? [7, 8] : [32, 33, 34]))

        if testCase.outputFormat == .annexB {
            #expect(try FFmpeg.decodedFrameCount(run.stream, codec: testCase.codec) == frames)
        }
    }

    @Test func defaultsFollowTheMobilePipeline() throws {
        let configuration = EncoderConfiguration(codec: .hevc, width: 1280, height: 720)
        #expect(configuration.frameRate == Rational(30, 1))
        #expect(configuration.keyframeInterval == 150)
        #expect(configuration.rateControl == .bitrate(5_000_000))
        #expect(configuration.bFrames == nil)
        #expect(configuration.effectiveProfile == "main")
        #expect(EncoderConfiguration(codec: .h264, width: 2, height: 2).effectiveProfile == "high")
        var capped = configuration
        capped.maxKeyframeIntervalSeconds = 2
        #expect(capped.keyframeInterval == 60)
        capped.frameRate = Rational(30000, 1001)
        capped.maxKeyframeIntervalSeconds = nil
        #expect(capped.keyframeInterval == 150)
    }

    @Test func hevcDefaultSettingsEncodeWithBFrames() throws {
        var configuration = EncoderConfiguration(codec: .hevc, width: 160, height: 96)
        configuration.preset = "ultrafast"
        let (run, _) = try encodePattern(configuration, factory: X265BackendFactory(), frames: 30)
        expectEveryFrameOnce(run, frames: 30)
        let summary = try StreamInspector.inspect(run.stream, codec: .hevc)
        #expect(summary.bPictureCount > 0)
        #expect(summary.idrIndices == [0])
    }
}
