// The media reader (issue 39): the input after a mode byte is written to a scratch file and
// read by `MediaReader` (any container: MP4/MOV, MPEG-TS, Annex-B, length-prefixed), on its
// own thread, through its bounded hand-over. Mode bits: 0 unused (the fixtures' codec bit),
// 1 other tracks not read, 2 a look-ahead of one item (else 8), 3 cancelled after the item
// numbered by bits 4–7.
//
// Properties beyond "value or error, no trap": the items are those of
// `MediaSource.forEachCodedAccessUnit` on the same file, in the same order (the thread and the
// queue lose, add and reorder nothing) and the reader ends where it does (with an error or
// not; reading other tracks, it may fail earlier on their damage, after a prefix of them); access units are numbered 0, 1, 2… and each NAL unit in them has a header that
// parses (no damaged unit reaches a decoder); every damage report lies inside the file; each
// other track's samples come in decoding order; a cancelled reader throws NALUError .cancelled.
import NALU
import NALUMedia

enum ReaderHarness {
    /// Items read per input at most, so one input stays well under the timeout.
    static let itemLimit = 20_000

    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        guard let folder = PackageHarness.makeFolder() else { return }
        defer { PackageHarness.removeTree(folder) }
        let input = folder + "/input"
        guard PackageHarness.store(bytes, to: input) else { return }
        var options = MediaReaderOptions(source: MediaSourceOptions(codecFromFileName: false),
                                         readsOtherTracks: mode & 2 == 0, lookAhead: mode & 4 != 0 ? 1 : 8)
        options.source.readsAhead = false
        let cancelAfter = mode & 8 != 0 ? Int(mode >> 4) : nil

        // What the one-thread walk gives.
        var expectedUnits: [CodedAccessUnit] = []
        var expectedDamage: [DamagedNALUnit] = []
        var expectedFailure = false
        if let source = try? MediaSource(path: input, options: options.source) {
            do {
                try source.forEachCodedAccessUnit(damaged: { damage in
                    expectedDamage.append(damage)
                    if expectedUnits.count + expectedDamage.count > itemLimit { throw Stop() }
                }) { unit in
                    expectedUnits.append(unit)
                    if expectedUnits.count + expectedDamage.count > itemLimit { throw Stop() }
                }
            } catch is Stop {
                return
            } catch {
                expectedFailure = true
            }
        }

        let reader: MediaReader
        do { reader = try MediaReader(path: input, options: options) } catch { return }
        // The reading thread lets go of the file before the harness returns (and removes it).
        defer {
            reader.cancel()
            reader.waitUntilReadingEnds()
        }
        var units: [CodedAccessUnit] = []
        var damage: [DamagedNALUnit] = []
        var lastSample: [UInt32: Int] = [:]
        var count = 0
        var failed = false
        while true {
            if let cancelAfter, count == cancelAfter {
                reader.cancel()
                do {
                    _ = try reader.next()
                    try fuzzCheck(false, "next() after cancel() returned")
                } catch let error as NALUError where error.code == .cancelled {
                } catch let error as FuzzPropertyViolation {
                    throw error
                } catch {
                    try fuzzCheck(false, "next() after cancel() threw \(error), not NALUError .cancelled")
                }
                return
            }
            let item: MediaReaderItem?
            do { item = try reader.next() } catch { failed = true; break }
            guard let item else { break }
            count += 1
            switch item {
            case .accessUnit(let unit):
                try fuzzCheck(unit.index == units.count, "access unit \(unit.index) handed out as the \(units.count)th")
                for nal in unit.nalUnits {
                    try fuzzCheck((try? NALUnitHeader(nal, codec: reader.codec)) != nil, "a NAL unit whose header does not parse in access unit \(unit.index)")
                }
                units.append(unit)
            case .damaged(let report):
                try fuzzCheck(report.byteOffset >= 0 && report.byteOffset <= Int64(bytes.count) && report.byteCount >= 0,
                              "damage at \(report.byteOffset) (\(report.byteCount) bytes) outside the \(bytes.count)-byte file")
                damage.append(report)
            case .sample(let sample):
                if let last = lastSample[sample.trackID] {
                    try fuzzCheck(sample.index > last, "track \(sample.trackID): sample \(sample.index) after \(last)")
                }
                lastSample[sample.trackID] = sample.index
            }
            if count > itemLimit + 10_000 { return }
        }
        if mode & 2 == 0 && failed && !expectedFailure {
            // An other track's damage ended the reading: what came before is the walk's.
            try fuzzCheck(expectedUnits.starts(with: units), "\(units.count) access units read before an error, not the walk's first")
            try fuzzCheck(expectedDamage.starts(with: damage), "\(damage.count) damage reports read before an error, not the walk's first")
            return
        }
        try fuzzCheck(units == expectedUnits, "\(units.count) access units read, \(expectedUnits.count) walked (or different)")
        try fuzzCheck(damage == expectedDamage, "\(damage.count) damage reports read, \(expectedDamage.count) walked")
        try fuzzCheck(failed == expectedFailure, failed ? "the reader failed where the walk did not" : "the walk failed where the reader did not")
    }

    struct Stop: Error {}
}
