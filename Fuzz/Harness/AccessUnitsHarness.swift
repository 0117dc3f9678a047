// Access-unit assembly: AccessUnitSplitter over arbitrary NAL unit sequences of either codec (the
// first byte picks the codec; the rest is an Annex-B stream). Properties: every NAL unit pushed
// belongs to exactly one access unit, access units are numbered in order, and their byte ranges
// lie inside the input, in order, without overlapping.
import NALU

enum AccessUnitsHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let first = all.first else { return }
        let codec: Codec = first & 1 == 0 ? .h264 : .hevc
        let bytes = Array(all.dropFirst())
        var splitter = AccessUnitSplitter(codec: codec)
        var summaries: [AccessUnitSummary] = []
        var pushed = 0
        var noCurrent = false
        bytes.withUnsafeBytes { buffer in
            var failed = false
            AnnexB.forEachNALUnit(in: buffer) { range in
                guard !failed else { return }
                do {
                    let step = try splitter.push(UnsafeRawBufferPointer(rebasing: buffer[range]), offset: Int64(range.lowerBound), prefixLength: 3)
                    pushed += 1
                    if let completed = step.completed { summaries.append(completed) }
                    if splitter.current == nil { noCurrent = true }
                } catch {
                    failed = true
                }
            }
        }
        try fuzzCheck(!noCurrent, "no current access unit after a push")
        if let last = splitter.finish() { summaries.append(last) }
        try fuzzCheck(splitter.completedCount == summaries.count, "completedCount \(splitter.completedCount) != \(summaries.count)")
        try fuzzCheck(summaries.reduce(0) { $0 + $1.nalUnitCount } == pushed, "NAL units lost or duplicated")
        var end: Int64 = 0
        for (index, summary) in summaries.enumerated() {
            try fuzzCheck(summary.index == index, "index \(summary.index) at \(index)")
            try fuzzCheck(summary.offset >= end && summary.size >= 0 && summary.offset + summary.size <= Int64(bytes.count),
                          "access unit \(index) at \(summary.offset) size \(summary.size)")
            try fuzzCheck(summary.vclNALUnitCount <= summary.nalUnitCount, "more VCL than NAL units")
            end = summary.offset + summary.size
        }
    }
}
