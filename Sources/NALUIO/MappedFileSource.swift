/// Bytes mapped per window when reading a regular file through `mmap(2)`: 8 MiB (measured in
/// Docs/performance.md, "Reading regular files through mmap").
package let defaultMappedWindowSize = 8 << 20

#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import NALU

/// Windows onto a regular file mapped into memory (`mmap(2)`, `MAP_PRIVATE`, `MADV_SEQUENTIAL`),
/// the ``NALU/WindowedByteSource`` behind ``FileSource`` and NALUMedia's `InputFile`: readers scan
/// the page cache in place instead of having `read(2)` copy it out first.
///
/// - Memory: one window is mapped at a time (``defaultMappedWindowSize``, or more for a NAL unit larger
///   than that), unmapped before the next, so the mapped file pages counted in the resident set
///   stay bounded whatever the file's size.
/// - A file that shrinks while mapped: touching a mapped page past the new end raises `SIGBUS`.
///   A handler (installed once per process) maps a zero page over the faulting page of an active
///   window, counts the fault for that window and returns; the next window step or
///   ``verify()`` throws ``NALU/NALUError`` `.io` ("input file … shrank while being read") naming
///   the byte offset. A `SIGBUS` anywhere else gets the action that was there before (by
///   default, the process ends with the signal).
/// - The file's size is taken again for each window, so bytes appended while reading are read,
///   as `read(2)` would.
package final class MappedFileWindows {
    private let descriptor: Int32
    private let path: String
    private let windowSize: Int
    private let slot: BusFaultSlot
    /// The mapping (page-aligned) and the file offset of its first byte.
    private var mapping: UnsafeMutableRawPointer?
    private var mappingLength = 0
    private var mappingOffset: Int64 = 0

    /// Windows of `windowSize` bytes onto `descriptor` (a regular file, not closed here), or
    /// `nil` when the process already has as many windows as the `SIGBUS` handler tracks or the
    /// handler cannot be installed (read with `read(2)` then).
    package init?(descriptor: Int32, path: String, windowSize: Int = defaultMappedWindowSize) {
        guard busHandlerInstalled, let slot = BusFaultSlot.claim() else { return nil }
        self.descriptor = descriptor
        self.path = path
        self.windowSize = max(1, windowSize)
        self.slot = slot
    }

    deinit {
        unmap()
        slot.release()
    }

    /// Unmaps the current window and maps the file's bytes from `offset`: `max(minimumCount,
    /// window size)` of them, fewer at the end of the file, none at or past it.
    /// - Throws: ``NALU/NALUError`` `.io` when the file shrank under the previous window or is
    ///   now shorter than `offset`, or when `mmap(2)` fails.
    package func window(from offset: Int64, minimumCount: Int) throws -> UnsafeMutableRawBufferPointer {
        try verify()
        unmap()
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw NALUError(.io, field: path, detail: FileSource.errnoText()) }
        let size = Int64(info.st_size)
        guard offset <= size else { throw shrank(at: size, size: size) }
        guard offset >= 0, offset < size else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        let skip = Int(offset % Int64(busPageSize))
        let start = offset - Int64(skip)
        let wanted = Int64(max(minimumCount, windowSize)) + Int64(skip)
        let length = Int(min(wanted, size - start))
        guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, off_t(start)),
              address != MAP_FAILED else {
            throw NALUError(.io, field: path, byteOffset: offset, detail: "mmap: \(FileSource.errnoText())")
        }
        _ = madvise(address, length, MADV_SEQUENTIAL)
        mapping = address
        mappingLength = length
        mappingOffset = start
        slot.activate(Int(bitPattern: address), count: length)
        return UnsafeMutableRawBufferPointer(start: address + skip, count: length - skip)
    }

    /// Throws ``NALU/NALUError`` `.io` when the file shrank under the current window: bytes read
    /// from it past the new end were zeros, not the file's.
    package func verify() throws {
        let fault = slot.firstFault.load(ordering: .acquiring)
        guard fault != 0, let mapping else { return }
        let offset = mappingOffset + Int64(fault - Int(bitPattern: mapping))
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : offset
        throw shrank(at: offset, size: size)
    }

    private func shrank(at offset: Int64, size: Int64) -> NALUError {
        NALUError(.io, field: path, byteOffset: offset,
                  detail: "input file shrank while being read: byte \(offset) is gone (the file is now \(size) bytes)")
    }

    private func unmap() {
        guard let mapping else { return }
        slot.deactivate()
        munmap(mapping, mappingLength)
        self.mapping = nil
        mappingLength = 0
    }
}

/// One active window as the `SIGBUS` handler sees it: its address range and the first address
/// that faulted in it. Atomics only, as a signal handler may read nothing else safely.
private final class BusFaultSlot: Sendable {
    /// How many windows the process may have mapped at once (one per input being read).
    static let count = 64
    private let claimed = Atomic<Bool>(false)
    let low = Atomic<Int>(0)
    let high = Atomic<Int>(0)
    /// The first faulting address in the window, 0 when none.
    let firstFault = Atomic<Int>(0)

    static func claim() -> BusFaultSlot? {
        busFaultSlots.first { $0.claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
    }

    func release() {
        deactivate()
        claimed.store(false, ordering: .releasing)
    }

    func activate(_ address: Int, count: Int) {
        // Low before high: the range is empty until both are in.
        firstFault.store(0, ordering: .relaxed)
        low.store(address, ordering: .releasing)
        high.store(address + count, ordering: .releasing)
    }

    func deactivate() {
        high.store(0, ordering: .releasing)
        low.store(0, ordering: .releasing)
        firstFault.store(0, ordering: .releasing)
    }
}

private let busFaultSlots: [BusFaultSlot] = (0..<BusFaultSlot.count).map { _ in BusFaultSlot() }
private let busPageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
/// The `SIGBUS` action before ours, restored for a fault outside every window. Written once,
/// before the handler is installed.
nonisolated(unsafe) private var previousBusAction = sigaction()

/// Installs ``handleBusFault`` once per process; `false` when `sigaction(2)` failed.
private let busHandlerInstalled: Bool = {
    _ = busFaultSlots.count
    _ = busPageSize
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = handleBusFault
    action.sa_flags = SA_SIGINFO
    sigemptyset(&action.sa_mask)
    return sigaction(SIGBUS, &action, &previousBusAction) == 0
}()

/// A fault inside an active window (the file shrank under it): a zero page replaces the faulting
/// page, the window's slot records the address, and the faulting read runs again and reads zeros.
/// Anything else: the previous action is restored and the signal happens again under it.
private func handleBusFault(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    if let info, info.pointee.si_code > 0 {
        let address = Int(bitPattern: info.pointee._sifields._sigfault.si_addr)
        for index in 0..<BusFaultSlot.count {
            let slot = busFaultSlots[index]
            guard address >= slot.low.load(ordering: .acquiring), address < slot.high.load(ordering: .acquiring) else { continue }
            let page = address - address % busPageSize
            let zero = mmap(UnsafeMutableRawPointer(bitPattern: page), busPageSize, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            guard zero != MAP_FAILED else { break }
            _ = slot.firstFault.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
            return
        }
    }
    sigaction(SIGBUS, &previousBusAction, nil)
    if info.map({ $0.pointee.si_code <= 0 }) ?? true { raise(SIGBUS) }
}
#endif
