import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// Pixel formats (issue 17): plane layout, names, Y4M tags both ways, frames from arrays, and
/// the profile that carries each format.
@Suite struct PixelFormatTests {
    struct Layout: Sendable, CustomTestStringConvertible {
        var format: PixelFormat
        /// Bytes per row and rows of each plane of a 6x4 picture, and the frame size.
        var rowBytes: [Int]
        var rows: [Int]
        var frameSize: Int
        var testDescription: String { format.rawValue }
    }

    /// ffmpeg's layouts (`ffmpeg -pix_fmt X -f rawvideo` writes 36 + 2·6 / 48 / 72 bytes at 6x4).
    static let layouts: [Layout] = [
        Layout(format: .i420, rowBytes: [6, 3, 3], rows: [4, 2, 2], frameSize: 36),
        Layout(format: .nv12, rowBytes: [6, 6], rows: [4, 2], frameSize: 36),
        Layout(format: .yuv422p, rowBytes: [6, 3, 3], rows: [4, 4, 4], frameSize: 48),
        Layout(format: .yuv444p, rowBytes: [6, 6, 6], rows: [4, 4, 4], frameSize: 72),
        Layout(format: .yuv420p10le, rowBytes: [12, 6, 6], rows: [4, 2, 2], frameSize: 72),
        Layout(format: .yuv422p10le, rowBytes: [12, 6, 6], rows: [4, 4, 4], frameSize: 96),
        Layout(format: .yuv444p10le, rowBytes: [12, 12, 12], rows: [4, 4, 4], frameSize: 144),
        Layout(format: .p010le, rowBytes: [12, 12], rows: [4, 2], frameSize: 72),
    ]

    @Test(arguments: layouts)
    func planeLayout(_ layout: Layout) throws {
        let format = layout.format
        #expect((0..<format.planeCount).map { format.rowBytes(plane: $0, width: 6) } == layout.rowBytes)
        #expect((0..<format.planeCount).map { format.rows(plane: $0, height: 4) } == layout.rows)
        #expect(format.frameSize(width: 6, height: 4) == layout.frameSize)
        let buffer = try FrameBuffer(pixelFormat: format, width: 6, height: 4)
        #expect(buffer.bytes.count == layout.frameSize)
        #expect((0..<format.planeCount).map { buffer.planeBytes($0).count } == zip(layout.rowBytes, layout.rows).map { $0 * $1 })
    }

    @Test func namesAndY4MTags() {
        #expect(PixelFormat.yuv420p == .i420)
        #expect(PixelFormat.allCases.map(\.ffmpegName) == ["yuv420p", "nv12", "yuv420p10le", "yuv422p", "yuv444p", "yuv422p10le", "yuv444p10le", "p010le"])
        for format in PixelFormat.allCases {
            #expect(PixelFormat(name: format.ffmpegName) == format)
            #expect(PixelFormat(name: format.rawValue.uppercased()) == format)
            if let tag = format.y4mColourSpace { #expect(PixelFormat(y4mColourSpace: tag) == format) }
        }
        #expect(PixelFormat.allCases.map { $0.y4mColourSpace ?? "-" } == ["420jpeg", "-", "420p10", "422", "444", "422p10", "444p10", "-"])
        #expect(PixelFormat(name: "i422") == .yuv422p)
        #expect(PixelFormat(name: "I444") == .yuv444p)
        #expect(PixelFormat(name: "iyuv") == .i420)
        #expect(PixelFormat(name: "422p10") == .yuv422p10le)
        #expect(PixelFormat(name: "yuv444p16le") == nil)
        #expect(PixelFormat(y4mColourSpace: "420mpeg2") == .i420)
        #expect(PixelFormat(y4mColourSpace: "420paldv") == .i420)
        #expect(PixelFormat(y4mColourSpace: "mono") == nil)
        #expect(PixelFormat.allCases.map(\.summary) == ["4:2:0 8-bit", "4:2:0 8-bit", "4:2:0 10-bit", "4:2:2 8-bit", "4:4:4 8-bit", "4:2:2 10-bit", "4:4:4 10-bit", "4:2:0 10-bit"])
        #expect(PixelFormat.allCases.map(\.chromaSubsampling.chromaFormatIdc) == [1, 1, 1, 2, 3, 2, 3, 1])
        #expect(PixelFormat.allCases.filter(\.isSemiPlanar) == [.nv12, .p010le])
        #expect(PixelFormat.allCases.map(\.planarEquivalent) == [.i420, .i420, .yuv420p10le, .yuv422p, .yuv444p, .yuv422p10le, .yuv444p10le, .yuv420p10le])
    }

    /// H.264/H.265 Table 6-1: 4:2:0 needs even sizes, 4:2:2 an even width, 4:4:4 nothing.
    @Test func sizesFollowTheSubsampling() throws {
        #expect(PixelFormat.yuv444p.frameSize(width: 5, height: 3) == 45)
        #expect(PixelFormat.yuv422p.frameSize(width: 6, height: 3) == 36)
        #expect(PixelFormat.yuv422p.frameSize(width: 5, height: 4) == nil)
        #expect(PixelFormat.i420.frameSize(width: 6, height: 3) == nil)
        #expect(PixelFormat.yuv444p10le.frameSize(width: Int.max / 2, height: 2) == nil)
        #expect(throws: EncoderError(.invalidConfiguration, field: "size", detail: "5x4 is not a positive 4:2:2 size (even width) up to 16384x16384")) {
            _ = try FrameBuffer(pixelFormat: .yuv422p, width: 5, height: 4)
        }
        var odd = EncoderConfiguration(codec: .h264, width: 5, height: 3)
        odd.pixelFormat = .yuv444p
        try odd.validate()
        odd.pixelFormat = .yuv422p
        #expect(throws: EncoderError(.invalidConfiguration, field: "size", detail: "5x3: the width must be even for 4:2:2")) { try odd.validate() }
    }

