#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A C library opened with `dlopen` when an encoder backend is first used, so that programs
/// which never encode (every `nalu` subcommand but `encode`) do not load libx264, libx265 (with
/// libstdc++ and libnuma) and libopenh264 at start (Docs/performance.md, "Startup").
///
/// Opened `RTLD_NOW | RTLD_LOCAL` and never closed: the backends keep the function pointers
/// they resolve for the life of the process. A library that cannot be opened, or lacks a
/// symbol, is an ``EncoderError/Code/libraryUnavailable`` error naming the file and the package
/// that provides it. Each backend resolves its library once (a `static let`, initialised
/// thread-safely on first use) into a `Sendable` table of function pointers.
package struct SharedLibrary {
    /// The file name asked for, e.g. `libx264.so.164`.
    package let fileName: String
    /// What to install when it is missing, e.g. `libx264-164 (Debian/Ubuntu; libx264-dev brings it too)`.
    package let installHint: String
    private let handle: UnsafeMutableRawPointer

    /// `defaults`, or the one file named by the environment variable `variable` when it is set
    /// and not empty (`NALU_LIBX264=/opt/x264/lib/libx264.so.164`: a library outside the loader's
    /// search path, or a test's missing one).
    package static func fileNames(environment variable: String, defaults: [String]) -> [String] {
        guard let value = getenv(variable), value.pointee != 0 else { return defaults }
        return [String(cString: value)]
    }

    /// Opens the first of `fileNames` that loads (the first is named in the error when none
    /// does); `installHint` says which package provides it.
    package init(fileNames: [String], installHint: String) throws(EncoderError) {
        var firstReason: String?
        for name in fileNames {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                self.fileName = name
                self.installHint = installHint
                self.handle = handle
                return
            }
            let reason = Self.lastError() ?? "cannot be opened"
            if firstReason == nil { firstReason = reason }
        }
        let name = fileNames.first ?? ""
        throw Self.unavailable(name, reason: firstReason ?? "no library name given", installHint: installHint)
    }

    /// The address of `name`, as `type` (a `@convention(c)` function type of the same ABI: the
    /// C shims declare them from the library's own prototypes).
    package func function<Function>(_ name: String, as type: Function.Type = Function.self) throws(EncoderError) -> Function {
        _ = dlerror()
        guard let address = dlsym(handle, name) else {
            throw Self.unavailable(fileName, reason: "has no symbol \(name) (another version of the library?)",
                                   installHint: installHint)
        }
        return unsafeBitCast(address, to: Function.self)
    }

    /// `<file>: library unavailable (<reason>; install <package>)`: ``EncoderError/field`` is the
    /// file, ``EncoderError/detail`` the loader's reason and what to install.
    static func unavailable(_ fileName: String, reason: String, installHint: String) -> EncoderError {
        var reason = reason
        // dlerror() starts with the file name, which the error's field already gives.
        if reason.hasPrefix(fileName + ": ") { reason.removeFirst(fileName.count + 2) }
        return EncoderError(.libraryUnavailable, field: fileName, detail: "\(reason); install \(installHint)")
    }

    private static func lastError() -> String? {
        guard let text = dlerror() else { return nil }
        return String(cString: text)
    }
}

/// One encoder library as `nalu doctor --encoders` reports it: loaded, or why not.
package struct EncoderLibraryStatus: Sendable {
    /// The backend's name: `x264`, `x265`, `openh264`.
    package var encoder: String
    /// The file opened (or, when it failed, the file asked for).
    package var fileName: String
    /// What the library says of itself when loaded (`API build 164`, `2.3.1`).
    package var version: String?
    /// Why it cannot be loaded (``EncoderError/Code/libraryUnavailable``); `nil` when it loaded.
    package var error: EncoderError?

    package init(encoder: String, fileName: String, version: String? = nil, error: EncoderError? = nil) {
        self.encoder = encoder
        self.fileName = fileName
        self.version = version
        self.error = error
    }
}
