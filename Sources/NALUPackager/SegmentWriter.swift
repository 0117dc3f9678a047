import NALU
import NALUIO
import NALUMP4
import NALUMedia

/// Collects the samples of one track into CMAF segments (ISO/IEC 23000-19 7.3.2.2) and writes
/// each when it is complete: `<name>_00001.m4s`, `<name>_00002.m4s`, … Without parts a segment is
/// one fragment. With ``partTarget`` (low-latency HLS) a segment is a run of CMAF chunks (7.3.2.3,
/// one `moof` + `mdat` each, the first after the `styp`), each also written as soon as it is
/// complete as a part file `<name>_00001.p1.m4s`, …: a chunk ends before the sample that would
/// take it past the part target, so no part lasts longer (RFC 8216bis 4.4.4.9), and the segment
/// file is its parts' bytes one after the other. Memory: one segment.
final class FragmentSegmenter {
    let folder: PackageFolder
    let name: String
    let trackID: UInt32
    let timescale: UInt32
    /// The track's edit (`media_time`): presentation times in ``PackagedSegment`` are taken
    /// after it.
    let presentationOffset: Int64
    /// The longest a part may last, in ticks; `nil`: no parts (one fragment per segment).
    var partTarget: Int64?
    /// Told after each part and each segment is written (a live playlist is rewritten then).
    var didWrite: (() throws -> Void)?
    /// Live: the period (parameter-set changes so far) and init segment (`nil`: the track's)
    /// of the segments flushed from now on (``PackagedSegment/period``).
    var period = 0
    var initName: String?
    private(set) var segments: [PackagedSegment] = []
    /// The parts of the open segment written so far.
    private(set) var openParts: [PackagedPart] = []
    /// Chunks (fragments) written so far: the `mfhd` sequence number of the last.
    private var chunks = 0
    /// The open chunk's samples and their bytes.
    private var samples: [CMAFSample] = []
    private var data: [UInt8] = []
    /// The open segment's bytes of the chunks closed so far.
    private var segmentBytes: [UInt8] = []
    private var segmentSamples = 0
    private var segmentStartsWithSync = false
    /// The open segment's first sample's `rap ` group, if any.
    private var firstLeadingSamples: Int?
    private var chunkDecode: Int64 = 0
    private var chunkDuration: Int64 = 0
    private var firstDecode: Int64 = 0
    private var firstPresentation: Int64 = 0
    private var duration: Int64 = 0
    /// The decoding time the next sample must have (its predecessor's plus its duration).
    private var expectedDecode: Int64?

    init(folder: PackageFolder, name: String, trackID: UInt32, timescale: UInt32, presentationOffset: Int64) {
        self.folder = folder
        self.name = name
        self.trackID = trackID
        self.timescale = timescale
        self.presentationOffset = presentationOffset
    }

    /// Whether a segment is open (has samples).
    var isOpen: Bool { segmentSamples > 0 }
    /// The decoding time of the open segment's first sample.
    var openDecodeTime: Int64 { firstDecode }

    /// The file name of segment `number` (1-based).
    func segmentName(_ number: Int) -> String {
        let digits = String(number)
        return name + "_" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + ".m4s"
    }

    /// The file name of part `part` (1-based) of segment `number`.
    func partName(_ number: Int, _ part: Int) -> String {
        let digits = String(number)
        return name + "_" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + ".p\(part).m4s"
    }

    /// The name the next part will have (LL-HLS `EXT-X-PRELOAD-HINT`).
    var nextPartName: String { partName(segments.count + 1, openParts.count + 1) }

