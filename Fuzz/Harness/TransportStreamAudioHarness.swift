// A transport stream's audio frames (TransportStreamAudioReader: AAC in ADTS, AC-3, MPEG audio,
// each frame split by its sync header) and the frame header parsers (AC3SyncFrame,
// MPEGAudioFrameHeader) on untrusted bytes. The first byte picks the mode: bits 0–1 the stream's
// coding (0 AAC, 1 ATSC AC-3, 2 DVB AC-3, 3 MPEG audio), bits 2–3 its PID (0x100 + n). The rest is
// the transport stream, read from a temporary file as the reader reads its input. Properties: the
// reader ends with frames or nothing (an I/O error aside), never traps; every frame is as long as
// its coding allows at most; frames and skipped bytes together are no more than the input; the
// sample entry is made; and at every offset the header parsers give a frame length in their
// spec's bounds or a typed error.
import NALU
import NALUTS
import NALUMedia

enum TransportStreamAudioHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        try headers(bytes)
        let pid = 0x100 + UInt16(mode >> 2 & 3)
        let stream = switch mode & 3 {
        case 0: ProgramElement(streamType: 0x0F, pid: pid)
        case 1: ProgramElement(streamType: 0x81, pid: pid)
        case 2: ProgramElement(streamType: 0x06, pid: pid, hasAC3Descriptor: true)
        default: ProgramElement(streamType: 0x03, pid: pid)
        }
        guard let folder = PackageHarness.makeFolder() else { return }
        defer { PackageHarness.removeTree(folder) }
        let path = folder + "/input.ts"
        guard PackageHarness.store(bytes, to: path) else { return }
        let reader: TransportStreamAudioReader
        do {
            guard let opened = try TransportStreamAudioReader(path: path, packetSize: TransportStream.packetSize, stream: stream) else { return }
            reader = opened
        } catch {
            return
        }
        let longest = switch reader.coding {
        case .aac: ADTSHeader.maxFrameLength
        case .ac3: AC3SyncFrame.maxFrameSize
        case .mpegAudio: MPEGAudioFrameHeader.maxFrameLength
        }
        try fuzzCheck([384, 576, 1024, 1152, 1536].contains(reader.samplesPerFrame), "\(reader.samplesPerFrame) samples per frame")
        try fuzzCheck(reader.sampleRate > 0 && reader.channelCount > 0, "rate \(reader.sampleRate), \(reader.channelCount) channels")
        let entry = reader.mp4SampleEntry
        try fuzzCheck(entry.count >= 36, "a sample entry of \(entry.count) bytes")
        var total = 0
        var frames = 0
        do {
            while let frame = try reader.next() {
                try fuzzCheck(!frame.frame.isEmpty && frame.frame.count <= longest, "a frame of \(frame.frame.count) bytes (at most \(longest))")
                total += frame.frame.count
                frames += 1
                try fuzzCheck(frames <= bytes.count, "more frames than input bytes")
            }
        } catch let violation as FuzzPropertyViolation {
            throw violation
        } catch {
            return
        }
        try fuzzCheck(total + reader.skippedBytes <= bytes.count, "\(total) frame bytes and \(reader.skippedBytes) skipped from \(bytes.count) input bytes")
    }

    /// Both header parsers at every offset of the first 4 KiB.
    static func headers(_ bytes: [UInt8]) throws(FuzzPropertyViolation) {
        for start in 0..<min(bytes.count, 4096) {
            let end = min(bytes.count, start + AC3SyncFrame.headerLength)
            let window = Array(bytes[start..<end])
            if let frame = try? window.withUnsafeBytes({ try AC3SyncFrame($0, offset: Int64(start)) }) {
                try fuzzCheck((128...AC3SyncFrame.maxFrameSize).contains(frame.frameSize), "AC-3 frame size \(frame.frameSize)")
                try fuzzCheck(frame.specificBox.count == 11 && (1...6).contains(frame.channelCount), "dac3 \(frame.specificBox), \(frame.channelCount) channels")
            }
            if let header = try? window.withUnsafeBytes({ try MPEGAudioFrameHeader($0, offset: Int64(start)) }) {
                try fuzzCheck(header.frameLength > MPEGAudioFrameHeader.length && header.frameLength <= MPEGAudioFrameHeader.maxFrameLength,
                              "MPEG audio frame length \(header.frameLength)")
            }
        }
    }
}
