#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether work put on a second thread (``ReadAhead``) will likely run beside this one, on a core
/// of its own: a second thread only pays then; sharing one core, two threads cost more time
/// than one.
package enum SecondCPU {
    /// On Linux: the affinity mask (`Cpus_allowed` in `/proc/self/status`) and the cgroup's CPU
    /// quota (`/sys/fs/cgroup/cpu.max`) must allow two CPUs (a Slurm job or a container held to
    /// one CPU keeps one thread), and the last minute's load average (`/proc/loadavg`) must leave
    /// at least half a CPU spare (a machine busy with other work). Elsewhere: two CPUs online.
    /// - Parameter variable: an environment variable that overrides the guess: `0` never, `1`
    ///   always.
    package static func isLikelyFree(unless variable: String) -> Bool {
        if let setting = getenv(variable) {
            switch String(cString: setting) {
            case "0": return false
            case "1": return true
            default: break
            }
        }
        #if os(Linux)
        // "Cpus_allowed:\tff,ffffffff": a hexadecimal mask in comma-separated groups.
        guard let status = smallFile("/proc/self/status"),
              let mask = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return false }
        let allowed = mask.dropFirst("Cpus_allowed:".count).split(separator: ",")
            .reduce(0) { $0 + (UInt64(String($1.filter { !$0.isWhitespace }), radix: 16)?.nonzeroBitCount ?? 0) }
        guard allowed >= 2 else { return false }
        // "2.31 1.80 …": the first figure is the last minute's load average.
        if let load = smallFile("/proc/loadavg")?.split(separator: " ").first.flatMap({ Double($0) }),
           load > Double(allowed) - 0.5 {
            return false
        }
        // "max 100000" or "150000 100000": a quota under two periods allows less than two CPUs.
        if let quota = smallFile("/sys/fs/cgroup/cpu.max")?.split(whereSeparator: \.isWhitespace),
           quota.count >= 2, let limit = Int(quota[0]), let period = Int(quota[1]), period > 0, limit / 2 < period {
            return false
        }
        return true
        #else
        return sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        #endif
    }

    /// The first 8 KiB of a small system file as text, or `nil`.
    private static func smallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        var filled = 0
        while filled < bytes.count {
            let count = (try? bytes.withUnsafeMutableBytes {
                try FileSource.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), path: path)
            }) ?? 0
            if count <= 0 { break }
            filled += count
        }
        return String(decoding: bytes[0..<filled], as: UTF8.self)
    }
}
