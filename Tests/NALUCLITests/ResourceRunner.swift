import Foundation

/// Runs the built `nalu` under resource limits (`ulimit -v` for address space, `ulimit -t` for
/// CPU seconds, so a regression to quadratic time ends in SIGXCPU instead of hanging the suite)
/// and reports how it ended and what it used.
///
/// The figures come from GNU time (`/usr/bin/time`, Debian package `time`), which forks `nalu`
/// and reads its `rusage` from `wait4`. They cannot come from this process's own `wait4`: Linux
/// folds the old address space's peak into `ru_maxrss` at `exec`, and `posix_spawn` shares the
/// test process's address space until then, so every child would report the test's own RSS.
struct ResourceRunner {
    struct Result {
        /// Exit status, when the process exited.
        let status: Int32
        /// The signal that ended it, or nil.
        let signal: Int32?
        /// Peak resident set size in bytes (`ru_maxrss`).
        let peakRSS: Int
        /// User + system CPU seconds.
        let cpuSeconds: Double
        let stdout: Data
        let stderr: String
    }

    static let time = "/usr/bin/time"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: time) }

    /// Address space the child may map: the Swift runtime and glibc reserve some, the real bound
    /// is asserted on the peak RSS.
    static let addressSpaceKiB = 2 * 1024 * 1024
    /// CPU seconds before the kernel kills the child.
    static let cpuSeconds = 60

    /// - Parameters:
    ///   - pipe: feed `stdin` through `cat |`, so standard input is a pipe whose size is unknown.
    ///   - addressSpaceKiB: the `ulimit -v` (default ``addressSpaceKiB``).
    ///   - openFiles: `ulimit -n` for the child (descriptors it may have open), if given.
    static func run(_ arguments: [String], stdin: String = "/dev/null", pipe: Bool = false,
                    addressSpaceKiB: Int = ResourceRunner.addressSpaceKiB, openFiles: Int? = nil) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout").path
        let err = directory.appendingPathComponent("stderr").path
        let usage = directory.appendingPathComponent("usage").path
        let script = (openFiles.map { "ulimit -n \($0) && " } ?? "") + "ulimit -v $1 && ulimit -t $2 && in=$3 out=$4 err=$5 usage=$6 && shift 6 && "
            + (pipe ? "cat \"$in\" | \(time) -f '%M %U %S %x' -o \"$usage\" \"$@\" >\"$out\" 2>\"$err\""
                    : "exec \(time) -f '%M %U %S %x' -o \"$usage\" \"$@\" <\"$in\" >\"$out\" 2>\"$err\"")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh", String(addressSpaceKiB), String(cpuSeconds), stdin, out, err, usage,
                             CLIRunner.executable.path] + arguments
        try process.run()
        process.waitUntilExit()
        // "Command terminated by signal N" (when signalled), then "maxrss user system status".
        let report = (try? String(contentsOfFile: usage, encoding: .utf8)) ?? ""
        var signal: Int32?
        var fields: [Substring] = []
        for line in report.split(separator: "\n") {
            if line.hasPrefix("Command terminated by signal") {
                signal = line.split(separator: " ").last.flatMap { Int32($0) }
            } else if line.split(separator: " ").count == 4 {
                fields = line.split(separator: " ")
            }
        }
        let kib = fields.first.flatMap { Int($0) } ?? Int.max / 1024
        let cpu = fields.count == 4 ? (Double(fields[1]) ?? 0) + (Double(fields[2]) ?? 0) : Double.infinity
        let status = fields.count == 4 ? Int32(fields[3]) ?? -1 : -1
        return Result(status: signal == nil ? status : -1, signal: signal,
                      peakRSS: kib * 1024, cpuSeconds: cpu,
                      stdout: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(),
                      stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    /// A temporary file holding `bytes`, removed by the caller.
    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-resource-\(UUID().uuidString)-\(name)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Builds ISO BMFF boxes for the adversarial inputs.
enum AdversarialBoxes {
    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func u64(_ value: UInt64) -> [UInt8] { u32(UInt32(value >> 32)) + u32(UInt32(value & 0xFFFF_FFFF)) }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// The top-level boxes of `file`: (type, offset, size).
    static func topLevel(_ file: [UInt8]) -> [(type: String, offset: Int, size: Int)] {
        var boxes: [(String, Int, Int)] = []
        var offset = 0
        while offset + 8 <= file.count {
            let size = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
            guard size >= 8 else { break }
            boxes.append((String(decoding: file[offset + 4..<offset + 8], as: UTF8.self), offset, size))
            offset += size
        }
        return boxes
    }

    /// A movie fragment of track 1 with one run of `count` samples of `duration` ticks each, of
    /// the default size 0 (no per-sample sizes), the decode time restarting at 0 (`tfdt`).
    static func emptyFragment(sequence: UInt32, count: UInt32, duration: UInt32) -> [UInt8] {
        let mfhd = box("mfhd", u32(0) + u32(sequence))
        // tfhd: default-base-is-moof | default_sample_duration | default_sample_size present.
        let tfhd = box("tfhd", u32(0x02_0018) + u32(1) + u32(duration) + u32(0))
        let tfdt = box("tfdt", [1, 0, 0, 0] + u64(0))
        let trun = box("trun", u32(0) + u32(count))
        return box("moof", mfhd + box("traf", tfhd + tfdt + trun))
    }
}
