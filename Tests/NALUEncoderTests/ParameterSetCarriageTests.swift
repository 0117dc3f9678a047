import Foundation
import NALU
import NALUEncoder
import NALUMP4
import NALUX264
import NALUX265
import Testing

/// Issue 14, bug 2: the record and the packets agree, for every output mode × sample entry, and
/// encoder packets go into an MP4 file with the library converting timestamps and framing.
@Suite struct ParameterSetCarriageTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var codec: Codec
        var format: StreamFormat
        var repeatParameterSets: Bool
        var entryInBand: Bool
        var testDescription: String {
            "\(codec) \(format) repeat=\(repeatParameterSets) \(MP4SampleEntryType(codec: codec, inBandParameterSets: entryInBand))"
        }
    }

    static let cases: [Case] = [Codec.h264, .hevc].flatMap { codec in
        [StreamFormat.annexB, .lengthPrefixed].flatMap { format in
            [false, true].flatMap { repeatSets in [false, true].map { Case(codec: codec, format: format, repeatParameterSets: repeatSets, entryInBand: $0) } }
        }
    }

    static func parameterSetCount(_ nalUnits: [[UInt8]], codec: Codec) -> Int {
        EncoderFraming.parameterSets(nalUnits, codec: codec).count
    }

    @Test(arguments: cases)
    func recordAndPacketsAgree(_ c: Case) throws {
        var configuration = SessionBehaviourTests.configuration(c.codec)
        configuration.outputFormat = c.format
        configuration.repeatParameterSets = c.repeatParameterSets
        configuration.timeBase = Rational(1, 90_000)
        let session = try EncoderSession(configuration: configuration, factory: SessionBehaviourTests.factory(c.codec))
        try session.prepare()
        let record = try #require(try session.decoderConfigurationRecord())
        let pattern = try TestPattern(width: configuration.width, height: configuration.height)
        var packets: [EncodedPacket] = []
        for index in 0..<40 {
            // pts in 1/90000 s at 30 fps.
            packets += try session.encode(pattern.frame(Int64(index) * 3000))
        }
        packets += try session.flush()

        // The session: out of band means no parameter set in any packet and complete arrays.
        let inBand = configuration.parameterSetCarriage == .inBand
        #expect(inBand == (c.format == .annexB || c.repeatParameterSets))
        let setsPerPacket = packets.map { Self.parameterSetCount(EncoderFraming.nalUnits(in: $0.bytes, format: c.format), codec: c.codec) }
        if inBand {
            #expect(setsPerPacket[0] > 0, "the first packet carries the parameter sets")
        } else {
            #expect(setsPerPacket.allSatisfy { $0 == 0 }, "parameter sets in band: \(setsPerPacket)")
        }
        if case .hevc(let hevc) = record {
            #expect(hevc.arrays.allSatisfy { $0.arrayCompleteness == !inBand })
        }
        #expect(packets.allSatisfy { $0.format == c.format && $0.timeBase == Rational(1, 90_000) })

        // Into an MP4 with the sample entry under test.
        let carriage = ParameterSetCarriage(inBand: c.entryInBand)
        let writerConfiguration = try MP4WriterConfiguration(decoderConfigurationRecord: record, parameterSetCarriage: carriage,
                                                             width: configuration.width, height: configuration.height,
                                                             timeBase: configuration.effectiveTimeBase)
        #expect(writerConfiguration.timescale == 90_000)
        let writer = try MP4Writer(sink: MemorySink(), configuration: writerConfiguration)
        for packet in packets { try writer.append(packet) }
        let summary = try writer.finish()
        #expect(summary.samples == 40)
        let file = writer.output.bytes

        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(file))
        #expect(reader.track.sampleEntryType == MP4SampleEntryType(codec: c.codec, inBandParameterSets: c.entryInBand))
        if case .hevc(let hevc) = reader.track.sampleDescription.record {
            #expect(hevc.arrays.filter { (32...34).contains($0.nalUnitType) }.allSatisfy { $0.arrayCompleteness == !c.entryInBand })
        }
        var samples: [MP4Sample] = []
        var inBandSets: [Int] = []
        try reader.forEachSample { sample in
            samples.append(sample)
            var bytes: [UInt8] = []
            try reader.read(sample, into: &bytes)
            inBandSets.append(Self.parameterSetCount(EncoderFraming.nalUnits(in: bytes, format: .lengthPrefixed), codec: c.codec))
        }
        if !c.entryInBand {
            #expect(inBandSets.allSatisfy { $0 == 0 }, "avc1/hvc1 samples carry parameter sets: \(inBandSets)")
        } else {
            #expect(inBandSets == setsPerPacket)
        }
        // Timing: the packets' pts and dts in 1/90000 ticks, keyframes as sync samples.
        let firstDTS = packets[0].dts
        #expect(samples.map(\.dts) == packets.map { $0.dts - firstDTS })
        #expect(samples.map { $0.pts - samples[0].pts + (packets[0].pts - firstDTS) } == packets.map { $0.pts - firstDTS })
        #expect(samples.map(\.isSync) == packets.map(\.isSync))
        #expect(try FFmpeg.decodedFrameCount(file: file, extension: "mp4") == 40)
    }
}

