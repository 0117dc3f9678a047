import Foundation
import Testing
import NALU
import NALUIO
@testable import NALUMP4

/// Muxes an Annex-B stream in memory.
func mux(_ annexB: [UInt8], codec: Codec, options: MP4MuxerOptions = MP4MuxerOptions()) throws -> (bytes: [UInt8], summary: MP4MuxerSummary) {
    let spool = options.layout == .faststart ? MemorySpool() : nil
    let muxer = try MP4Muxer(codec: codec, sink: MemorySink(), options: options, spool: spool)
    try annexB.withUnsafeBytes { buffer in
        try AnnexB.forEachNALUnit(in: buffer) { range in
            try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound), prefixLength: 3) { try muxer.push($0) }
        }
    }
    let summary = try muxer.finish()
    return (muxer.output?.bytes ?? [], summary)
}

/// A spool in memory for the faststart layout.
final class MemorySpool: ByteSink, RandomAccessByteSource {
    var bytes: [UInt8] = []
    var size: Int64 { Int64(bytes.count) }
    func write(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try MemoryRandomAccessSource(bytes).read(at: offset, into: buffer)
    }
}

/// The keyframe access units nalu finds in an Annex-B stream (decode-order indices).
func keyframeIndices(_ annexB: [UInt8], codec: Codec) throws -> [Int] {
    var splitter = AccessUnitSplitter(codec: codec)
    var keys: [Int] = []
    try annexB.withUnsafeBytes { buffer in
        try AnnexB.forEachNALUnit(in: buffer) { range in
            let step = try splitter.push(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound), prefixLength: 3)
            if let done = step.completed, done.keyframe != nil { keys.append(done.index) }
        }
    }
    if let last = splitter.finish(), last.keyframe != nil { keys.append(last.index) }
    return keys
}

/// What nalu's splitter says about each access unit of an Annex-B stream, in decoding order.
func accessUnits(_ annexB: [UInt8], codec: Codec) throws -> [AccessUnitSummary] {
    var splitter = AccessUnitSplitter(codec: codec)
    var units: [AccessUnitSummary] = []
    try annexB.withUnsafeBytes { buffer in
        try AnnexB.forEachNALUnit(in: buffer) { range in
            let step = try splitter.push(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound), prefixLength: 3)
            if let done = step.completed { units.append(done) }
        }
    }
    if let last = splitter.finish() { units.append(last) }
    return units
}

/// The NAL units of every sample of an MP4, in order.
func sampleNALUnits<S: RandomAccessByteSource>(_ reader: MP4VideoTrackReader<S>) throws -> [[UInt8]] {
    var units: [[UInt8]] = []
    var buffer: [UInt8] = []
    try reader.forEachSample { sample in
        try reader.read(sample, into: &buffer)
        try MP4ToAnnexB.forEachNALUnit(in: buffer, lengthSize: reader.track.lengthSize, sampleOffset: sample.offset) { units.append($0.array) }
    }
    return units
}

/// Whether `unit` is a parameter set of the base layer (the ones that move to a record).
func isParameterSet(_ unit: [UInt8], _ codec: Codec) -> Bool {
    codec.isParameterSet(unit)
}

