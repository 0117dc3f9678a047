import NALU
import NALUIO
import NALUMP4

/// Writes a file of a package whole: under a temporary name beside it, renamed into place
/// when complete (NALUIO's ``NALUIO/FileSink`` and ``NALUIO/OutputTarget``), so a reader of the
/// folder never sees a partial segment or playlist.
enum PackageFile {
    /// Writes `parts` one after the other to `directory/name`; returns the bytes written.
    @discardableResult
    static func write(_ parts: [[UInt8]], to name: String, in directory: String) throws -> Int64 {
        let sink = try FileSink(path: directory + "/" + name)
        for part in parts { try sink.write(part) }
        let count = sink.bytesWritten
        try sink.commit()
        return count
    }

    /// Writes `text` (UTF-8) to `directory/name`.
    static func write(text: String, to name: String, in directory: String) throws {
        try write([Array(text.utf8)], to: name, in: directory)
    }
}

/// Collects the samples of one track into CMAF segments of one fragment each (ISO/IEC 23000-19
/// 7.3.2.2) and writes each when it is complete: `<name>_00001.m4s`, `<name>_00002.m4s`, …
/// Samples passed unchanged from a regular file are not held: their file ranges are copied by
/// the kernel when the segment is written (``append(fileBytes:count:timing:isSync:)``). Memory: one
/// segment's sample entries and the bytes of the samples changed.
final class FragmentSegmenter {
    let directory: String
    let name: String
    let trackID: UInt32
    let timescale: UInt32
    /// The track's edit (`media_time`): presentation times in ``PackagedSegment`` are taken
    /// after it.
    let presentationOffset: Int64
    private(set) var segments: [PackagedSegment] = []
    private var samples: [CMAFSample] = []
    private var data: [UInt8] = []
    private var firstDecode: Int64 = 0
    private var firstPresentation: Int64 = 0
    private var duration: Int64 = 0
    /// The open segment's bytes in order: runs of ``data``, and runs of the source file.
    private enum Part {
        case memory(Range<Int>)
        case file(offset: Int64, count: Int)
    }
    private var parts: [Part] = []
    /// The source file's descriptor, when samples may be copied from it
    /// (``append(fileBytes:count:timing:isSync:)``).
    var sourceDescriptor: Int32?
    /// The open segment's first sample's `rap ` group, if any.
    private var firstLeadingSamples: Int?
    /// The decoding time the next sample must have (its predecessor's plus its duration).
    private var expectedDecode: Int64?

    init(directory: String, name: String, trackID: UInt32, timescale: UInt32, presentationOffset: Int64) {
        self.directory = directory
        self.name = name
        self.trackID = trackID
        self.timescale = timescale
        self.presentationOffset = presentationOffset
    }

    /// Whether a segment is open (has samples).
    var isOpen: Bool { !samples.isEmpty }
    /// The decoding time of the open segment's first sample.
    var openDecodeTime: Int64 { firstDecode }

    /// The file name of segment `number` (1-based).
    func segmentName(_ number: Int) -> String {
        let digits = String(number)
        return name + "_" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + ".m4s"
    }

    /// Adds a sample to the open segment (opening one if none is).
    /// - Throws: ``NALUError`` when its times do not fit a `trun` (a duration past 32 bits, a
    ///   negative decoding time) or its decoding time is not its predecessor's plus its duration.
    /// `randomAccessLeadingSamples` puts the segment's first sample in a `rap ` sample group with
    /// that many leading samples (``CMAFBoxes/segmentHeader(sequenceNumber:trackID:baseMediaDecodeTime:samples:randomAccessLeadingSamples:)``).
    func append(_ bytes: UnsafeRawBufferPointer, timing: SampleTiming, isSync: Bool, randomAccessLeadingSamples: Int? = nil,
                source: (offset: Int64, count: Int)? = nil) throws {
        let size = source?.count ?? bytes.count
        guard timing.decode >= 0 else {
            throw NALUError(.invalidValue, field: "\(name) decoding time", detail: "\(timing.decode) ticks: before the track's start")
        }
        guard timing.duration >= 0, timing.duration <= Int64(UInt32.max), size <= Int(UInt32.max) else {
            throw NALUError(.tooLarge, field: "\(name) sample_duration", detail: "\(timing.duration) ticks, \(size) bytes")
        }
        guard let offset = timing.compositionOffset else {
            throw NALUError(.invalidValue, field: "\(name) composition offset", detail: "does not fit 64 bits")
        }
        if samples.isEmpty {
            firstLeadingSamples = randomAccessLeadingSamples
            firstDecode = timing.decode
            firstPresentation = timing.presentation
            duration = 0
        } else if let expectedDecode, expectedDecode != timing.decode {
            // A gap or overlap inside a segment: the trun's durations could not place it.
            throw NALUError(.invalidValue, field: "\(name) decoding time",
                            detail: "sample at \(timing.decode) ticks follows one ending at \(expectedDecode): durations and times disagree")
        }
        firstPresentation = min(firstPresentation, timing.presentation)
        samples.append(CMAFSample(size: UInt32(size), duration: UInt32(timing.duration), compositionOffset: offset, isSync: isSync))
        if let source {
            // Bytes of the source file: copied by the kernel when the segment is written.
            if case .file(let start, let count)? = parts.last, start + Int64(count) == source.offset {
                parts[parts.count - 1] = .file(offset: start, count: count + size)
            } else {
                parts.append(.file(offset: source.offset, count: size))
            }
        } else {
            if case .memory(let range)? = parts.last, range.upperBound == data.count {
                parts[parts.count - 1] = .memory(range.lowerBound..<(data.count + size))
            } else {
                parts.append(.memory(data.count..<(data.count + size)))
            }
            data.append(contentsOf: bytes)
        }
        duration += timing.duration
        expectedDecode = timing.decode &+ timing.duration
    }

    /// Adds a sample that is `count` bytes of the source file (``sourceDescriptor``) at `offset`,
    /// unchanged: not read, copied file to file when the segment is written.
    func append(fileBytes offset: Int64, count: Int, timing: SampleTiming, isSync: Bool) throws {
        try append(UnsafeRawBufferPointer(start: nil, count: 0), timing: timing, isSync: isSync, source: (offset, count))
    }

    /// Writes the open segment, if any.
    func flush() throws {
        guard let first = samples.first else { return }
        let number = segments.count + 1
        let header = try CMAFBoxes.segmentHeader(sequenceNumber: UInt32(truncatingIfNeeded: number), trackID: trackID,
                                                 baseMediaDecodeTime: UInt64(firstDecode), samples: samples,
                                                 randomAccessLeadingSamples: firstLeadingSamples)
        let segmentName = segmentName(number)
        let sink = try FileSink(path: directory + "/" + segmentName)
        try sink.write(header)
        for part in parts {
            switch part {
            case .memory(let range):
                try data.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[range])) }
            case .file(let offset, let count):
                guard let sourceDescriptor else { throw NALUError(.missing, field: name, detail: "no source file to copy samples from") }
                try sink.append(copying: sourceDescriptor, offset: offset, count: count)
            }
        }
        let bytes = sink.bytesWritten
        try sink.commit()
        segments.append(PackagedSegment(name: segmentName, decodeTime: firstDecode, presentationTime: firstPresentation &- presentationOffset,
                                        duration: duration, bytes: bytes, samples: samples.count, startsWithSyncSample: first.isSync))
        samples.removeAll(keepingCapacity: true)
        data.removeAll(keepingCapacity: true)
        parts.removeAll(keepingCapacity: true)
    }
}
