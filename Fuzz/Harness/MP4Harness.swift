// The MP4/MOV reader and writer. The first byte picks the mode; the rest is the input.
// Read (bit 0 clear): the input is a file; opening it, walking every sample and converting the
// track to Annex-B give values or typed errors, and every sample handed out lies inside the file,
// numbered in order. Mux (bit 0 set): the input is an Annex-B stream (codec from bit 1; layout
// fragmented with bit 2, else faststart with bit 5, else moov at the end; negative composition
// offsets from bit 3; in-band parameter sets from bit 4); when the muxer accepts it, the file it
// writes opens with the reader, holds as many samples (and sync samples) as the muxer says it
// wrote, and converts back to Annex-B.
import NALU
import NALUMP4

enum MP4Harness {
    /// Samples walked per input at most, so one input stays well under the 1 s timeout.
    static let sampleLimit = 50_000

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        if mode & 1 == 0 {
            try read(bytes)
        } else {
            try mux(bytes, mode: mode)
        }
    }

    /// Opens `bytes` as MP4 and walks its samples; returns the samples and sync samples seen, or
    /// `nil` when the file is rejected.
    @discardableResult
    static func read(_ bytes: [UInt8]) throws(FuzzPropertyViolation) -> (samples: Int, sync: Int, converted: Bool)? {
        guard let reader = try? MP4VideoTrackReader(MemoryRandomAccessSource(bytes)) else { return nil }
        var iterator = reader.samples()
        var count = 0
        var sync = 0
        var buffer: [UInt8] = []
        var failed = false
        while count < sampleLimit {
            let next: MP4Sample?
            do { next = try iterator.next() } catch { failed = true; break }
            guard let sample = next else { break }
            try fuzzCheck(sample.index == count, "sample \(sample.index) handed out as the \(count)th")
            try fuzzCheck(sample.offset >= 0 && sample.size >= 0 && sample.offset <= Int64(bytes.count)
                          && Int64(sample.size) <= Int64(bytes.count) - sample.offset,
                          "sample \(sample.index) at \(sample.offset) of \(sample.size) bytes is outside the \(bytes.count)-byte file")
            do { try reader.read(sample, into: &buffer) } catch { throw FuzzPropertyViolation(description: "an in-file sample failed to read: \(error)") }
            try fuzzCheck(buffer.count == sample.size, "read \(buffer.count) bytes of a \(sample.size)-byte sample")
            if sample.isSync { sync += 1 }
            count += 1
        }
        var converted = false
        if !failed && count < sampleLimit {
            var sink = MemorySink()
            if let statistics = try? MP4ToAnnexB.convert(reader, to: &sink) {
                var units = 0
                sink.bytes.withUnsafeBytes { buffer in AnnexB.forEachNALUnit(in: buffer) { _ in units += 1 } }
                try fuzzCheck(Int64(sink.bytes.count) == statistics.bytesOut, "\(sink.bytes.count) bytes written, \(statistics.bytesOut) counted")
                try fuzzCheck(units == statistics.nalUnitsOut, "\(units) NAL units written, \(statistics.nalUnitsOut) counted")
                converted = true
            }
        }
        return (count, sync, converted)
    }

    static func mux(_ bytes: [UInt8], mode: UInt8) throws(FuzzPropertyViolation) {
        let codec: Codec = mode & 2 == 0 ? .h264 : .hevc
        let layout: MP4Layout = mode & 4 != 0 ? .fragmented : mode & 32 != 0 ? .faststart : .moovAtEnd
        let options = MP4MuxerOptions(sampleEntry: MP4SampleEntryType(codec: codec, inBandParameterSets: mode & 16 != 0),
                                      layout: layout, frameRate: Rational(25, 1),
                                      negativeCompositionOffsets: mode & 8 != 0, chunkSize: 4096)
        let spool = layout == .faststart ? MemorySpool() : nil
        guard let muxer = try? MP4Muxer(codec: codec, sink: MemorySink(), options: options, spool: spool) else { return }
        var pushed = true
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                guard pushed else { return }
                do {
                    try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound)) { try muxer.push($0) }
                } catch {
                    pushed = false
                }
            }
        }
        guard pushed, let summary = try? muxer.finish(), let file = muxer.output?.bytes else { return }
        try fuzzCheck(Int64(file.count) == summary.writer.bytes, "\(file.count) bytes written, \(summary.writer.bytes) counted")
        guard let seen = try read(file) else {
            throw FuzzPropertyViolation(description: "the reader rejects the \(file.count)-byte file the muxer wrote")
        }
        try fuzzCheck(seen.samples == summary.writer.samples, "\(seen.samples) samples read back, \(summary.writer.samples) written")
        try fuzzCheck(seen.sync == summary.writer.syncSamples, "\(seen.sync) sync samples read back, \(summary.writer.syncSamples) written")
        try fuzzCheck(seen.converted, "the muxer's file does not convert back to Annex-B")
    }
}

/// Where the faststart layout keeps the media data until `moov` is written: memory.
final class MemorySpool: ByteSink, RandomAccessByteSource {
    private(set) var bytes: [UInt8] = []
    var size: Int64 { Int64(bytes.count) }
    func write(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(NALUError) -> Int {
        try MemoryRandomAccessSource(bytes).read(at: offset, into: buffer)
    }
}
