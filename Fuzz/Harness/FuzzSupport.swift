// Shared by the libFuzzer targets (Fuzz/Targets, each a thin LLVMFuzzerTestOneInput over one
// harness) and by the test targets, which replay the regression inputs through the same harness.
import NALU

/// A property a harness checks did not hold. The fuzz targets trap on it (so libFuzzer saves the
/// input); the tests report it.
public struct FuzzPropertyViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Throws a ``FuzzPropertyViolation`` with `message` unless `condition` holds.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzPropertyViolation) {
    if !condition { throw FuzzPropertyViolation(description: message()) }
}

/// Every fuzz harness by target name (the names of Fuzz/Targets/*.swift and of the directories
/// in Tests/Fixtures/fuzz-regressions).
public enum FuzzHarnesses {
    public typealias Harness = @Sendable ([UInt8]) throws(FuzzPropertyViolation) -> Void
    public static let all: [String: Harness] = [
        "annexb": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try AnnexBHarness.run(bytes) },
        "lengthprefixed": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try LengthPrefixedHarness.run(bytes) },
        "avc-ps": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in AVCSyntaxHarness.run(bytes) },
        "hevc-ps": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in HEVCSyntaxHarness.run(bytes) },
        "records": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try RecordsHarness.run(bytes) },
        "access-units": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try AccessUnitsHarness.run(bytes) },
        "convert": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ConvertHarness.run(bytes) },
        "y4m": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try Y4MHarness.run(bytes) },
        "mp4": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try MP4Harness.run(bytes) },
        "ts": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try TransportStreamHarness.run(bytes) },
        "ps-write": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ParameterSetWriterHarness.run(bytes) },
        "lent": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try LentHarness.run(bytes) },
        "hls": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ManifestHarness.hls(bytes) },
        "dash": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ManifestHarness.dash(bytes) },
        "package-doctor": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try PackageDoctorHarness.run(bytes) },
        "package": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try PackageHarness.run(bytes) },
        "decoder-feed": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try DecoderFeedHarness.run(bytes) },
        "ts-audio": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try TransportStreamAudioHarness.run(bytes) },
        "tracks": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try TracksHarness.run(bytes) },
        "reader": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ReaderHarness.run(bytes) },
        "interlace": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try InterlaceHarness.run(bytes) },
        "rtp-depacketize": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try RTPDepacketizeHarness.run(bytes) },
        "sdp": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try SDPHarness.run(bytes) },
        "rtsp-response": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try RTSPResponseHarness.run(bytes) },
        "rtcp": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try RTCPHarness.run(bytes) },
        "rtp-aac": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try RTPAACHarness.run(bytes) },
        "edit-options": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try EditOptionsHarness.run(bytes) },
        "concat-ts": { (bytes: [UInt8]) throws(FuzzPropertyViolation) in try ConcatHarness.run(bytes) },
    ]

    /// Runs `bytes` through the harness `name`, trapping on a violated property: the body of every
    /// fuzz target's `LLVMFuzzerTestOneInput`.
    public static func fuzz(_ name: String, _ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
        guard let harness = all[name] else { fatalError("no fuzz harness \(name)") }
        do {
            try harness(Array(UnsafeBufferPointer(start: data, count: size)))
        } catch {
            fatalError("fuzz property violated in \(name): \(error)")
        }
        return 0
    }
}

/// A NAL unit as a reader handed it out: where it was, its bytes and its prefix length.
struct SeenUnit: Equatable {
    var offset: Int64
    var bytes: [UInt8]
    var prefixLength: Int
}

/// A small deterministic generator seeded from the input, for data-derived choices (split points,
/// chunk sizes), so that every run of an input makes the same choices.
struct SplitMix {
    var state: UInt64
    init(_ bytes: [UInt8]) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes.prefix(64) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        state = hash ^ UInt64(bytes.count)
    }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}
