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
        .library(name: "NALUMP4", targets: ["NALUMP4"]),
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
        // ISO BMFF (MP4/MOV) read and write of one video track: stdlib and NALU only.
        .target(name: "NALUMP4", dependencies: ["NALU"], swiftSettings: strictSettings),
        .executableTarget(
            name: "nalu",
            dependencies: [
                "NALU", "NALUIO", "NALUMP4",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "NALUTests", dependencies: ["NALU", "NALUIO"], swiftSettings: strictSettings),
        .testTarget(name: "NALUMP4Tests", dependencies: ["NALUMP4", "NALU", "NALUIO"], swiftSettings: strictSettings),
        .testTarget(name: "NALUCLITests", dependencies: ["nalu"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
