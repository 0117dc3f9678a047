// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The pkg-config name for an encoder library's headers: none on Linux (see the systemLibrary
/// targets below).
func encoderPkgConfig(_ name: String) -> String? {
    #if os(Linux)
    return nil
    #else
    return name
    #endif
}

let package = Package(
    name: "nalu",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "NALU", targets: ["NALU"]),
        .library(name: "NALUIO", targets: ["NALUIO"]),
        .library(name: "NALUMP4", targets: ["NALUMP4"]),
        .library(name: "NALUMedia", targets: ["NALUMedia"]),
        .library(name: "NALUTS", targets: ["NALUTS"]),
        .executable(name: "nalu", targets: ["nalu"]),
        .library(name: "NALUEncoder", targets: ["NALUEncoder"]),
        .library(name: "NALUX264", targets: ["NALUX264"]),
        .library(name: "NALUX265", targets: ["NALUX265"]),
        .library(name: "NALUOpenH264", targets: ["NALUOpenH264"]),
        .library(name: "NALUDecoder", targets: ["NALUDecoder"]),
        .library(name: "NALUAVCodec", targets: ["NALUAVCodec"]),
        .library(name: "NALUDe265", targets: ["NALUDe265"]),
        .library(name: "NALUSmartCut", targets: ["NALUSmartCut"]),
        .library(name: "NALUExport", targets: ["NALUExport"]),
        .library(name: "NALUPackager", targets: ["NALUPackager"]),
        .library(name: "NALUDoctor", targets: ["NALUDoctor"]),
        .library(name: "NALURTP", targets: ["NALURTP"]),
        .library(name: "NALURTPMedia", targets: ["NALURTPMedia"]),
        .executable(name: "append-clips-sample", targets: ["append-clips-sample"]),
        .executable(name: "transcode-sample", targets: ["transcode-sample"]),
        .executable(name: "export-range-sample", targets: ["export-range-sample"]),
        .executable(name: "thumbnail-sample", targets: ["thumbnail-sample"]),
        .executable(name: "live-hls-sample", targets: ["live-hls-sample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Logging for the encoder backends (x264's log callback, x265's log level). 1.16 for
        // LogEvent, which the CLI's and the tests' log handlers implement.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Pure-Swift core: stdlib only. libm for `squareRoot()` (level limits), which a debug build
        // calls as `sqrt`: a program that imports only NALU (no Foundation) does not link libm otherwise.
        .target(name: "NALU", swiftSettings: strictSettings, linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // POSIX file-descriptor sources and sinks for the core's streaming readers.
        .target(name: "NALUIO", dependencies: ["NALU"], swiftSettings: strictSettings),
        // ISO BMFF (MP4/MOV) read and write of one video track: stdlib and NALU only.
        .target(name: "NALUMP4", dependencies: ["NALU"], swiftSettings: strictSettings),
        // MPEG-2 transport stream read and write (issue 15): stdlib and NALU only.
        .target(name: "NALUTS", dependencies: ["NALU"], swiftSettings: strictSettings),
        .testTarget(name: "NALUTSTests", dependencies: ["NALUTS", "NALU"], swiftSettings: strictSettings),
        // One media pipeline (issue 12): sources that detect the container by content (Annex-B,
        // length-prefixed, MP4/MOV, also on a pipe), sinks of one shape, the summaries the CLI prints.
        .target(name: "NALUMedia", dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUTS"], swiftSettings: strictSettings),
        .testTarget(name: "NALUMediaTests", dependencies: ["NALUMedia", "NALU", "NALUIO", "NALUMP4", "NALUTS"], swiftSettings: strictSettings),
        .executableTarget(
            name: "nalu",
            dependencies: [
                "NALU", "NALUIO", "NALUMP4", "NALUMedia", "NALUTS",
                "NALUEncoder", "NALUX264", "NALUX265", "NALUOpenH264",
                "NALUDecoder", "NALUAVCodec", "NALUDe265", "NALUSmartCut", "NALUExport", "NALUPackager", "NALUDoctor",
                "NALURTP", "NALURTPMedia",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Samples: small programs that embed the libraries (not products).
        .executableTarget(name: "parameter-sets-sample", dependencies: ["NALU", "NALUIO"], path: "Samples/ParameterSets",
                          swiftSettings: strictSettings),
        .executableTarget(name: "convert-stream-sample", dependencies: ["NALU", "NALUIO"], path: "Samples/ConvertStream",
                          swiftSettings: strictSettings),
        .testTarget(name: "NALUTests", dependencies: ["NALU", "NALUIO", "FuzzHarness"], swiftSettings: strictSettings),
        // The fuzz targets' harnesses (issue 6): Scripts/fuzz.sh compiles them into libFuzzer
        // binaries; the tests replay the regression inputs through them.
        .target(name: "FuzzHarness", dependencies: ["NALU", "NALUEncoder", "NALUMP4", "NALUTS", "NALUIO", "NALUMedia", "NALUDecoder", "NALUPackager", "NALUDoctor", "NALURTP", "NALURTPMedia"], path: "Fuzz/Harness", swiftSettings: strictSettings),
        .testTarget(name: "NALUMP4Tests", dependencies: ["NALUMP4", "NALU", "NALUIO"], swiftSettings: strictSettings),
        .testTarget(name: "NALUCLITests", dependencies: ["nalu", "NALU", "NALUMP4", "NALUMedia"], swiftSettings: strictSettings),

        // Encoder sessions (issue 4): backend-neutral session, x264/x265 backends, sample.
        .target(name: "NALUEncoder", dependencies: ["NALU"], swiftSettings: strictSettings),
        // The encoder libraries are not linked: the backends dlopen them at first use (Startup,
        // Docs/performance.md), so these modules give only the headers (their module maps have no
        // `link`). No pkgConfig on Linux, as its Libs would add -lx265/-lopenh264 to the link
        // (the apt packages' headers are in the default search paths); elsewhere pkg-config finds
        // the headers (Homebrew) and the extra link is harmless. None for x264 anywhere: x264.pc's
        // Cflags carry -DX264_API_IMPORTS (a Windows dllimport switch), which SwiftPM rejects with
        // a warning on every build.
        .systemLibrary(name: "CX264", providers: [.apt(["libx264-dev"])]),
        .systemLibrary(name: "CX265", pkgConfig: encoderPkgConfig("x265"), providers: [.apt(["libx265-dev"])]),
        .target(name: "NALUX264", dependencies: ["NALUEncoder", "CX264", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strictSettings),
        .target(name: "NALUX265", dependencies: ["NALUEncoder", "CX265", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strictSettings),
        // Issue 17: OpenH264 (BSD-2-Clause), the backend for apps that cannot ship GPL code.
        .systemLibrary(name: "COpenH264", pkgConfig: encoderPkgConfig("openh264"), providers: [.apt(["libopenh264-dev"])]),
        .target(name: "NALUOpenH264", dependencies: ["NALUEncoder", "COpenH264", .product(name: "Logging", package: "swift-log")],
                swiftSettings: strictSettings),
        .executableTarget(
            name: "encoder-sample",
            dependencies: ["NALU", "NALUIO", "NALUEncoder", "NALUX264", "NALUX265"],
            path: "Samples/EncoderSample",
            swiftSettings: strictSettings
        ),
        // Issue 14: the async API under Swift 6 strict concurrency (must build with no warnings).
        .testTarget(
            name: "NALUConcurrencyTests",
            dependencies: ["NALU", "NALUEncoder", "NALUX264", "NALUX265"],
            swiftSettings: strictSettings
        ),
        // Issue 14: the embedding guide's programs (Docs/embedding-an-encoder.md quotes them).
        .executableTarget(name: "encode-to-mp4-sample", dependencies: ["NALUEncoder", "NALUIO", "NALUMP4", "NALUX264"],
                          path: "Samples/EncodeToMP4", swiftSettings: strictSettings),
        .executableTarget(name: "async-encode-sample",
                          dependencies: ["NALU", "NALUEncoder", "NALUX264", "NALUX265", .product(name: "Logging", package: "swift-log")],
                          path: "Samples/AsyncEncode", swiftSettings: strictSettings),
        .executableTarget(name: "push-parse-sample", dependencies: ["NALU"], path: "Samples/PushParse", swiftSettings: strictSettings),
        // Issue 39: reading any input into a decoder (Docs/embedding-an-encoder.md quotes it).
        .executableTarget(name: "decode-sample", dependencies: ["NALU", "NALUMedia", "NALUDecoder", "NALUAVCodec"], path: "Samples/DecodeFile",
                          swiftSettings: strictSettings),
        // Issue 32 item 15: NALU alone (no Foundation) links on Linux.
        .executableTarget(name: "nalu-only-sample", dependencies: ["NALU"], path: "Samples/NALUOnly", swiftSettings: strictSettings),
        .testTarget(
            name: "NALUEncoderTests",
            dependencies: ["NALU", "NALUEncoder", "NALUX264", "NALUX265", "NALUOpenH264", "NALUMP4", "FuzzHarness",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),

        // Issue 33: decoder sessions (backend-neutral, pure Swift, with the picture metrics of
        // `nalu compare`), and the libavcodec and libde265 backends, opened with dlopen at first
        // use like the encoders (the module maps give headers only).
        .target(name: "NALUDecoder", dependencies: ["NALU", "NALUEncoder"], swiftSettings: strictSettings),
        .systemLibrary(name: "CAVCodec", providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(name: "CDe265", providers: [.apt(["libde265-dev"])]),
        .target(name: "NALUAVCodec", dependencies: ["NALUDecoder", "NALUEncoder", "CAVCodec"], swiftSettings: strictSettings),
        .target(name: "NALUDe265", dependencies: ["NALUDecoder", "NALUEncoder", "CDe265"], swiftSettings: strictSettings),
        // Issue 34: smart trim, re-encoding only the partial GOPs at a cut's ends.
        .target(name: "NALUSmartCut", dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUMedia", "NALUTS", "NALUDecoder", "NALUEncoder"],
                swiftSettings: strictSettings),
        .testTarget(
            name: "NALUDecoderTests",
            dependencies: ["NALU", "NALUDecoder", "NALUAVCodec", "NALUDe265", "NALUEncoder", "NALUMedia"],
            swiftSettings: strictSettings
        ),
        // Issue 39: the export pipeline (decoded input, timed MP4/TS output with the other tracks,
        // carried tracks, time cutting) and ExportSession, the library's transcode and export.
        .target(name: "NALUExport",
                dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUTS", "NALUMedia", "NALUEncoder", "NALUX264", "NALUX265",
                               "NALUDecoder", "NALUAVCodec", "NALUDe265", "NALUSmartCut", "NALUOpenH264", "NALUPackager", "NALUDoctor",
                               .product(name: "Logging", package: "swift-log")],
                swiftSettings: strictSettings),
        // Issue 39 item 7: the seeds' jobs from the public library API only (their products and
        // arguments are a contract).
        .executableTarget(name: "transcode-sample", dependencies: ["NALU", "NALUExport"], path: "Samples/TranscodeSample",
                          swiftSettings: strictSettings),
        .executableTarget(name: "export-range-sample", dependencies: ["NALUExport", "NALUMedia"], path: "Samples/ExportRangeSample",
                          swiftSettings: strictSettings),
        .executableTarget(name: "export-settings-sample", dependencies: ["NALU", "NALUEncoder", "NALUExport", "NALUMedia"], path: "Samples/ExportSettings",
                          swiftSettings: strictSettings),
        .testTarget(name: "NALUExportTests",
                    dependencies: ["NALUTestSupport", "NALUExport", "NALU", "NALUMedia", "NALUEncoder", "NALUX264", "NALUMP4", "nalu", "transcode-sample", "export-range-sample", "export-settings-sample"],
                    swiftSettings: strictSettings),
        // Issue 39 item 7: AVAssetImageGenerator (thumbnail-sample) and capture → LL-HLS
        // (live-hls-sample) from the public API; their tests and the compiled doc snippets.
        .executableTarget(name: "thumbnail-sample", dependencies: ["NALUExport"], path: "Samples/Thumbnail",
                          swiftSettings: strictSettings),
        .executableTarget(name: "live-hls-sample", dependencies: ["NALU", "NALUEncoder", "NALUExport", "NALUMedia", "NALUPackager"],
                          path: "Samples/LiveHLS", swiftSettings: strictSettings),
        .testTarget(name: "NALUSamplesTests", dependencies: ["NALUTestSupport", "NALU", "NALUEncoder", "NALUMedia", "NALUExport", "NALUDecoder", "NALUPackager", "thumbnail-sample", "live-hls-sample"],
                    swiftSettings: strictSettings),
        // What the test targets that run the package's executables share (paths, child processes).
        .target(name: "NALUTestSupport", path: "Tests/Support", swiftSettings: strictSettings),
        // Every Swift block of Docs/ and the DocC articles, compiled here or found in Samples/Sources.
        .testTarget(name: "DocSnippetsTests",
                    dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUMedia", "NALUEncoder", "NALUX264", "NALUAVCodec", "NALUSmartCut", "NALUExport", "NALUPackager", "NALURTP", "NALURTPMedia"],
                    swiftSettings: strictSettings),

        // Issue 39 item 5: the packager (HLS/DASH/LL-HLS, live) and the doctor (stream and
        // package diagnosis) are targets of their own; NALUMedia keeps sources, sinks, trim, concat.
        .target(name: "NALUPackager", dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUTS", "NALUMedia"], swiftSettings: strictSettings),
        .target(name: "NALUDoctor", dependencies: ["NALU", "NALUIO", "NALUMP4", "NALUTS", "NALUMedia", "NALUPackager"], swiftSettings: strictSettings),
        .testTarget(name: "NALUPackagerTests", dependencies: ["NALUPackager", "NALUMedia", "NALU", "NALUMP4", "NALUTS"], swiftSettings: strictSettings),
        .testTarget(name: "NALUDoctorTests", dependencies: ["NALUDoctor", "NALUMedia", "NALU"], swiftSettings: strictSettings),
        // Issue 42: RTP for H.264/H.265 (RFC 6184, RFC 7798), SDP, rtpdump: stdlib and NALU only.
        .target(name: "NALURTP", dependencies: ["NALU"], swiftSettings: strictSettings),
        .testTarget(name: "NALURTPTests", dependencies: ["NALURTP", "NALURTPMedia", "NALU", "NALUIO", "NALUMedia", "nalu"], swiftSettings: strictSettings),
        // Issue 42, second half: the RTP pipelines as a library (the CLI only parses arguments):
        // RTPStreamTransmitter (MediaReader → RTP packets, pacing, SDP), RTPRecorder/RTPRecordingOutput
        // (received access units → Annex-B/MP4) and the RTSP client (RFC 2326/7826).
        .target(name: "NALURTPMedia", dependencies: ["NALURTP", "NALU", "NALUIO", "NALUMP4", "NALUMedia", "NALUTS", "NALUPackager"], swiftSettings: strictSettings),

        // Issue 39 item 4: the composition (AVMutableComposition of nalu): `append-clips-sample OUT IN…`
        // from the public API only, and its tests (the sample against ffprobe and Scripts/avsync.py, the
        // library's export, cancellation and progress).
        .executableTarget(name: "append-clips-sample", dependencies: ["NALUExport", "NALUSmartCut"], path: "Samples/AppendClips",
                          swiftSettings: strictSettings),
        .testTarget(name: "NALUCompositionTests",
                    dependencies: ["NALUTestSupport", "NALUExport", "NALUSmartCut", "NALUMedia", "NALU", "nalu", "append-clips-sample"],
                    swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
