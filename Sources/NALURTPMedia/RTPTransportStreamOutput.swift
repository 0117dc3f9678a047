#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUPackager

/// The MPEG-TS outputs of a recording: a `.ts`/`.m2ts` file (``NALUIO/FileSink``: temporary
/// name, renamed at the end), or a live HLS package — the same transport stream through a pipe
/// into a `LivePackager` on a thread of its own (`nalu package --live`'s packager: fMP4
/// segments, a sliding-window playlist, `EXT-X-ENDLIST` at the end).
final class RTPTransportStreamOutput {
    private var file: (writer: RTPTransportStreamWriter<FileSink>, sink: FileSink)?
    private var live: (writer: RTPTransportStreamWriter<RTPPipeSink>, packaging: RTPLivePackaging, writeEnd: Int32)?

    /// A transport stream file at `path` (`timestamped`: M2TS's 192-byte packets).
    init(path: String, codec: Codec, timestamped: Bool, audioSpecificConfig: [UInt8]?) throws {
        let sink = try FileSink(path: path)
        file = (try RTPTransportStreamWriter(sink: sink, codec: codec, timestamped: timestamped, audioSpecificConfig: audioSpecificConfig), sink)
    }

    /// A live HLS package in `directory` (created when missing) with `options`.
    init(liveDirectory directory: String, options: PackagerOptions, codec: Codec, audioSpecificConfig: [UInt8]?) throws {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw NALUError(.io, field: directory, detail: String(cString: strerror(errno)))
        }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw NALUError(.io, field: "pipe", detail: String(cString: strerror(errno))) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        do {
            let input = try LiveInput(path: "/dev/fd/\(descriptors[0])")
            let packaging = RTPLivePackaging(readEnd: descriptors[0])
            let writer = try RTPTransportStreamWriter(sink: RTPPipeSink(descriptor: descriptors[1]), codec: codec, timestamped: false,
                                                      audioSpecificConfig: audioSpecificConfig)
            guard packaging.start(LivePackager(directory: directory, options: options), input: input) else {
                throw NALUError(.io, field: "thread", detail: "no thread for the packager")
            }
            live = (writer, packaging, descriptors[1])
        } catch {
            close(descriptors[0])
            close(descriptors[1])
            throw error
        }
    }

    func write(_ nalUnits: [[UInt8]], pts: Int64, dts: Int64) throws {
        try live?.packaging.check()
        try file?.writer.write(nalUnits, pts: pts, dts: dts)
        try live?.writer.write(nalUnits, pts: pts, dts: dts)
    }

    func writeAudio(_ bytes: [UInt8], time: Int64, rate: Int) throws {
        try file?.writer.writeAudio(bytes, time: time, rate: rate)
        try live?.writer.writeAudio(bytes, time: time, rate: rate)
    }

    /// Ends the stream: the file committed, or the pipe closed and the packager waited for (its
    /// playlists ended). Returns the packager's notes.
    func finish() throws -> [String] {
        if let file {
            try file.writer.finish()
            try file.sink.commit()
            return []
        }
        guard let live else { return [] }
        self.live = nil
        var failure: (any Error)?
        do { try live.writer.finish() } catch { failure = error }
        close(live.writeEnd)
        let summary = try live.packaging.wait()
        if let failure { throw failure }
        return summary.notes
    }
}

/// Writes into a pipe's write end.
struct RTPPipeSink: ByteSink {
    let descriptor: Int32

    func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            #if canImport(Glibc) || canImport(Musl)
            let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
            #else
            let count = Darwin.write(descriptor, base + offset, bytes.count - offset)
            #endif
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw NALUError(.io, field: "pipe", detail: String(cString: strerror(errno))) }
            offset += count
        }
    }
}

/// The live packager's thread: it packages the pipe until it ends, then drains what is still
/// written (so the writer never blocks on a full pipe after a packaging error).
final class RTPLivePackaging: @unchecked Sendable {
    private let readEnd: Int32
    private let monitor = ThreadMonitor()
    // Guarded by `monitor`.
    private var result: Result<PackageSummary, NALUError>?
    private var failure: NALUError?

    init(readEnd: Int32) { self.readEnd = readEnd }

    func start(_ packager: LivePackager, input: LiveInput) -> Bool {
        let box = RTPUncheckedBox((packager, input))
        return DetachedThread.start { [self] in
            let outcome: Result<PackageSummary, NALUError>
            do {
                outcome = .success(try box.value.0.package(box.value.1))
            } catch {
                let failure = (error as? NALUError) ?? NALUError(.io, field: box.value.0.directory, detail: "\(error)")
                outcome = .failure(failure)
                monitor.lock()
                self.failure = failure
                monitor.unlock()
            }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
            close(readEnd)
            monitor.lock()
            result = outcome
            monitor.signal()
            monitor.unlock()
        }
    }

    /// The packager's error, once it stopped with one.
    func check() throws(NALUError) {
        monitor.lock()
        let failure = self.failure
        monitor.unlock()
        if let failure { throw failure }
    }

    /// Waits for the packager to end (the pipe closed).
    func wait() throws(NALUError) -> PackageSummary {
        monitor.lock()
        while result == nil { monitor.wait() }
        let result = self.result
        monitor.unlock()
        guard let result else { throw NALUError(.io, field: "packager", detail: "ended without a result") }
        return try result.get()
    }
}

/// A value handed to another thread whose owner no longer touches it.
final class RTPUncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