    @Test func y4mHeadersNameTheFormat() throws {
        for (tag, format, frame) in [("C422", PixelFormat.yuv422p, 48), ("C444", .yuv444p, 72), ("C420p10", .yuv420p10le, 72),
                                     ("C422p10", .yuv422p10le, 96), ("C444p10", .yuv444p10le, 144)] {
            let bytes = RawInputTests.y4m("YUV4MPEG2 W6 H4 F25:1 Ip \(tag)", frames: [[UInt8](repeating: 9, count: frame)])
            var reader = try Y4MReader(MemorySource(bytes, chunkSize: 5))
            #expect(reader.header.pixelFormat == format)
            let read = try #require(try reader.nextFrame())
            #expect(RawInputTests.bytes(of: read) == [UInt8](repeating: 9, count: frame))
            #expect(try reader.nextFrame() == nil)
        }
        let odd444 = try Y4MHeader(line: Array("YUV4MPEG2 W5 H3 F25:1 C444".utf8))
        #expect(odd444.pixelFormat == .yuv444p)
        #expect(throws: EncoderError(.invalidInput, field: "Y4M header W", detail: "5x4 is odd; 4:2:2 needs an even width")) {
            _ = try Y4MHeader(line: Array("YUV4MPEG2 W5 H4 F25:1 C422".utf8))
        }
    }

    @Test func framesFromArrays() throws {
        let y = [UInt8](repeating: 16, count: 24)
        let frame = try Frame(planar: .yuv422p, y, [UInt8](repeating: 128, count: 12), [UInt8](repeating: 130, count: 12), width: 6, height: 4, pts: 3)
        #expect(frame.pixelFormat == .yuv422p)
        #expect(frame.pts == 3)
        #expect(RawInputTests.bytes(of: frame) == y + [UInt8](repeating: 128, count: 12) + [UInt8](repeating: 130, count: 12))
        #expect(throws: EncoderError(.frameMismatch, field: "u", detail: "6 bytes; a 6x4 yuv444p frame needs 24")) {
            _ = try Frame(planar: .yuv444p, y, [UInt8](repeating: 0, count: 6), [UInt8](repeating: 0, count: 24), width: 6, height: 4, pts: 0)
        }
        #expect(throws: EncoderError.self) {
            _ = try Frame(planar: .yuv444p10le, y, y, y, width: 6, height: 4, pts: 0)
        }
        let tenBit = try Frame(planar: .yuv444p10le, [UInt16](repeating: 1023, count: 24), [UInt16](repeating: 512, count: 24), [UInt16](repeating: 0, count: 24),
                               width: 6, height: 4, pts: 0)
        #expect(RawInputTests.bytes(of: tenBit).prefix(4) == [0xFF, 0x03, 0xFF, 0x03])
        #expect(RawInputTests.bytes(of: tenBit).count == 144)
        #expect(throws: EncoderError(.frameMismatch, field: "v", detail: "sample 0 is 1024; 10-bit samples are 0…1023")) {
            _ = try Frame(planar: .yuv422p10le, [UInt16](repeating: 0, count: 24), [UInt16](repeating: 0, count: 12), [UInt16](repeating: 1024, count: 12),
                          width: 6, height: 4, pts: 0)
        }
        // The pointer form names the format.
        let copy = try tenBit.copy()
        #expect(copy.pixelFormat == .yuv444p10le)
        #expect(RawInputTests.bytes(of: copy) == RawInputTests.bytes(of: tenBit))
    }

    @Test func defaultProfilesCarryTheInput() {
        let h264 = PixelFormat.allCases.map { EncoderProfile.default(codec: .h264, pixelFormat: $0).name }
        let hevc = PixelFormat.allCases.map { EncoderProfile.default(codec: .hevc, pixelFormat: $0).name }
        #expect(h264 == ["high", "high", "high10", "high422", "high444", "high422", "high444", "high10"])
        #expect(hevc == ["main", "main", "main10", "main422-10", "main444-8", "main422-10", "main444-10", "main10"])
        for format in PixelFormat.allCases {
            for codec in [Codec.h264, .hevc] {
                var configuration = EncoderConfiguration(codec: codec, width: 64, height: 64)
                configuration.pixelFormat = format
                #expect(throws: Never.self) { try configuration.validate() }
                #expect(EncoderProfile.named(configuration.effectiveProfile, codec: codec)?.carries(format) == true)
            }
        }
    }

    @Test func profilesThatCannotCarryTheInputAreRefused() {
        func refusal(_ codec: Codec, _ format: PixelFormat, _ profile: String) -> EncoderError? {
            var configuration = EncoderConfiguration(codec: codec, width: 64, height: 64)
            configuration.pixelFormat = format
            configuration.profile = profile
            do {
                try (codec == .h264 ? X264BackendFactory() as any EncoderBackendFactory : X265BackendFactory()).validate(configuration)
                return nil
            } catch {
                return error
            }
        }
        let expected: [(Codec, PixelFormat, String, String?)] = [
            (.h264, .yuv422p, "main", "main cannot carry yuv422p input (4:2:2 8-bit); use high422"),
            (.h264, .yuv422p, "high10", "high10 cannot carry yuv422p input (4:2:2 8-bit); use high422"),
            (.h264, .yuv444p, "high422", "high422 cannot carry yuv444p input (4:4:4 8-bit); use high444"),
            (.h264, .yuv420p10le, "high", "high cannot carry yuv420p10le input (4:2:0 10-bit); use high10"),
            (.h264, .i420, "high444", nil),
            (.h264, .yuv422p10le, "high422", nil),
            (.hevc, .yuv422p, "main", "main cannot carry yuv422p input (4:2:2 8-bit); use main422-10"),
            (.hevc, .yuv444p10le, "main444-8", "main444-8 cannot carry yuv444p10le input (4:4:4 10-bit); use main444-10"),
            (.hevc, .yuv444p, "main422-10", "main422-10 cannot carry yuv444p input (4:4:4 8-bit); use main444-8"),
            (.hevc, .yuv420p10le, "mainstillpicture", "mainstillpicture cannot carry yuv420p10le input (4:2:0 10-bit); use main10"),
            (.hevc, .yuv422p, "main444-10", nil),
            (.hevc, .i420, "main444-8", nil),
        ]
        for (codec, format, profile, detail) in expected {
            let error = refusal(codec, format, profile)
            if let detail {
                #expect(error == EncoderError(.invalidConfiguration, field: "profile", detail: detail), "\(codec) \(format) \(profile)")
            } else {
                #expect(error == nil, "\(codec) \(format) \(profile): \(String(describing: error))")
            }
        }
    }

    /// P010 holds each sample in the high 10 bits; the backends hand the libraries planar,
    /// low-aligned samples. 4x2: Y 0, 1023, 512, 64 / 1, 2, 3, 4; UV (100, 200), (300, 400).
    @Test func semiPlanarFramesConvertToPlanar() throws {
        let y: [UInt16] = [0, 1023, 512, 64, 1, 2, 3, 4]
        let p010 = try Frame(p010: y.map { $0 << 6 | 0x15 }, [100, 200, 300, 400].map { $0 << 6 }, width: 4, height: 2, pts: 7)
        let converter = try PlanarConverter(format: .p010le, width: 4, height: 2)
        let planar = converter.convert(p010)
        #expect(planar.pixelFormat == .yuv420p10le)
        #expect(planar.pts == 7)
        let words = RawInputTests.bytes(of: planar).chunked2
        #expect(words == y + [100, 300] + [200, 400])
        #expect(throws: EncoderError(.frameMismatch, field: "uv", detail: "3 samples; a 4x2 p010le frame needs 4")) {
            _ = try Frame(p010: y, [1, 2, 3], width: 4, height: 2, pts: 0)
        }
        let nv12 = try Frame(nv12: [1, 2, 3, 4, 5, 6, 7, 8], [10, 20, 30, 40], width: 4, height: 2, pts: 0)
        let planarNV12 = try PlanarConverter(format: .nv12, width: 4, height: 2).convert(nv12)
        #expect(planarNV12.pixelFormat == .i420)
        #expect(RawInputTests.bytes(of: planarNV12) == [1, 2, 3, 4, 5, 6, 7, 8, 10, 30, 20, 40])
    }

    /// The same pictures as P010 and as planar 10-bit encode to the same bytes (x264 and x265,
    /// one thread): the conversion loses nothing.
    @Test(arguments: [Codec.h264, .hevc])
    func p010EncodesLikePlanarTenBit(_ codec: Codec) throws {
        func encode(_ format: PixelFormat) throws -> [UInt8] {
            var configuration = EncoderConfiguration(codec: codec, width: 96, height: 64)
            configuration.pixelFormat = format
            configuration.preset = "ultrafast"
            configuration.rateControl = .qp(24)
            configuration.threads = 1
            let factory: any EncoderBackendFactory = codec == .h264 ? X264BackendFactory() : X265BackendFactory()
            return try encodePattern(configuration, factory: factory, frames: 6).0.stream
        }
        let p010 = try encode(.p010le)
        #expect(!p010.isEmpty)
        #expect(p010 == (try encode(.yuv420p10le)))
    }
}

