import NALU
import NALUMP4
import NALUMedia

/// The audio rendition of a live package (``LivePackager``): the first ADTS AAC stream of the
/// transport stream, read in the same pass as the video (its packets come from the demuxer's
/// ``NALUTS/TransportStreamDemuxer/onAuxiliaryPacket``, through ``AudioPESAssembler``), written as
/// `a0_init.mp4` and `a0_00001.m4s`, … as ``Packager`` writes a file's AAC: each frame's bytes
/// unchanged, its time from its PES packet's PTS (1024 samples per frame after the first of a
/// PES packet), cut where the video's segments start.
///
/// A frame is placed once the video has been emitted past its time (a segment the video starts
/// later cannot start before that picture's decoding time, which no presentation time precedes)
/// and its successor has arrived (its duration: 1024 samples, or up to the next frame's PTS
/// across a gap). Frames that end before the first packaged picture are left out with a note,
/// as the pictures before the first keyframe are. Memory: the frames not yet placed (bounded:
/// ``maxHeldSeconds``) and one segment.
final class LiveAudio {
    let pid: UInt16
    private let folder: PackageFolder
    private let options: PackagerOptions
    private let name = "a0"
    private var assembler: AudioPESAssembler
    /// Frames read, not yet placed (PTS at 90 kHz).
    private var queue: [(frame: [UInt8], pts: Int64)] = []
    private var queueStart = 0
    /// Video segment starts (90 kHz presentation times) the audio has not reached yet, and
    /// whether each starts a new period (a parameter-set change: the audio segment from there
    /// is marked, so both playlists have their discontinuity at the same place).
    private var boundaries: [(time: Int64, newPeriod: Bool)] = []
    /// The first packaged picture's presentation time.
    private var start: Int64?
    /// The decoding time (sample-rate ticks) of the next frame placed.
    private var nextDecode: Int64?
    /// A failure while placing frames from the demuxer's callback (which cannot throw): thrown
    /// at the next picture or at the end.
    private var overflow: (any Error)?
    private(set) var segmenter: FragmentSegmenter?
    private(set) var track: PackagedTrack?
    private(set) var notes: [String] = []
    /// Frames left out because they end before the first packaged picture.
    private(set) var droppedBeforeStart = 0
    /// Told after each audio part and segment is written.
    var didWrite: (() throws -> Void)?

    /// The most audio (seconds of PTS) held waiting for the video: past it the audio is placed
    /// without waiting (the video stalled or ended), so memory stays bounded.
    var maxHeldSeconds: Double { max(10, 3 * options.segmentDuration.doubleValue) }

    init(pid: UInt16, folder: PackageFolder, options: PackagerOptions) {
        self.pid = pid
        self.folder = folder
        self.options = options
        assembler = AudioPESAssembler(pid: pid)
    }

    /// Reads one transport packet of the audio PID (called by the demuxer as it comes).
    func push(_ packet: UnsafeRawBufferPointer) {
        guard overflow == nil else { return }
        if assembler.push(packet) { collectFrames() }
    }

    /// Ends the input: the last PES packet's frames.
    func endOfInput() {
        if overflow == nil, assembler.finish() { collectFrames() }
    }

    private func collectFrames() {
        while let frame = assembler.nextFrame() {
            queue.append(frame)
            if start == nil {
                // Before the first keyframe (a stream joined mid-GOP): what is that far older than
                // the newest frame precedes the first picture, which comes with about the newest.
                while queueStart < queue.count, Double(frame.pts &- queue[queueStart].pts) > maxHeldSeconds * 90_000 {
                    droppedBeforeStart += 1
                    queueStart += 1
                }
                if queueStart > 64 {
                    queue.removeFirst(queueStart)
                    queueStart = 0
                }
                continue
            }
            if let first = queue.dropFirst(queueStart).first, Double(frame.pts &- first.pts) > maxHeldSeconds * 90_000 {
                // The video stalled or ended while the audio runs on: the audio that far behind
                // the newest frame goes into the open segment without waiting for the video's
                // next cut (memory stays bounded; nothing is dropped). A failure to write is
                // reported at the next picture or at the end.
                do {
                    try place(upTo: frame.pts &- Int64(maxHeldSeconds * 90_000), all: false)
                } catch {
                    overflow = error
                    return
                }
            }
        }
    }

    /// Places the frames that come before a video picture emitted with decoding time `decode`
    /// and presentation time `presentation` (90 kHz); `startsSegment`: it starts a segment (the
    /// first: where the audio starts); `newPeriod`: it starts a new period.
    func video(decode: Int64, presentation: Int64, startsSegment: Bool, newPeriod: Bool = false) throws {
        if let overflow { throw overflow }
        if start == nil {
            start = presentation
        } else if startsSegment {
            boundaries.append((presentation, newPeriod))
        }
        try place(upTo: decode, all: false)
    }

