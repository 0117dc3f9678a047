import Benchmark
import Foundation
import NALU

/// The large real streams made by Scripts/make-bench-input.sh (big.h264, big.h265) and
/// Scripts/bench-convert.sh --make (small.h264: ~800-byte NAL units; cavlc.h264: zero-dense CAVLC;
/// hevc.h265), loaded once into memory so the benchmarks measure the library, not the disk.
let dataDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("data")

func load(_ name: String) -> [UInt8] {
    guard let data = try? Data(contentsOf: dataDirectory.appendingPathComponent(name)) else {
        print("missing Benchmarks/data/\(name): run Scripts/make-bench-input.sh or Scripts/bench-convert.sh --make")
        return []
    }
    return Array(data)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 10
    )

    for name in ["big.h264", "big.h265", "small.h264", "cavlc.h264", "hevc.h265"] {
        let bytes = load(name)
        if bytes.isEmpty { continue }
        let megabytes = bytes.count / 1_000_000

        // Start-code scanning over the whole stream in memory: the framing hot loop.
        Benchmark("AnnexB scan in memory \(name) (\(megabytes) MB)",
                  configuration: .init(scalingFactor: .one)) { benchmark in
            var units = 0
            var payload = 0
            bytes.withUnsafeBytes { buffer in
                AnnexB.forEachNALUnit(in: buffer) { range in
                    units += 1
                    payload += range.count
                }
            }
            blackHole(units)
            blackHole(payload)
        }

        // Annex-B → length-prefixed, whole stream in memory (parameter sets moved to the record).
        let codec: Codec = name.hasSuffix("h264") ? .h264 : .hevc
        // Output goes to a sink whose storage is reused across iterations, so the figure is the
        // conversion's, not the kernel's first-touch page faults on a fresh 300 MB allocation.
        var sink = MemorySink()
        sink.reserveCapacity(bytes.count + bytes.count / 16)
        Benchmark("Convert Annex-B → length-prefixed in memory \(name) (\(megabytes) MB)") { benchmark in
            sink.removeAll()
            var converter = try AnnexBToLengthPrefixed(codec: codec)
            try bytes.withUnsafeBytes { try converter.convert($0, to: &sink) }
            blackHole(sink.bytes.count)
        }

        // Length-prefixed → Annex-B, whole stream in memory (parameter sets inserted at keyframes).
        var prepared = try? AnnexBToLengthPrefixed(codec: codec)
        let lengthPrefixed = (try? prepared?.convert(bytes)) ?? []
        let parameterSets = prepared?.parameterSetOrder ?? []
        Benchmark("Convert length-prefixed → Annex-B in memory \(name) (\(lengthPrefixed.count / 1_000_000) MB)") { benchmark in
            sink.removeAll()
            var converter = try LengthPrefixedToAnnexB(codec: codec, outOfBandParameterSets: parameterSets)
            try lengthPrefixed.withUnsafeBytes { try converter.convert($0, lengthSize: 4, to: &sink) }
            blackHole(sink.bytes.count)
        }

        // The floor: copying the same bytes once into reused storage.
        Benchmark("memcpy baseline \(name) (\(megabytes) MB)") { benchmark in
            sink.removeAll()
            try bytes.withUnsafeBytes { try sink.write($0) }
            blackHole(sink.bytes.count)
        }

        // Access-unit detection over every NAL unit (slice headers read in place): the per-NAL
        // cost of info, avcc → Annex-B and MP4 output. Divide by the NAL unit count printed.
        var nalUnitCount = 0
        bytes.withUnsafeBytes { buffer in AnnexB.forEachNALUnit(in: buffer) { _ in nalUnitCount += 1 } }
        Benchmark("AccessUnitSplitter over \(nalUnitCount) NAL units \(name)") { benchmark in
            var splitter = AccessUnitSplitter(codec: codec)
            var accessUnits = 0
            try bytes.withUnsafeBytes { buffer in
                try AnnexB.forEachNALUnit(in: buffer) { range in
                    let step = try splitter.push(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound),
                                                 prefixLength: 3)
                    if step.completed != nil { accessUnits += 1 }
                }
            }
            blackHole(accessUnits)
        }

        // The streaming reader over a memory source, in 1 MiB chunks (what the CLI does with files).
        Benchmark("AnnexBReader streaming \(name) (\(megabytes) MB)") { benchmark in
            var reader = AnnexBReader(MemorySource(bytes, chunkSize: 1 << 20))
            var units = 0
            try reader.forEachNALUnit { _ in units += 1 }
            blackHole(units)
        }
    }
}
