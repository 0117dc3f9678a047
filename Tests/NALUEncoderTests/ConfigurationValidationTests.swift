import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Bad settings fail when the session is created, before any frame, with a typed error.
@Suite struct ConfigurationValidationTests {
    static func h264(_ change: (inout EncoderConfiguration) -> Void) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: .h264, width: 160, height: 96)
        change(&configuration)
        return configuration
    }

    static func hevc(_ change: (inout EncoderConfiguration) -> Void) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: .hevc, width: 160, height: 96)
        change(&configuration)
        return configuration
    }

    func expectRejected(_ configuration: EncoderConfiguration, factory: any EncoderBackendFactory,
                        code: EncoderError.Code, field: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try EncoderSession(configuration: configuration, factory: factory)
            Issue.record("accepted \(configuration)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func rejectsBFramesWithBaseline() {
        expectRejected(Self.h264 { $0.profile = "baseline"; $0.bFrames = 2 }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "bFrames")
    }

    @Test func rejectsOddSizes() {
        expectRejected(Self.h264 { $0.width = 161 }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "size")
        expectRejected(Self.hevc { $0.height = 95 }, factory: X265BackendFactory(), code: .invalidConfiguration, field: "size")
        expectRejected(Self.hevc { $0.width = 0 }, factory: X265BackendFactory(), code: .invalidConfiguration, field: "size")
    }

    @Test func rejectsUnknownNames() {
        expectRejected(Self.h264 { $0.preset = "warp9" }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "preset")
        expectRejected(Self.hevc { $0.tune = "film" }, factory: X265BackendFactory(), code: .invalidConfiguration, field: "tune")
        expectRejected(Self.h264 { $0.profile = "main10" }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "profile")
        expectRejected(Self.hevc { $0.profile = "high" }, factory: X265BackendFactory(), code: .invalidConfiguration, field: "profile")
        expectRejected(Self.h264 { $0.level = "7.7" }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "level")
    }

    @Test func rejectsConflicts() {
        expectRejected(Self.h264 { $0.pixelFormat = .yuv420p10le; $0.profile = "high" }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "profile")
        expectRejected(Self.hevc { $0.pixelFormat = .yuv420p10le; $0.profile = "main" }, factory: X265BackendFactory(), code: .invalidConfiguration, field: "profile")
        expectRejected(Self.h264 { $0.rateControl = .qp(0) }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "qp")
        expectRejected(Self.h264 { $0.vbvMaxBitrate = 1_000_000 }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "vbv")
        expectRejected(Self.h264 { $0.rateControl = .bitrate(10) }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "bitrate")
        expectRejected(Self.h264 { $0.frameRate = Rational(0, 1) }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "frameRate")
        expectRejected(Self.h264 { $0.bFrames = 17 }, factory: X264BackendFactory(), code: .invalidConfiguration, field: "bFrames")
    }

    @Test func rejectsTheWrongCodec() {
        expectRejected(Self.hevc { _ in }, factory: X264BackendFactory(), code: .unsupported, field: "codec")
        expectRejected(Self.h264 { _ in }, factory: X265BackendFactory(), code: .unsupported, field: "codec")
    }

    @Test func levelsParse() throws {
        #expect(try Self.h264 { $0.level = "4.1" }.levelIdc() == 41)
        #expect(try Self.h264 { $0.level = "41" }.levelIdc() == 41)
        #expect(try Self.h264 { $0.level = "4" }.levelIdc() == 40)
        #expect(try Self.h264 { $0.level = "1b" }.levelIdc() == 9)
        #expect(try Self.h264 { $0.level = nil }.levelIdc() == nil)
    }

    @Test func levelReachesTheStream() throws {
        var configuration = Self.h264 { $0.level = "3.1"; $0.preset = "ultrafast" }
        configuration.bFrames = 0
        let (run, _) = try encodePattern(configuration, factory: X264BackendFactory(), frames: 3)
        #expect(try StreamInspector.inspect(run.stream, codec: .h264).levelIdc == 31)
        var hevc = Self.hevc { $0.level = "4.1"; $0.preset = "ultrafast" }
        hevc.bFrames = 0
        let (hevcRun, _) = try encodePattern(hevc, factory: X265BackendFactory(), frames: 3)
        #expect(try StreamInspector.inspect(hevcRun.stream, codec: .hevc).levelIdc == 123)
    }
}