    /// Places every frame left and writes the last segment.
    func finish() throws {
        if let overflow { throw overflow }
        endOfInput()
        if start != nil { try place(upTo: .max, all: true) }
        try segmenter?.flush()
        if droppedBeforeStart > 0 {
            notes.append("\(droppedBeforeStart) AAC frame(s) before the first packaged picture were not packaged, as the pictures before the first keyframe")
        }
        if segmenter?.segments.isEmpty ?? true {
            notes.append("audio PID 0x\(String(pid, radix: 16)): no AAC frame came with the packaged pictures: the package has no audio rendition")
        }
        if assembler.skippedBytes > 0 {
            notes.append("audio PID 0x\(String(pid, radix: 16)): \(assembler.skippedBytes) bytes of damaged AAC (a PES packet without PTS, an ADTS header that does not parse) skipped")
        }
    }

    /// Writes the last segment after a failure, as far as it goes.
    func endAfterFailure() { try? segmenter?.flush() }

    private func place(upTo decode: Int64, all: Bool) throws {
        guard let start else { return }
        while queueStart < queue.count {
            let frame = queue[queueStart]
            guard all || frame.pts <= decode else { break }
            let following = queueStart + 1 < queue.count ? queue[queueStart + 1] : nil
            guard all || following != nil else { break }
            try configure()
            guard let segmenter, let track else { return }
            let rate = Int64(track.timescale)
            let frameTicks = 1024 * 90_000 / max(1, rate)
            if nextDecode == nil, frame.pts &+ frameTicks <= start {
                droppedBeforeStart += 1
                queueStart += 1
                continue
            }
            var samples: Int64 = 1024
            if let following {
                guard let distance = CheckedNumber.rescale(following.pts &- frame.pts, from: 90_000, to: rate), distance > 0 else {
                    throw NALUError(.invalidValue, field: "audio PID 0x\(String(pid, radix: 16)) PTS",
                                    detail: "\(following.pts) ticks follows \(frame.pts): the audio's time goes back, a discontinuity live packaging does not carry")
                }
                // 1024 samples within 90 kHz rounding; a gap makes the frame last to the next one.
                samples = abs(distance - 1024) <= 64 ? 1024 : min(distance, Int64(UInt32.max))
            }
            while let boundary = boundaries.first, frame.pts >= boundary.time {
                try segmenter.flush()
                if boundary.newPeriod { segmenter.period += 1 }
                boundaries.removeFirst()
            }
            let time: Int64
            if let nextDecode {
                time = nextDecode
            } else {
                guard let first = CheckedNumber.rescale(frame.pts, from: 90_000, to: rate) else {
                    throw NALUError(.tooLarge, field: "audio PID 0x\(String(pid, radix: 16)) PTS", detail: "\(frame.pts) ticks")
                }
                time = first
            }
            let timing = try PackagedTime.timing(decode: time, presentation: time, duration: samples, timescale: track.timescale, name: "input audio")
            try frame.frame.withUnsafeBytes { try segmenter.append($0, timing: timing, isSync: true) }
            nextDecode = time &+ samples
            queueStart += 1
        }
        // The placed frames leave the queue (in blocks, so removal stays linear).
        if queueStart > 64 || queueStart == queue.count {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
    }

    /// At the first frame: the track, its init segment and segmenter (from the first ADTS header).
    private func configure() throws {
        guard segmenter == nil, let config = assembler.firstConfig else { return }
        let entry = TransportStreamAudioReader.mp4SampleEntry(audioSpecificConfig: config.asc, sampleRate: config.rate, channelCount: config.channels)
        guard let codecs = CodecString.audio(sampleEntry: entry), config.rate > 0 else {
            throw NALUError(.unsupported, field: "audio PID 0x\(String(pid, radix: 16))", detail: "the ADTS header names no AAC the packager can describe")
        }
        let timescale = UInt32(config.rate)
        var packaged = PackagedTrack(kind: .audio, inputPath: "-", name: name, initName: name + "_init.mp4", timescale: timescale,
                                     codecs: codecs, channels: CodecString.channels(sampleEntry: entry))
        packaged.partTarget = options.partDuration?.doubleValue
        let header = CMAFBoxes.passthroughHeader(MP4PassthroughTrack(handler: "soun", timescale: timescale, sampleEntries: [entry]),
                                                 movieTimescale: 90_000)
        try folder.write([header], to: name + "_init.mp4")
        let made = FragmentSegmenter(folder: folder, name: name, trackID: 2, timescale: timescale, presentationOffset: 0)
        made.partTarget = options.partDuration.map { max(1, Int64(($0.doubleValue * Double(timescale)).rounded(.down))) }
        made.didWrite = { [unowned self] in try self.didWrite?() }
        segmenter = made
        track = packaged
    }
}