/// HEVC format range extensions profiles (H.265 A.3.5, Table A.2) are told apart by the
/// general_max_12bit … general_max_monochrome constraint flags (bits 43…38 of
/// `general_constraint_indicator_flags`); ffprobe 5.1 names them all "Rext".
@Suite struct HEVCRangeExtensionProfileTests {
    @Test(arguments: [
        // format, profile, max_12bit, max_10bit, max_8bit, max_422chroma, max_420chroma, max_monochrome
        (PixelFormat.yuv422p, "Main 4:2:2 10", [1, 1, 0, 1, 0, 0]),
        (.yuv422p10le, "Main 4:2:2 10", [1, 1, 0, 1, 0, 0]),
        (.yuv444p, "Main 4:4:4", [1, 1, 1, 0, 0, 0]),
        (.yuv444p10le, "Main 4:4:4 10", [1, 1, 0, 0, 0, 0]),
    ])
    func constraintFlagsNameTheProfile(_ format: PixelFormat, _ profile: String, _ flags: [Int]) throws {
        var configuration = EncoderConfiguration(codec: .hevc, width: 64, height: 64)
        configuration.pixelFormat = format
        configuration.preset = "ultrafast"
        configuration.threads = 1
        let session = try EncoderSession(configuration: configuration, factory: X265BackendFactory())
        try session.prepare()
        let spsUnit = try #require(session.parameterSets.first { (try? HEVCNALUnitHeader($0))?.nalUnitType == .sps })
        let ptl = try HEVCSequenceParameterSet(nalUnit: spsUnit).profileTierLevel
        #expect(ptl.generalProfileIdc == 4, "\(profile)")
        let bits = (38...43).reversed().map { Int(ptl.generalConstraintIndicatorFlags >> UInt64($0) & 1) }
        #expect(bits == flags, "\(profile)")
    }
}

extension Array where Element == UInt8 {
    /// Little-endian 16-bit words.
    var chunked2: [UInt16] {
        stride(from: 0, to: count - 1, by: 2).map { UInt16(self[$0]) | UInt16(self[$0 + 1]) << 8 }
    }
}
