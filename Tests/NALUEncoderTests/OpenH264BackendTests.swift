import Foundation
import NALU
import NALUEncoder
import NALUOpenH264
import Testing

/// The OpenH264 backend (issue 17) through EncoderSession: ffmpeg decodes its output with the
/// exact frame count, forced IDRs land where asked (ffprobe's key flags), a failed session is
/// rebuilt, live bitrate changes apply, and settings it cannot honour are refused.
@Suite struct OpenH264BackendTests {
    static func configuration(frames: Int = 30) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: .h264, width: 160, height: 96)
        configuration.gopLength = 30
        configuration.sceneCutDetection = false
        configuration.rateControl = .bitrate(300_000)
        configuration.threads = 1
        return configuration
    }

    /// ffprobe's `key_frame` flag of every decoded frame, in output order.
    static func keyFrameFlags(_ stream: [UInt8]) throws -> [Bool] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-openh264-\(UUID().uuidString).h264")
        try Data(stream).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-f", "h264", "-show_entries", "frame=key_frame", "-of", "csv=p=0", url.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) == "1" }
    }

    @Test func encodesConstrainedBaselineThatFFmpegDecodes() throws {
        let (run, session) = try encodePattern(Self.configuration(), factory: OpenH264BackendFactory(), frames: 45)
        expectEveryFrameOnce(run, frames: 45)
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 45)
        let summary = try StreamInspector.inspect(run.stream, codec: .h264)
        #expect(summary.accessUnits.count == 45)
        // Constrained Baseline: profile_idc 66, no B pictures; a keyframe every 30 frames.
        #expect(summary.profileIdc == 66)
        #expect(summary.bPictureCount == 0)
        #expect(summary.idrIndices == [0, 30])
        #expect(session.parameterSets.count == 2)
        #expect(try Self.keyFrameFlags(run.stream).enumerated().filter(\.element).map(\.offset) == [0, 30])
    }

    @Test func forcedIDRLandsWhereAsked() throws {
        let (run, _) = try encodePattern(Self.configuration(), factory: OpenH264BackendFactory(), frames: 40) { session, index in
            if index == 7 || index == 23 { session.requestKeyframe() }
        }
        expectEveryFrameOnce(run, frames: 40)
        // A forced IDR restarts the 30-frame period (as in x264): the next would be at 53.
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 7, 23])
        #expect(try Self.keyFrameFlags(run.stream).enumerated().filter(\.element).map(\.offset) == [0, 7, 23])
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 40)
    }

    @Test func rebuildsOnInvalidSession() throws {
        let plan = FaultPlan(creationFailures: 2, invalidSessionAtFrame: [7: 1, 20: 2])
        let factory = FaultInjectingBackendFactory(wrapping: OpenH264BackendFactory(), plan: plan)
        let (run, session) = try encodePattern(Self.configuration(), factory: factory, frames: 40)
        expectEveryFrameOnce(run, frames: 40)
        #expect(session.statistics.creationFailures == 2)
        #expect(session.statistics.frameFailures == 3)
        #expect(session.statistics.backendsCreated == 4)
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 7, 20])
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 40)
    }

    @Test func changesTheBitrateLive() throws {
        var configuration = Self.configuration()
        configuration.rateControl = .bitrate(2_000_000)
        var live: [Bool] = []
        let (run, session) = try encodePattern(configuration, factory: OpenH264BackendFactory(), frames: 60) { session, index in
            if index == 30 { live.append(try session.setBitrate(100_000)) }
        }
        expectEveryFrameOnce(run, frames: 60)
        #expect(live == [true])
        #expect(session.statistics.backendsCreated == 1)
        let before = run.packets.filter { (10..<30).contains($0.pts) }.reduce(0) { $0 + $1.bytes.count }
        let after = run.packets.filter { (40..<60).contains($0.pts) }.reduce(0) { $0 + $1.bytes.count }
        #expect(after * 2 < before, "20 frames at 2 Mbit/s: \(before) bytes; at 100 kbit/s: \(after)")
    }

    @Test func nv12AndLengthPrefixedOutput() throws {
        var configuration = Self.configuration()
        configuration.pixelFormat = .nv12
        configuration.outputFormat = .lengthPrefixed
        configuration.rateControl = .qp(24)
        let (run, _) = try encodePattern(configuration, factory: OpenH264BackendFactory(), frames: 12)
        expectEveryFrameOnce(run, frames: 12)
        let summary = try StreamInspector.inspect(run.stream, codec: .h264, format: .lengthPrefixed)
        #expect(summary.accessUnits.count == 12)
        #expect(summary.idrIndices == [0])
    }

    @Test func parameterSetsFollowTheCarriageRule() throws {
        // Annex-B without repetition: only the first packet carries SPS and PPS; ffmpeg decodes all.
        var annexB = Self.configuration()
        annexB.gopLength = 10
        annexB.repeatParameterSets = false
        let (run, _) = try encodePattern(annexB, factory: OpenH264BackendFactory(), frames: 25)
        let withSets = run.packets.indices.filter { !EncoderFraming.parameterSets(EncoderFraming.nalUnits(in: run.packets[$0].bytes, format: .annexB), codec: .h264).isEmpty }
        #expect(withSets == [0])
        #expect(run.packets.filter { $0.keyframe == .idr }.map(\.pts) == [0, 10, 20])
        #expect(try FFmpeg.decodedFrameCount(run.stream, codec: .h264) == 25)
        // Length-prefixed without repetition: out of band, in the avcC record.
        var outOfBand = annexB
        outOfBand.outputFormat = .lengthPrefixed
        let (lpRun, session) = try encodePattern(outOfBand, factory: OpenH264BackendFactory(), frames: 12)
        #expect(lpRun.packets.allSatisfy { EncoderFraming.parameterSets(EncoderFraming.nalUnits(in: $0.bytes, format: .lengthPrefixed), codec: .h264).isEmpty })
        let record = try #require(try session.decoderConfigurationRecord())
        #expect(record.bytes[1] == 66)  // AVCProfileIndication: Baseline
    }

    /// A configuration with one setting OpenH264 cannot honour; the error names that setting.
    static func unhonourable(_ context: String) -> EncoderConfiguration {
        var c = configuration()
        switch context {
        case "bFrames": c.bFrames = 2
        case "crf": c.rateControl = .crf(23)
        case "profile": c.profile = "high"
        case "openGOP": c.openGOP = true
        case "vbv": c.vbvMaxBitrate = 1_000_000; c.vbvBufferSize = 1_000_000
        default: c.tune = "film"
        }
        return c
    }

    @Test(arguments: ["bFrames", "crf", "profile", "openGOP", "vbv", "tune"])
    func refusesWhatItCannotHonour(_ context: String) throws {
        let error = #expect(throws: EncoderError.self) {
            _ = try EncoderSession(configuration: Self.unhonourable(context), factory: OpenH264BackendFactory())
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.context == context)
    }

    @Test func refusesTenBitAndHEVC() throws {
        var tenBit = Self.configuration()
        tenBit.pixelFormat = .yuv420p10le
        #expect(throws: EncoderError(.unsupported, context: "pixelFormat", detail: "OpenH264 encodes 8-bit 4:2:0 only, not yuv420p10le")) {
            try OpenH264BackendFactory().validate(tenBit)
        }
        var hevc = Self.configuration()
        hevc.codec = .hevc
        let error = #expect(throws: EncoderError.self) { try OpenH264BackendFactory().validate(hevc) }
        #expect(error?.code == .unsupported)
    }
}
