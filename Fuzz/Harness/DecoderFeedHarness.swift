// The decoder feed (issue 40): what precedes a decoder backend in `nalu decode`, `compare`,
// `encode IN` and `doctor --decode`. The first byte picks the codec; the rest is an Annex-B
// stream, split into access units with every NAL unit the splitter rejects left out (as
// `MediaSource.forEachAccessUnit(damaged:)` does), grouped into `CodedAccessUnit`s (as
// `DecodeFeed` does) and decoded by a `DecoderSession` over a backend that checks what it is
// given and returns a picture per access unit with a slice. The libavcodec and libde265
// backends are not in the sanitizer build (they are `dlopen`ed C libraries the fuzzer cannot
// instrument); this covers the Swift side up to them.
//
// Properties: leaving a rejected NAL unit out is the same as its absence — a fresh splitter
// fed only the accepted units rejects none of them and gives the same access units (the
// splitter changes nothing before it throws); every accepted NAL unit is in exactly one coded
// access unit, in order; the session gets every access unit and is never handed a rejected
// unit; its counters add up (frames out ≤ access units decoded), and it throws only
// `invalidParameterSet` (a parameter set its own store rejects).
import NALU
import NALUDecoder
import NALUEncoder

enum DecoderFeedHarness {
    struct Unit {
        var offset: Int64
        var bytes: [UInt8]
    }

    struct Summary: Equatable {
        var index: Int
        var offset: Int64
        var size: Int64
        var nalUnits: Int
        var vcl: Int
        var keyframe: Bool
    }

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let first = all.first else { return }
        let codec: Codec = first & 1 == 0 ? .h264 : .hevc
        let bytes = Array(all.dropFirst())
        var accepted: [Unit] = []
        var rejected = 0
        var summaries: [Summary] = []
        var splitter = AccessUnitSplitter(codec: codec)
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                let unit = Unit(offset: Int64(range.lowerBound), bytes: Array(buffer[range]))
                do {
                    let step = try unit.bytes.withUnsafeBytes { try splitter.push($0, offset: unit.offset, prefixLength: 3) }
                    accepted.append(unit)
                    if let completed = step.completed { summaries.append(Summary(completed)) }
                } catch {
                    rejected += 1
                }
            }
        }
        if let last = splitter.finish() { summaries.append(Summary(last)) }

        // The same access units from the accepted units alone.
        var again = AccessUnitSplitter(codec: codec)
        var summariesAgain: [Summary] = []
        for unit in accepted {
            do {
                let step = try unit.bytes.withUnsafeBytes { try again.push($0, offset: unit.offset, prefixLength: 3) }
                if let completed = step.completed { summariesAgain.append(Summary(completed)) }
            } catch {
                throw FuzzPropertyViolation(description: "unit at \(unit.offset) accepted with the rejected ones, rejected without them: \(error)")
            }
        }
        if let last = again.finish() { summariesAgain.append(Summary(last)) }
        try fuzzCheck(summaries == summariesAgain, "leaving \(rejected) rejected unit(s) out differs from their absence")

        // Grouping, as DecodeFeed does: the units before each access unit's end.
        var coded: [CodedAccessUnit] = []
        var consumed = 0
        for summary in summaries {
            let end = summary.offset + summary.size
            var split = consumed
            while split < accepted.count && accepted[split].offset < end { split += 1 }
            coded.append(CodedAccessUnit(nalUnits: accepted[consumed..<split].map(\.bytes), index: summary.index, byteOffset: summary.offset,
                                         keyframe: summary.keyframe ? .idr : nil))
            consumed = split
        }
        try fuzzCheck(consumed == accepted.count, "\(accepted.count - consumed) accepted unit(s) in no access unit")
        try fuzzCheck(coded.reduce(0) { $0 + $1.nalUnits.count } == accepted.count, "units lost or duplicated in grouping")
        for (unitsOfSummary, summary) in zip(coded, summaries) {
            try fuzzCheck(unitsOfSummary.nalUnits.count == summary.nalUnits, "access unit \(summary.index): \(unitsOfSummary.nalUnits.count) units grouped, \(summary.nalUnits) split")
        }

        // The session over a checking backend.
        let session: DecoderSession
        do {
            session = try DecoderSession(codec: codec, factory: CheckingFactory())
        } catch {
            throw FuzzPropertyViolation(description: "session: \(error)")
        }
        var frames = 0
        var decoded = 0
        for unit in coded {
            do {
                frames += try session.decode(unit).count
                decoded += 1
            } catch {
                try fuzzCheck(error.code == .invalidParameterSet, "decode threw \(error)")
            }
        }
        frames += session.flush().count
        let statistics = session.statistics
        try fuzzCheck(statistics.accessUnitsIn == coded.count, "\(statistics.accessUnitsIn) access units in, \(coded.count) fed")
        try fuzzCheck(statistics.framesOut == frames, "\(statistics.framesOut) frames counted, \(frames) returned")
        try fuzzCheck(frames <= decoded, "\(frames) frames from \(decoded) access units")
    }
}

extension DecoderFeedHarness.Summary {
    init(_ summary: AccessUnitSummary) {
        self.init(index: summary.index, offset: summary.offset, size: summary.size, nalUnits: summary.nalUnitCount,
                  vcl: summary.vclNALUnitCount, keyframe: summary.keyframe != nil)
    }
}

/// A backend that checks every NAL unit it is given parses as a header of the codec (the feed
/// left out the rest) and hands out a 16x16 picture for each access unit with a slice.
private final class CheckingBackend: DecoderBackend {
    let codec: Codec
    let picture: FrameBuffer?
    var held: [Int64] = []
    var violation: String?

    init(codec: Codec) {
        self.codec = codec
        picture = try? FrameBuffer(pixelFormat: .i420, width: 16, height: 16)
    }

    func decode(_ nalUnits: [[UInt8]], tag: Int64, into pictures: inout [DecodedPicture]) throws(DecoderError) {
        var slice = false
        for unit in nalUnits {
            guard let header = try? NALUnitHeader(unit, codec: codec) else {
                throw DecoderError(.invalidSession, field: "fuzz", detail: "a NAL unit the splitter rejects reached the backend")
            }
            if header.isVCL { slice = true }
        }
        guard slice, let picture else { return }
        // One picture held back, as a reordering decoder does.
        held.append(tag)
        if held.count > 1 { pictures.append(DecodedPicture(buffer: picture, tag: held.removeFirst())) }
    }

    func flush(into pictures: inout [DecodedPicture]) throws(DecoderError) {
        guard let picture else { return }
        for tag in held { pictures.append(DecodedPicture(buffer: picture, tag: tag)) }
        held = []
    }

    func takeMessages() -> [String] { [] }
}

private struct CheckingFactory: DecoderBackendFactory {
    var name: String { "fuzz" }
    func validate(codec: Codec) throws(DecoderError) {}
    func makeBackend(for configuration: DecoderConfiguration) throws(DecoderError) -> any DecoderBackend {
        CheckingBackend(codec: configuration.codec)
    }
}
