import NALU
import NALUEncoder
@testable import NALUOpenH264
@testable import NALUX264
@testable import NALUX265
import Testing

/// The encoder libraries are opened with dlopen at first use (Docs/performance.md, "Startup"):
/// a library that is missing, or of another interface, is a typed error naming the file and the
/// package to install, never a crash; an installed one resolves every function once.
@Suite struct LibraryLoadingTests {
    /// A file name no system has.
    static let missing = "libnalu-test-missing.so.1"

    @Test func aMissingLibraryIsATypedErrorNamingThePackage() throws {
        let x264 = #expect(throws: EncoderError.self) { try X264Library(fileNames: [Self.missing]) }
        #expect(x264?.code == .libraryUnavailable)
        #expect(x264?.field == Self.missing)
        #expect(x264?.detail == "cannot open shared object file: No such file or directory; install libx264-164 (Debian/Ubuntu; libx264-dev brings it too)")

        let x265 = #expect(throws: EncoderError.self) { try X265Library(fileNames: [Self.missing]) }
        #expect(x265?.code == .libraryUnavailable)
        #expect(x265?.detail?.hasSuffix("; install libx265-199 (Debian/Ubuntu; libx265-dev brings it too)") == true)

        let openH264 = #expect(throws: EncoderError.self) { try OpenH264Library(fileNames: [Self.missing]) }
        #expect(openH264?.code == .libraryUnavailable)
        #expect(openH264?.detail?.hasSuffix("; install libopenh264-7 (Debian/Ubuntu; libopenh264-dev brings it too)") == true)
        // Not a session failure: EncoderSession throws it at once instead of retrying.
        #expect(openH264?.isSessionFailure == false)
    }

    @Test func theFirstNameThatLoadsIsUsedAndAFailureNamesTheFirst() throws {
        let library = try X264Library(fileNames: [Self.missing, "libx264.so.164"])
        #expect(library.fileName == "libx264.so.164")
        let error = #expect(throws: EncoderError.self) { try X264Library(fileNames: [Self.missing, "libnalu-other.so"]) }
        #expect(error?.field == Self.missing)
    }

    @Test func aLibraryWithoutTheVersionedSymbolIsUnavailable() {
        // libx264 loads, but has no x265_api_get_199: another library (or another API build).
        let error = #expect(throws: EncoderError.self) { try X265Library(fileNames: ["libx264.so.164"]) }
        #expect(error?.code == .libraryUnavailable)
        #expect(error?.field == "libx264.so.164")
        #expect(error?.detail?.hasPrefix("has no symbol x265_api_get_199") == true)
        #expect(error?.description.hasPrefix("libx264.so.164: library unavailable (has no symbol x265_api_get_199") == true)
    }

    @Test func theInstalledLibrariesLoadOnceWithTheHeadersSonames() throws {
        #expect(try X264Library.load().fileName == "libx264.so.\(X264BackendFactory.build)")
        #expect(try X265Library.load().fileName == "libx265.so.\(X265BackendFactory.build)")
        #expect(try OpenH264Library.load().fileName == "libopenh264.so.7")
        #expect(X264BackendFactory.build == 164 && X265BackendFactory.build == 199)
        // What Debian's libopenh264-7 (2.3.1 on this machine and in CI's bookworm) reports.
        #expect(OpenH264BackendFactory.version.hasPrefix("2."))
        #expect(X265BackendFactory.supports(bitDepth: 8) && X265BackendFactory.supports(bitDepth: 10))
        let statuses = [X264BackendFactory.libraryStatus, X265BackendFactory.libraryStatus, OpenH264BackendFactory.libraryStatus]
        #expect(statuses.map(\.encoder) == ["x264", "x265", "openh264"])
        #expect(statuses.allSatisfy { $0.error == nil && $0.version != nil })
    }
}