@Suite struct MP4MuxerTests {
    /// Every Annex-B fixture → MP4 (avc1/hvc1, moov at the end) → read back: one sample per
    /// access unit, the stream's NAL units without its parameter sets (which are in the record),
    /// sync samples at nalu's keyframes, constant frame durations, and presentation order equal
    /// to ffprobe's output order of picture types (which checks the picture order counts).
    @Test(arguments: RemuxFixture.all) func muxedStreamReadsBack(fixture: RemuxFixture) throws {
        let annexB = try fixture.bytes(fixture.streamExtension)
        let facts = try fixture.facts()
        let (bytes, summary) = try mux(annexB, codec: fixture.codec)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        #expect(reader.track.sampleEntryType == (fixture.codec == .h264 ? .avc1 : .hvc1))
        let samples = try allSamples(reader)
        let units = try accessUnits(annexB, codec: fixture.codec)
        #expect(samples.count == facts.frames)
        #expect(samples.count == units.count)
        #expect(samples.indices.filter { samples[$0].isSync } == units.indices.filter { units[$0].keyframe != nil })
        let original = annexBNALUnits(annexB)
        #expect(firstDifference(try sampleNALUnits(reader), original.filter { !isParameterSet($0, fixture.codec) }) == nil)
        var firstSeen: [[UInt8]] = []
        for unit in original where isParameterSet(unit, fixture.codec) && !firstSeen.contains(unit) { firstSeen.append(unit) }
        #expect(reader.track.decoderConfiguration.parameterSets == firstSeen)
        if case .hevc(let record) = reader.track.decoderConfiguration {
            #expect(record.arrays.allSatisfy { $0.arrayCompleteness })
        }
        let duration = Int64(summary.frameDuration)
        #expect(samples.allSatisfy { Int64($0.duration) == duration })
        #expect(samples.map(\.dts) == samples.indices.map { Int64($0) * duration })
        // Presentation order: every frame once, in ffprobe's output order of picture types.
        let shift = reader.track.editList.first?.mediaTime ?? 0
        let presentation = samples.map { ($0.pts - shift) / duration }
        #expect(presentation.sorted() == Array(0..<Int64(samples.count)))
        #expect(samples.allSatisfy { ($0.pts - shift) % duration == 0 })
        let order = samples.indices.sorted { presentation[$0] < presentation[$1] }
        #expect(order.map { units[$0].pictureType?.rawValue ?? "?" }.joined() == facts.pict_types)
        #expect("\(summary.frameRate)" == facts.r_frame_rate)
        #expect(reader.track.duration == UInt64(samples.count) * UInt64(duration))
    }

    /// ffprobe reads nalu's MP4 without a message, with nalu's keyframes as its K flags, the
    /// frame count and rate, and ffmpeg decodes it to the frames of the Annex-B source.
    @Test(arguments: RemuxFixture.all) func ffmpegAgrees(fixture: RemuxFixture) throws {
        let annexB = try fixture.bytes(fixture.streamExtension)
        let (bytes, _) = try mux(annexB, codec: fixture.codec)
        try checkWithFFmpeg(bytes, source: fixture.url(fixture.streamExtension).path, codec: fixture.codec,
                            frames: (try fixture.facts()).frames, frameRate: (try fixture.facts()).r_frame_rate ?? "",
                            keyframes: try keyframeIndices(annexB, codec: fixture.codec))
    }

    static let layoutCases: [(String, MP4MuxerOptions)] = [
        ("avc_high_bframes", MP4MuxerOptions(layout: .faststart)),
        ("avc_high_bframes", MP4MuxerOptions(layout: .fragmented)),
        ("avc_high_bframes", MP4MuxerOptions(sampleEntry: .avc3, negativeCompositionOffsets: true)),
        ("avc_ntsc_aud", MP4MuxerOptions(layout: .fragmented, accessUnitDelimiters: .strip)),
        ("avc_open_gop", MP4MuxerOptions(chunkSize: 4096, forceLargeChunkOffsets: true)),
        ("hevc_open_gop", MP4MuxerOptions(sampleEntry: .hev1, layout: .faststart)),
        ("hevc_open_gop", MP4MuxerOptions(sampleEntry: .hev1, layout: .fragmented)),
        ("hevc_closed_gop", MP4MuxerOptions(layout: .fragmented)),
        ("hevc_wpp_aud", MP4MuxerOptions(negativeCompositionOffsets: true, chunkSize: 1)),
    ]