    /// Adds a sample to the open segment (opening one if none is).
    /// - Throws: ``NALUError`` when its times do not fit a `trun` (a duration past 32 bits, a
    ///   negative decoding time) or its decoding time is not its predecessor's plus its duration.
    /// `randomAccessLeadingSamples` puts the segment's first sample in a `rap ` sample group with
    /// that many leading samples (``CMAFBoxes/segmentHeader(sequenceNumber:trackID:baseMediaDecodeTime:samples:segmentType:randomAccessLeadingSamples:)``).
    func append(_ bytes: UnsafeRawBufferPointer, timing: SampleTiming, isSync: Bool, randomAccessLeadingSamples: Int? = nil) throws {
        guard timing.decode >= 0 else {
            throw NALUError(.invalidValue, field: "\(name) decoding time", detail: "\(timing.decode) ticks: before the track's start")
        }
        guard timing.duration >= 0, timing.duration <= Int64(UInt32.max), bytes.count <= Int(UInt32.max) else {
            throw NALUError(.tooLarge, field: "\(name) sample_duration", detail: "\(timing.duration) ticks, \(bytes.count) bytes")
        }
        if let partTarget, timing.duration > partTarget {
            // A part holds whole samples: one this long would make a part longer than the
            // PART-TARGET the playlist states (RFC 8216bis 4.4.4.9).
            throw NALUError(.invalidValue, field: "\(name) sample duration", detail: "\(HLSPlaylist.decimal(timing.duration, timescale)) s, longer than "
                            + "the PART-TARGET of \(HLSPlaylist.decimal(partTarget, timescale)) s (--part-duration): a part holds whole pictures; "
                            + "check the stream's frame rate (its SPS VUI timing, or --fps) or give a longer --part-duration")
        }
        guard let offset = timing.compositionOffset else {
            throw NALUError(.invalidValue, field: "\(name) composition offset", detail: "does not fit 64 bits")
        }
        if segmentSamples == 0 {
            firstLeadingSamples = randomAccessLeadingSamples
            firstDecode = timing.decode
            firstPresentation = timing.presentation
            duration = 0
            segmentStartsWithSync = isSync
        } else if let expectedDecode, expectedDecode != timing.decode {
            // A gap or overlap inside a segment: the trun's durations could not place it.
            throw NALUError(.invalidValue, field: "\(name) decoding time",
                            detail: "sample at \(timing.decode) ticks follows one ending at \(expectedDecode): durations and times disagree")
        }
        if let partTarget, !samples.isEmpty, chunkDuration + timing.duration > partTarget {
            try closeChunk()
        }
        if samples.isEmpty {
            chunkDecode = timing.decode
            chunkDuration = 0
        }
        firstPresentation = min(firstPresentation, timing.presentation)
        samples.append(CMAFSample(size: UInt32(bytes.count), duration: UInt32(timing.duration), compositionOffset: offset, isSync: isSync))
        data.append(contentsOf: bytes)
        duration += timing.duration
        chunkDuration += timing.duration
        segmentSamples += 1
        expectedDecode = timing.decode &+ timing.duration
    }

    /// Ends the open chunk: its bytes join the segment's; with parts, it is written as a part.
    /// `returningHeader`: the chunk is the whole segment (no parts), which the caller writes as
    /// its header and ``data`` as they are (no copy into the segment's buffer).
    @discardableResult
    private func closeChunk(returningHeader: Bool = false) throws -> [UInt8]? {
        guard let first = samples.first else { return nil }
        chunks += 1
        let header = try CMAFBoxes.segmentHeader(sequenceNumber: UInt32(truncatingIfNeeded: chunks), trackID: trackID,
                                                 baseMediaDecodeTime: UInt64(chunkDecode), samples: samples,
                                                 segmentType: segmentBytes.isEmpty,
                                                 randomAccessLeadingSamples: segmentBytes.isEmpty ? firstLeadingSamples : nil)
        if partTarget != nil {
            let partName = partName(segments.count + 1, openParts.count + 1)
            let bytes = try folder.write([header, data], to: partName)
            openParts.append(PackagedPart(name: partName, duration: chunkDuration, bytes: bytes, independent: first.isSync))
        }
        samples.removeAll(keepingCapacity: true)
        if returningHeader { return header }
        segmentBytes += header
        segmentBytes += data
        data.removeAll(keepingCapacity: true)
        if partTarget != nil { try didWrite?() }
        return nil
    }

    /// Writes the open segment, if any.
    func flush() throws {
        guard segmentSamples > 0 else { return }
        let number = segments.count + 1
        let segmentName = segmentName(number)
        let bytes: Int64
        if partTarget == nil, segmentBytes.isEmpty, let header = try closeChunk(returningHeader: true) {
            // One chunk is the segment: written from its buffers, which stay for the next one.
            bytes = try folder.write([header, data], to: segmentName)
            data.removeAll(keepingCapacity: true)
        } else {
            try closeChunk()
            bytes = try folder.write([segmentBytes], to: segmentName)
        }
        segments.append(PackagedSegment(name: segmentName, decodeTime: firstDecode, presentationTime: firstPresentation &- presentationOffset,
                                        duration: duration, bytes: bytes, samples: segmentSamples, startsWithSyncSample: segmentStartsWithSync,
                                        parts: openParts, period: period, initName: initName))
        openParts.removeAll()
        segmentBytes.removeAll(keepingCapacity: true)
        segmentSamples = 0
        try didWrite?()
    }
}