extension FFmpeg {
    /// Frames ffmpeg decodes from a container file, failing the test when it reports an error.
    static func decodedFrameCount(file bytes: [UInt8], extension pathExtension: String) throws -> Int {
        try decodedFrameCount(bytes, fileName: "file.\(pathExtension)", inputFormat: nil)
    }
}

/// Frames from plain arrays, with checked sizes.
@Suite struct FrameFromArraysTests {
    @Test func i420NV12And10BitFramesEncodeAndDecode() throws {
        let width = 64, height = 48
        let y = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let u = [UInt8](repeating: 100, count: width * height / 4)
        let v = [UInt8](repeating: 150, count: width * height / 4)
        var configuration = EncoderConfiguration(codec: .h264, width: width, height: height)
        configuration.preset = "ultrafast"
        let session = try EncoderSession(configuration: configuration, factory: X264BackendFactory())
        var stream: [UInt8] = []
        for pts in 0..<5 {
            // ArraySlice and Array both work; the frame owns a copy.
            let frame = try Frame(i420: y, u[...], v, width: width, height: height, pts: Int64(pts))
            for packet in try session.encode(frame) { stream += packet.bytes }
        }
        for packet in try session.flush() { stream += packet.bytes }
        #expect(try FFmpeg.decodedFrameCount(stream, codec: .h264) == 5)

        var nv12 = configuration
        nv12.pixelFormat = .nv12
        let nv12Session = try EncoderSession(configuration: nv12, factory: X264BackendFactory())
        let uv = [UInt8](repeating: 128, count: width * height / 2)
        let nv12Packets = try nv12Session.encode(try Frame(nv12: y, uv, width: width, height: height, pts: 0)) + nv12Session.flush()
        #expect(nv12Packets.count == 1)
        #expect(try FFmpeg.decodedFrameCount(nv12Packets[0].bytes, codec: .h264) == 1)

        var tenBit = configuration
        tenBit.pixelFormat = .yuv420p10le
        let tenBitSession = try EncoderSession(configuration: tenBit, factory: X264BackendFactory())
        let y10 = y.map { UInt16($0) * 4 }
        let c10 = [UInt16](repeating: 512, count: width * height / 4)
        let tenBitPackets = try tenBitSession.encode(try Frame(yuv420p10: y10, c10, c10, width: width, height: height, pts: 0)) + tenBitSession.flush()
        #expect(tenBitPackets.count == 1)
        #expect(try FFmpeg.decodedFrameCount(tenBitPackets[0].bytes, codec: .h264) == 1)
    }

    @Test func wrongSizesAreTypedErrorsNamingThePlane() throws {
        let plane = [UInt8](repeating: 0, count: 64 * 48)
        let quarter = [UInt8](repeating: 0, count: 64 * 48 / 4)
        let short = #expect(throws: EncoderError.self) {
            try Frame(i420: plane, quarter, quarter.dropLast(), width: 64, height: 48, pts: 0)
        }
        #expect(short?.code == .frameMismatch)
        #expect(short?.field == "v")
        let odd = #expect(throws: EncoderError.self) { try Frame(i420: plane, quarter, quarter, width: 63, height: 48, pts: 0) }
        #expect(odd?.code == .invalidConfiguration)
        let uv = #expect(throws: EncoderError.self) { try Frame(nv12: plane, quarter, width: 64, height: 48, pts: 0) }
        #expect(uv?.field == "uv")
        let big = [UInt16](repeating: 1024, count: 64 * 48)
        let c10 = [UInt16](repeating: 0, count: 64 * 48 / 4)
        let range = #expect(throws: EncoderError.self) { try Frame(yuv420p10: big, c10, c10, width: 64, height: 48, pts: 0) }
        #expect(range?.code == .frameMismatch)
        #expect(range?.field == "y")
    }
}
