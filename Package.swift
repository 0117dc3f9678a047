// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "nalu",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "NALU", targets: ["NALU"]),
        .library(name: "NALUIO", targets: ["NALUIO"]),
        .executable(name: "nalu", targets: ["nalu"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Pure-Swift core: stdlib only.
        .target(name: "NALU", swiftSettings: strictSettings),
        // POSIX file-descriptor sources and sinks for the core's streaming readers.
        .target(name: "NALUIO", dependencies: ["NALU"], swiftSettings: strictSettings),
        .executableTarget(
            name: "nalu",
            dependencies: [
                "NALU", "NALUIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // Samples: small programs that embed the libraries (not products).
        .executableTarget(name: "parameter-sets-sample", dependencies: ["NALU", "NALUIO"], path: "Samples/ParameterSets",
                          swiftSettings: strictSettings),
        .executableTarget(name: "convert-stream-sample", dependencies: ["NALU", "NALUIO"], path: "Samples/ConvertStream",
                          swiftSettings: strictSettings),
        .testTarget(name: "NALUTests", dependencies: ["NALU", "NALUIO"], swiftSettings: strictSettings),
        .testTarget(name: "NALUCLITests", dependencies: ["nalu"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
