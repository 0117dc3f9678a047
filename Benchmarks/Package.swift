// swift-tools-version: 6.1
// Benchmarks for nalu, kept out of the main package so its dependency graph stays small.
// Run from this folder:  swift package benchmark   (inputs: ../Scripts/make-bench-input.sh)
import PackageDescription

let package = Package(
    name: "nalu-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "nalu", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "NALUBenchmarks",
            dependencies: [
                .product(name: "NALU", package: "nalu"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NALUBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