    /// Every layout and sample entry: ffprobe silent, keyframes, frames, decoded md5s.
    @Test(arguments: 0..<layoutCases.count) func layouts(index: Int) throws {
        let (name, options) = Self.layoutCases[index]
        let fixture = RemuxFixture(name: name)
        let annexB = try fixture.bytes(fixture.streamExtension)
        let (bytes, summary) = try mux(annexB, codec: fixture.codec, options: options)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        let boxes = TestBox.parse(bytes[...]).map { $0.type }
        switch options.layout {
        case .faststart: #expect(boxes == ["ftyp", "moov", "mdat"])
        case .moovAtEnd: #expect(boxes.first == "ftyp" && boxes.last == "moov" && boxes.dropFirst().dropLast().allSatisfy { $0 == "mdat" })
        case .fragmented: #expect(Array(boxes.prefix(2)) == ["ftyp", "moov"] && boxes.count == 2 + 2 * summary.writer.mediaDataBoxes)
        }
        #expect(reader.track.isFragmented == (options.layout == .fragmented))
        if let entry = options.sampleEntry { #expect(reader.track.sampleEntryType == entry) }
        let keyframes = try keyframeIndices(annexB, codec: fixture.codec)
        if options.layout == .fragmented { #expect(summary.writer.mediaDataBoxes == keyframes.count) }
        if options.forceLargeChunkOffsets { #expect(TestBox.find(["moov", "trak", "mdia", "minf", "stbl", "co64"], in: TestBox.parse(bytes[...])) != nil) }
        // In-band parameter sets stay with avc3/hev1.
        let original = annexBNALUnits(annexB).filter { options.accessUnitDelimiters != .strip || ($0[0] & 0x1F) != 9 }
        let expected = reader.track.sampleEntryType.allowsInBandParameterSets ? original : original.filter { !isParameterSet($0, fixture.codec) }
        #expect(firstDifference(try sampleNALUnits(reader), expected) == nil)
        try checkWithFFmpeg(bytes, source: fixture.url(fixture.streamExtension).path, codec: fixture.codec,
                            frames: (try fixture.facts()).frames, frameRate: (try fixture.facts()).r_frame_rate ?? "", keyframes: keyframes)
    }
}

/// Writes `bytes` to a file and checks it with ffprobe and ffmpeg.
func checkWithFFmpeg(_ bytes: [UInt8], source: String, codec: Codec, frames: Int, frameRate: String, keyframes: [Int],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = temporaryPath("check.mp4")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=nb_frames,r_frame_rate:packet=pts,flags",
                                        "-of", "compact=p=0:nk=1", path])
    #expect(probe.status == 0, sourceLocation: sourceLocation)
    #expect(probe.stderr == "", sourceLocation: sourceLocation)
    let lines = probe.stdout.split(separator: "\n").map(String.init)
    let packets = lines.filter { $0.contains("|") && ($0.hasSuffix("K_") || $0.hasSuffix("__")) }
    #expect(packets.count == frames, sourceLocation: sourceLocation)
    #expect(packets.indices.filter { packets[$0].hasSuffix("K_") } == keyframes, sourceLocation: sourceLocation)
    // Fragmented files have no frame count in the header: ffprobe says N/A.
    #expect(lines.contains("\(frameRate)|\(frames)") || lines.contains("\(frameRate)|N/A"), sourceLocation: sourceLocation)
    let format = try runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
    #expect(format.stderr == "", sourceLocation: sourceLocation)
    let rate = frameRate.split(separator: "/").compactMap { Double($0) }
    if rate.count == 2, let seconds = Double(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) {
        #expect(abs(seconds - Double(frames) * rate[1] / rate[0]) < 0.0015, sourceLocation: sourceLocation)
    } else {
        Issue.record("no duration: \(format.stdout)", sourceLocation: sourceLocation)
    }
    let md5 = { (file: String) throws -> [String] in
        let result = try runTool("ffmpeg", ["-v", "error", "-i", file, "-f", "framemd5", "-"])
        #expect(result.stderr == "", sourceLocation: sourceLocation)
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
    let ours = try md5(path)
    #expect(ours.count == frames, sourceLocation: sourceLocation)
    #expect(ours == (try md5(source)), sourceLocation: sourceLocation)
}
