public import NALU

/// The video elementary stream of a transport stream, as a ``ByteSource``: reads 188-byte
/// packets (or 192-byte M2TS packets, whose 4-byte `TP_extra_header` it skips) from `source`,
/// finds them by their sync bytes (regaining sync after damage), demultiplexes them
/// (``TransportStreamDemuxer``) and hands out the PES payload bytes of the video PID: an
/// Annex-B byte stream for ``ElementaryStreamReader`` or ``AnnexBReader``.
///
/// Constant memory: one read buffer, allocated once; payload bytes are copied once, from the
/// read buffer into the caller's.
public final class TransportStreamReader<Source: ByteSource>: ByteSource {
    /// 188, or 192 for M2TS.
    public let packetSize: Int
    /// The demultiplexer: the program, the counts, the warning handler, the time stamps.
    public var demuxer: TransportStreamDemuxer
    /// Input bytes consumed so far (whole packets and skipped bytes).
    public var bytesRead: Int64 { base + Int64(start) }

    private var source: Source
    private let syncOffset: Int
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var base: Int64 = 0
    private var ended = false
    private var pending = 0..<0

    /// - Parameters:
    ///   - packetSize: 188 or 192 (``TransportStream/packetSize``, ``TransportStream/timestampedPacketSize``).
    ///   - pid: the video PID to read, or `nil` for the first H.264/H.265 stream of the PMT.
    ///   - chunkPackets: packets read from `source` per call.
    public init(_ source: Source, packetSize: Int, pid: UInt16? = nil, chunkPackets: Int = 2048) {
        self.source = source
        self.packetSize = packetSize == TransportStream.timestampedPacketSize ? packetSize : TransportStream.packetSize
        syncOffset = self.packetSize - TransportStream.packetSize
        demuxer = TransportStreamDemuxer(requestedPID: pid)
        buffer = .allocate(byteCount: self.packetSize * max(4, chunkPackets), alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Reads packets until a PMT names the video stream.
    /// - Parameter limit: input bytes read at most before giving up.
    /// - Throws: ``NALUError``: `.invalidValue` with field `--pid` when the requested PID is not
    ///   H.264/H.265 video or is in no PMT; `.unrecognisedFormat` (field `PMT`) when no PMT with
    ///   an H.264/H.265 stream comes within `limit` bytes; the source's error as it
    ///   reported it.
    public func readProgram(limit: Int64 = 16 << 20) throws(NALUError) {
        while demuxer.video == nil {
            if let problem = demuxer.requestedPIDProblem {
                throw NALUError(.invalidValue, field: "--pid", detail: problem)
            }
            guard bytesRead < limit, try advance() else { break }
            // No payload can come before the video PID is known.
            pending = 0..<0
        }
        guard demuxer.video == nil else { return }
        if let problem = demuxer.requestedPIDProblem { throw NALUError(.invalidValue, field: "--pid", detail: problem) }
        let seen = demuxer.streamsSeen.isEmpty ? "no PMT found" : "streams: " + demuxer.streamsSeen.map(\.description).joined(separator: ", ")
        if let pid = demuxer.requestedPID {
            throw NALUError(.invalidValue, field: "--pid", byteOffset: bytesRead,
                            detail: "PID \(pid) (0x\(String(pid, radix: 16))) is in no program map table of the first \(bytesRead) bytes (\(seen))")
        }
        throw NALUError(.unrecognisedFormat, field: "PMT", byteOffset: bytesRead,
                        detail: "no H.264 (stream_type 0x1B) or H.265 (0x24) stream in the first \(bytesRead) bytes of the transport stream (\(seen))")
    }

    /// Copies the next payload bytes of the video PID into `output`; 0 at the end of the input.
    /// - Throws: ``NALUError`` (typed): the source's error as it
    ///   reported it.
    public func read(into output: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        guard let target = output.baseAddress, let from = buffer.baseAddress else { return 0 }
        var written = 0
        while written < output.count {
            if pending.isEmpty {
                guard try advance() else { break }
                continue
            }
            let count = min(pending.count, output.count - written)
            (target + written).copyMemory(from: from + pending.lowerBound, byteCount: count)
            pending = (pending.lowerBound + count)..<pending.upperBound
            written += count
        }
        return written
    }

    /// Demultiplexes the next packet; `false` at the end of the input.
    private func advance() throws(NALUError) -> Bool {
        if end - start < packetSize { try refill() }
        if end - start < packetSize {
            if end > start {
                warn(.truncatedPacket, "the input ends \(end - start) bytes into a \(packetSize)-byte packet")
                start = end
            }
            demuxer.finish(at: bytesRead)
            return false
        }
        if buffer[start + syncOffset] != TransportStream.syncByte {
            try resynchronise()
            return try advance()
        }
        let packet = UnsafeRawBufferPointer(rebasing: buffer[(start + syncOffset)..<(start + packetSize)])
        let range = demuxer.consume(packet, at: base + Int64(start))
        pending = (start + syncOffset + range.lowerBound)..<(start + syncOffset + range.upperBound)
        start += packetSize
        return true
    }

    /// Skips to the next sync byte followed by another one a packet later (or by the end of
    /// the input), reading on as needed.
    private func resynchronise() throws(NALUError) {
        let lostAt = bytesRead
        start += 1
        while true {
            while start + syncOffset < end {
                if buffer[start + syncOffset] == TransportStream.syncByte {
                    let next = start + packetSize + syncOffset
                    if next < end {
                        if buffer[next] == TransportStream.syncByte { return skipped(from: lostAt) }
                    } else if ended {
                        return skipped(from: lostAt)
                    } else {
                        break
                    }
                }
                start += 1
            }
            if ended && start + syncOffset >= end {
                start = end
                return skipped(from: lostAt)
            }
            try refill()
        }
    }

    private func skipped(from offset: Int64) {
        let count = bytesRead - offset
        demuxer.noteSkipped(count)
        demuxer.note(.syncLost, at: offset, "no sync_byte 0x47 where a packet should start; \(count) bytes skipped to the next packet")
    }

    /// Moves the unread bytes to the front and reads until the buffer is full or the input ends.
    private func refill() throws(NALUError) {
        if start > 0 {
            if end > start, let base = buffer.baseAddress {
                base.copyMemory(from: base + start, byteCount: end - start)
            }
            base += Int64(start)
            end -= start
            start = 0
        }
        while !ended && end < buffer.count {
            let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if count <= 0 { ended = true } else { end += count }
            if end - start >= packetSize * 2 { break }
        }
    }

    private func warn(_ kind: TransportStreamWarning.Kind, _ detail: String) {
        demuxer.note(kind, at: bytesRead, detail)
    }
}
