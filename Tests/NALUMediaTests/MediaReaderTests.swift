import Foundation
import NALU
import NALUIO
import NALUMP4
import NALUMedia
import Testing

/// ``MediaReader`` on real fixtures, against what ffprobe reports and against the push parser
/// (``AccessUnitAssembler``) and the MP4 samples read directly.
@Suite struct MediaReaderTests {
    static func fixture(_ name: String) -> String { MediaSourceTests.fixture(name) }

    /// ffprobe's packets of one stream: pts, dts, duration (in the stream's time base).
    struct Packet: Equatable, CustomStringConvertible {
        var pts: Int64?
        var dts: Int64?
        var duration: Int64?
        var description: String { "pts \(pts.map(String.init) ?? "-") dts \(dts.map(String.init) ?? "-") dur \(duration.map(String.init) ?? "-")" }
    }

    static func ffprobePackets(_ path: String, stream: String) throws -> [Packet] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts,dts,duration", "-of", "json", path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data)
        let json = try #require(object as? [String: Any])
        let packets = try #require(json["packets"] as? [[String: Any]])
        return packets.map { Packet(pts: ($0["pts"] as? NSNumber)?.int64Value, dts: ($0["dts"] as? NSNumber)?.int64Value,
                                    duration: ($0["duration"] as? NSNumber)?.int64Value) }
    }

    /// Every item of `path`.
    static func items(_ path: String, options: MediaReaderOptions = MediaReaderOptions()) throws -> (reader: MediaReader, items: [MediaReaderItem]) {
        let reader = try MediaReader(path: path, options: options)
        var items: [MediaReaderItem] = []
        while let item = try reader.next() { items.append(item) }
        return (reader, items)
    }

    /// ffprobe's times of an MP4 track are its media times moved by the edit list's start
    /// (libavformat's mov demuxer: minus the first edit's `media_time`, plus the leading empty
    /// edits): the shift for track `trackID` in its timescale.
    static func editListShift(_ path: String, trackID: UInt32) throws -> Int64 {
        let movie = try MP4MovieReader(AnyRandomAccessSource(RandomAccessFile(path: path)))
        let track = try #require(movie.track(id: trackID)).track
        let start = editListStart(track.editList)
        let delay = CheckedNumber.rescale(Int64(start.delay), from: Int64(movie.movieTimescale), to: Int64(track.timescale)) ?? 0
        return delay - start.mediaTime
    }

    /// Containers with times: every access unit's dts and pts (and, for MP4, duration) are
    /// ffprobe's packet's, in decoding order, as many as ffprobe counts.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_frag.mp4", "ts_avc_aac.ts", "realworld/phone.mp4", "realworld/vfr.mp4"])
    func accessUnitTimesAreFFprobes(file: String) throws {
        let path = Self.fixture(file)
        let (reader, items) = try Self.items(path)
        let units = items.compactMap(\.accessUnit)
        let packets = try Self.ffprobePackets(path, stream: "v:0")
        #expect(units.count == packets.count)
        #expect(units.count > 0)
        #expect(items.compactMap(\.damaged).isEmpty)
        #expect(units.map(\.index) == Array(0..<units.count))
        let isMP4 = reader.container.isMP4
        let videoTrackID = try #require(reader.videoTrackID)
        let shift = isMP4 ? try Self.editListShift(path, trackID: videoTrackID) : 0
        var mismatches = 0
        for (position, (unit, packet)) in zip(units, packets).enumerated() {
            let timing = try #require(unit.timing, "access unit \(unit.index) has no times")
            #expect(timing.timescale == reader.timescale)
            #expect(unit.pts == timing.presentation)
            // An MP4 sample lasts until the next one decodes (stts; ffprobe's dts steps: its
            // `duration` field is libavformat's own guess on a variable frame rate), the last
            // one as ffprobe says.
            var duration = packet.duration
            if isMP4, position + 1 < packets.count, let dts = packet.dts, let next = packets[position + 1].dts { duration = next - dts }
            var expected = packet
            expected.duration = isMP4 ? duration : nil
            let ours = Packet(pts: timing.presentation + shift, dts: timing.decode + shift, duration: isMP4 ? timing.duration : nil)
            let packet = expected
            if ours != packet {
                mismatches += 1
                if mismatches <= 3 { Issue.record("\(file) access unit \(unit.index): \(ours), ffprobe \(packet)") }
            }
        }
        #expect(mismatches == 0)
        // The parameter sets in force: the out-of-band ones at least, each a VPS/SPS/PPS.
        #expect(units.allSatisfy { !$0.parameterSets.isEmpty && $0.parameterSets.allSatisfy { reader.codec.isParameterSet($0) } })
        #expect(units.first?.keyframe != nil)
    }

    /// An MP4's access units are its samples: each one's NAL units, length-prefixed again, are
    /// the sample's bytes as MP4TrackReader reads them.
    @Test(arguments: ["mp4_avc_bframes.mp4", "mp4_hevc_frag.mp4", "realworld/vfr.mp4"])
    func mp4AccessUnitsAreTheSamples(file: String) throws {
        let path = Self.fixture(file)
        let (reader, items) = try Self.items(path, options: MediaReaderOptions(readsOtherTracks: false))
        let movie = try MP4MovieReader(AnyRandomAccessSource(RandomAccessFile(path: path)))
        let videoTrackID = try #require(reader.videoTrackID)
        let track = try #require(movie.track(id: videoTrackID))
        var samples = track.samples()
        var buffer: [UInt8] = []
        var count = 0
        for unit in items.compactMap(\.accessUnit) {
            let next = try samples.next()
            let sample = try #require(next)
            try track.read(sample, into: &buffer)
            var framed: [UInt8] = []
            for nal in unit.nalUnits {
                framed += [UInt8(nal.count >> 24 & 0xFF), UInt8(nal.count >> 16 & 0xFF), UInt8(nal.count >> 8 & 0xFF), UInt8(nal.count & 0xFF)] + nal
            }
            #expect(framed == buffer, "access unit \(unit.index)")
            #expect(unit.byteOffset == sample.offset)
            #expect(unit.timing?.decode == sample.dts)
            if sample.isSync { #expect(unit.keyframe != nil, "sync sample \(sample.index)") }
            count += 1
        }
        #expect(try samples.next() == nil)
        #expect(count > 0)
    }

    /// Raw streams (Annex-B; length-prefixed with its avcC): the access units, NAL units,
    /// keyframe classes and picture types of the push parser over the whole file, and as many
    /// as ffprobe's parser counts packets in the Annex-B form.
    @Test(arguments: [("hevc_open_gop.h265", "hevc_open_gop.h265"), ("avc_high_bframes.lp", "avc_high_bframes.h264")])
    func rawStreamsGroupAsThePushParser(file: String, annexB: String) throws {
        let path = Self.fixture(file)
        var options = MediaReaderOptions()
        var assembler: AccessUnitAssembler
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        if file.hasSuffix(".lp") {
            let record = try DecoderConfigurationRecord(parsing: Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture("avc_high_bframes.avcC")))))
            options.source.record = record
            assembler = try AccessUnitAssembler(codec: record.codec, framing: .lengthPrefixed(lengthSize: record.lengthSize))
            for set in record.parameterSets { try assembler.addParameterSet(set) }
        } else {
            assembler = try AccessUnitAssembler(codec: .hevc)
        }
        let expected = try assembler.append(bytes) + assembler.finish()
        let (reader, items) = try Self.items(path, options: options)
        #expect(reader.timescale == nil && reader.otherTracks.isEmpty && reader.unreadTracks.isEmpty)
        let units = items.compactMap(\.accessUnit)
        #expect(units.count == expected.count)
        #expect(units.map(\.nalUnits) == expected.map(\.nalUnits))
        #expect(units.map(\.keyframe) == expected.map(\.summary.keyframe))
        #expect(units.map(\.pictureType) == expected.map(\.summary.pictureType))
        #expect(units.map(\.byteOffset) == expected.map(\.summary.offset))
        #expect(units.allSatisfy { $0.timing == nil && $0.pts == nil })
        #expect(try Self.ffprobePackets(Self.fixture(annexB), stream: "v:0").count == units.count)
    }

    /// The audio: as many AAC samples as ffprobe's packets, each with its times (an MP4's
    /// through the edit list's shift, as ffprobe gives them; a transport stream's 90 kHz PTS),
    /// and every sample before the first access unit that decodes after it.
    @Test(arguments: ["realworld/phone.mp4", "ts_avc_aac.ts"])
    func audioSamplesAreFFprobes(file: String) throws {
        let path = Self.fixture(file)
        let (reader, items) = try Self.items(path)
        let audio = try #require(reader.otherTracks.first { $0.handler == "soun" })
        #expect(reader.unreadTracks.isEmpty)
        let samples = items.compactMap(\.sample).filter { $0.trackID == audio.trackID }
        let packets = try Self.ffprobePackets(path, stream: "a:0")
        #expect(samples.count == packets.count)
        #expect(samples.count > 0)
        let shift = reader.container.isMP4 ? try Self.editListShift(path, trackID: audio.trackID) : 0
        var mismatches = 0
        for (sample, packet) in zip(samples, packets) {
            let ours = Packet(pts: sample.timing.presentation + shift, dts: sample.timing.decode + shift, duration: sample.timing.duration)
            if ours != packet {
                mismatches += 1
                if mismatches <= 3 { Issue.record("\(file) audio sample \(sample.index): \(ours), ffprobe \(packet)") }
            }
            #expect(sample.timing.timescale == audio.timescale)
            #expect(!sample.bytes.isEmpty)
        }
        #expect(mismatches == 0)
        #expect(samples.map(\.index) == Array(0..<samples.count))
        // Interleaved by time on ffprobe's timeline (MP4: through each track's edit list):
        // each sample comes after the access units that decode before it and before the first
        // one that decodes at or after it.
        let videoShift = reader.container.isMP4 ? try Self.editListShift(path, trackID: try #require(reader.videoTrackID)) : 0
        func seconds(_ time: Int64, _ shift: Int64, _ timescale: UInt32) -> Double { Double(time + shift) / Double(timescale) }
        var previousUnit: Double?
        var waiting: [Double] = []
        var misplaced = 0
        for item in items {
            if let timing = item.accessUnit?.timing {
                let clock = seconds(timing.decode, videoShift, timing.timescale)
                for early in waiting where early > clock {
                    misplaced += 1
                    Issue.record("sample at \(early) s before access unit at \(clock) s")
                }
                waiting = []
                previousUnit = clock
            }
            if let sample = item.sample, sample.trackID == audio.trackID {
                let clock = seconds(sample.timing.decode, shift, sample.timing.timescale)
                if let previousUnit, clock <= previousUnit {
                    misplaced += 1
                    Issue.record("sample at \(clock) s after access unit at \(previousUnit) s")
                }
                waiting.append(clock)
            }
        }
        #expect(misplaced == 0)
        // Video and audio alternate: the items are not all of one then all of the other.
        let firstSample = try #require(items.firstIndex { $0.sample != nil })
        let lastUnit = try #require(items.lastIndex { $0.accessUnit != nil })
        #expect(firstSample < lastUnit)
    }

    /// The async sequence gives the same items; cancelling the iterating task mid-way throws
    /// NALUError `.cancelled` (naming the path) from the pending `next()`: typed throws.
    @Test func asyncSequenceAndCancellation() async throws {
        let path = Self.fixture("realworld/phone.mp4")
        let (_, expected) = try Self.items(path)
        var all: [MediaReaderItem] = []
        for try await item in try MediaReader(path: path) { all.append(item) }
        #expect(all == expected)

        let reader = try MediaReader(path: path)
        let task = Task {
            var count = 0
            for try await _ in reader {
                count += 1
                if count == 10 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        let cancelled = await #expect(throws: NALUError.self) { try await task.value }
        #expect(cancelled == NALUError(.cancelled, field: path))
        // A cancelled reader stays cancelled.
        #expect(throws: NALUError(.cancelled, field: path)) { try reader.next() }

        // The synchronous form: cancel() between two calls.
        let sync = try MediaReader(path: path)
        _ = try sync.next()
        sync.cancel()
        #expect(throws: NALUError(.cancelled, field: path)) { try sync.next() }
    }

    /// A corrupted NAL unit length inside one MP4 sample: that sample is reported and left
    /// out; every other access unit comes, with its times; the plain walk still stops there.
    @Test func damagedLengthPrefixInsideASampleIsReportedAndSkipped() throws {
        let original = Self.fixture("mp4_avc_bframes.mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("damaged.mp4").path
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: original)))
        let (_, clean) = try Self.items(original)
        let cleanUnits = clean.compactMap(\.accessUnit)
        let victim = cleanUnits.count / 2
        // The victim sample's first length field: past the end of the sample.
        let offset = Int(cleanUnits[victim].byteOffset)
        bytes.replaceSubrange(offset..<(offset + 4), with: [0x7F, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: copy))

        let (_, items) = try Self.items(copy)
        let damaged = items.compactMap(\.damaged)
        #expect(damaged.count == 1)
        #expect(damaged.first?.byteOffset == Int64(offset))
        #expect(damaged.first?.error.code == .lengthPastEnd)
        #expect(damaged.first?.error.field == "NAL unit length")
        let units = items.compactMap(\.accessUnit)
        #expect(units.count == cleanUnits.count - 1)
        var kept = cleanUnits
        kept.remove(at: victim)
        #expect(units.map(\.timing) == kept.map(\.timing))
        #expect(units.map(\.nalUnits) == kept.map(\.nalUnits))
        // The audio is all there.
        #expect(items.compactMap(\.sample).count == clean.compactMap(\.sample).count)
        // Without a damage handler the walk ends with the error, as before.
        #expect(throws: NALUError.self) { try MediaSource(path: copy).forEachAccessUnit { _ in } }
    }

    /// A NAL unit with forbidden_zero_bit set in an Annex-B stream: reported, left out, the
    /// rest read (as the CLI's decode feed did).
    @Test func forbiddenZeroBitIsReportedAndSkipped() throws {
        let original = Self.fixture("hevc_open_gop.h265")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: original)))
        var expectedAssembler = try AccessUnitAssembler(codec: .hevc)
        let clean = try expectedAssembler.append(bytes) + expectedAssembler.finish()
        // The first NAL unit of the fifth access unit: its header's first bit set.
        let start = Int(clean[4].summary.offset)
        var header = start
        while bytes[header] == 0 { header += 1 }
        header += 1  // past the 0x01 of the start code
        bytes[header] |= 0x80
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("damaged.h265").path
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        let (_, items) = try Self.items(copy)
        let damaged = items.compactMap(\.damaged)
        #expect(damaged.count == 1)
        #expect(damaged.first?.error.code == .forbiddenZeroBit)
        #expect(damaged.first?.byteOffset == Int64(header))
        let units = items.compactMap(\.accessUnit)
        let nalUnits = units.flatMap(\.nalUnits)
        #expect(nalUnits.count == clean.flatMap(\.nalUnits).count - 1)
        #expect(!nalUnits.contains { $0.first.map { $0 & 0x80 != 0 } ?? false })
    }

    /// ``MediaSource/forEachAccessUnit(nalUnit:damaged:_:)``: the NAL units `nalUnit` sees
    /// between two `body` calls are the access unit's own (body comes before the next one's).
    @Test(arguments: ["mp4_avc_bframes.mp4", "ts_avc_aac.ts", "hevc_open_gop.h265"])
    func nalUnitCallbacksGroupAsTheAccessUnits(file: String) throws {
        var pending: [[UInt8]] = []
        var grouped: [[[UInt8]]] = []
        var counts: [Int] = []
        try MediaSource(path: Self.fixture(file)).forEachAccessUnit(nalUnit: { view, _ in pending.append(view.array) }) { unit in
            grouped.append(pending)
            counts.append(unit.summary.nalUnitCount)
            pending = []
        }
        #expect(pending.isEmpty)
        #expect(grouped.map(\.count) == counts)
        let (_, items) = try Self.items(Self.fixture(file))
        #expect(items.compactMap(\.accessUnit).map(\.nalUnits) == grouped)
    }
}
