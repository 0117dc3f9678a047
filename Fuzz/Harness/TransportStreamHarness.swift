// The MPEG-TS demultiplexer. The first byte picks the mode: bit 0 the packet size (188, or 192
// for M2TS), bit 1 a requested PID (0x100, what ffmpeg uses), bits 2–7 the read size of a
// second pass. The rest is the input. Properties: finding the program gives the video stream or
// a typed error; the payload handed out is as long as the demuxer counts, no longer than the
// input, the same whatever the read sizes, and every input byte is consumed; every warning is
// counted once; the Annex-B reader then takes the payload without trapping.
import NALU
import NALUTS

enum TransportStreamHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        _ = bytes.withUnsafeBytes { TransportStreamDetection.packetSize(of: $0, hinted: mode & 1 != 0) }
        let packetSize = mode & 1 == 0 ? TransportStream.packetSize : TransportStream.timestampedPacketSize
        let pid: UInt16? = mode & 2 != 0 ? 0x100 : nil
        guard let whole = try demux(bytes, packetSize: packetSize, pid: pid, chunk: nil) else { return }
        let chunk = Int(mode >> 2) + 1
        guard let pieces = try demux(bytes, packetSize: packetSize, pid: pid, chunk: chunk) else {
            throw FuzzPropertyViolation(description: "the program is found with one read but not with \(chunk)-byte reads")
        }
        try fuzzCheck(pieces.payload == whole.payload, "\(chunk)-byte reads give \(pieces.payload.count) payload bytes, one read \(whole.payload.count)")
        try fuzzCheck(pieces.warnings == whole.warnings, "\(chunk)-byte reads give \(pieces.warnings) warnings, one read \(whole.warnings)")
        guard !whole.payload.isEmpty, let codec = whole.codec else { return }
        if var reader = try? ElementaryStreamReader(MemorySource(whole.payload), format: .annexB, codec: codec) {
            var count = 0
            try? reader.forEachNALUnit { _ in count += 1 }
        }
    }

    /// The payload and warning count of `bytes`, or `nil` when no program is found.
    static func demux(_ bytes: [UInt8], packetSize: Int, pid: UInt16?, chunk: Int?) throws(FuzzPropertyViolation)
        -> (payload: [UInt8], warnings: Int, codec: Codec?)? {
        let reader = TransportStreamReader(MemorySource(bytes, chunkSize: chunk), packetSize: packetSize, pid: pid, chunkPackets: 8)
        final class Count { var value = 0 }
        let reported = Count()
        reader.demuxer.onWarning = { _ in reported.value += 1 }
        do {
            try reader.readProgram()
        } catch {
            // A NALUError: `readProgram` throws only that type (typed throws).
            return nil
        }
        var payload: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1000)
        while true {
            let count: Int
            do { count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) } } catch {
                throw FuzzPropertyViolation(description: "reading memory threw \(error)")
            }
            if count == 0 { break }
            payload += buffer[0..<count]
        }
        let counts = reader.demuxer.counts
        try fuzzCheck(Int64(payload.count) == counts.elementaryBytes, "\(payload.count) payload bytes handed out, \(counts.elementaryBytes) counted")
        try fuzzCheck(payload.count <= bytes.count, "\(payload.count) payload bytes out of a \(bytes.count)-byte input")
        try fuzzCheck(reader.bytesRead == Int64(bytes.count), "\(reader.bytesRead) of \(bytes.count) input bytes consumed")
        try fuzzCheck(counts.pesPackets <= counts.packets, "\(counts.pesPackets) PES packets in \(counts.packets) packets")
        try fuzzCheck(counts.totalWarnings == reported.value, "\(reported.value) warnings reported, \(counts.totalWarnings) counted")
        let video = reader.demuxer.video
        try fuzzCheck(video?.isReadableVideo == true, "the program was found without an H.264/H.265 stream")
        if let pid { try fuzzCheck(video?.pid == pid, "PID \(video?.pid ?? 0) chosen, \(pid) requested") }
        let codec: Codec? = video.map { $0.streamType == TransportStreamType.hevc.rawValue ? .hevc : .h264 }
        return (payload, counts.totalWarnings, codec)
    }
}
