import Foundation
import Testing
import NALU
import NALUIO
@testable import NALUMP4

@Suite struct MP4ReaderTests {
    /// ffmpeg's `-c copy` remux of every elementary-stream fixture: the samples back to back are
    /// the `.lp` file, the sample entry holds ffmpeg's record, one sample per access unit.
    @Test(arguments: RemuxFixture.all) func remuxedSamplesAreTheLengthPrefixedStream(fixture: RemuxFixture) throws {
        let reader = try MP4VideoTrackReader(RandomAccessFile(path: fixture.url("mp4").path))
        #expect(reader.track.codec == fixture.codec)
        #expect(reader.track.sampleEntryType == (fixture.codec == .h264 ? .avc1 : .hev1))
        #expect(reader.track.sampleDescription.recordBytes == (try fixture.bytes(fixture.codec == .h264 ? "avcC" : "hvcC")))
        #expect(reader.track.lengthSize == 4)
        #expect(reader.fileType?.majorBrand == "isom")
        let samples = try allSamples(reader)
        #expect(samples.count == (try fixture.facts()).packets)
        #expect(samples.count == reader.track.sampleTableCount)
        var joined: [UInt8] = []
        var buffer: [UInt8] = []
        for sample in samples {
            try reader.read(sample, into: &buffer)
            joined += buffer
        }
        #expect(joined == (try fixture.bytes("lp")))
        // Decoding times step by the sample durations; every sample is one frame.
        for (index, sample) in samples.enumerated() {
            #expect(sample.index == index)
            #expect(sample.dts == Int64(index) * Int64(sample.duration))
        }
        #expect(samples.first?.isSync == true)
    }

    /// Files ffmpeg wrote directly (B-frames with ctts, negative ctts, faststart, MOV, an audio
    /// track first, fragmented): every sample's offset, size, times and sync flag equal
    /// ffprobe's packets.
    @Test(arguments: ContainerFixture.all) func samplesMatchFFprobePackets(fixture: ContainerFixture) throws {
        let facts = try fixture.facts()
        let reader = try fixture.reader()
        let track = reader.track
        #expect(track.codec == fixture.codec)
        #expect(track.sampleEntryType.rawValue == facts.codec_tag)
        #expect(Int(track.timescale) == facts.timescale)
        #expect(track.isFragmented == fixture.name.contains("frag"))
        #expect(reader.fileType?.isQuickTime == (fixture.container == "mov"))
        let samples = try allSamples(reader)
        #expect(samples.count == facts.packets)
        #expect(samples.map(\.offset) == facts.pos)
        #expect(samples.map(\.size) == facts.sizes)
        #expect(samples.map { Int64($0.duration) } == facts.durations)
        #expect(samples.indices.filter { samples[$0].isSync } == facts.key_packets)
        // ffmpeg shows times shifted by the edit list's media_time; decoding times keep their steps.
        let shift = track.editList.first { $0.mediaTime >= 0 }?.mediaTime ?? 0
        #expect(samples.map { $0.pts - shift } == facts.pts)
        let firstDTS = samples.first?.dts ?? 0
        #expect(samples.map { $0.dts - firstDTS } == facts.dts.map { $0 - (facts.dts.first ?? 0) })
        if !track.isFragmented {
            #expect(Int(track.duration) == facts.duration_ts)
            #expect(track.sampleTableCount == facts.packets)
        }
    }

    @Test func editListsAndTimesAreNoted() throws {
        let bframes = try #require(ContainerFixture.all.first { $0.name == "mp4_avc_bframes" }).reader()
        #expect(bframes.track.editList == [MP4EditListEntry(segmentDuration: 1000, mediaTime: 1024)])
        #expect(bframes.track.movieTimescale == 1000)
        let negative = try #require(ContainerFixture.all.first { $0.name == "mp4_avc_negcts" }).reader()
        #expect(negative.track.editList == [MP4EditListEntry(segmentDuration: 667, mediaTime: 0)])
        let samples = try allSamples(negative)
        #expect(samples.map(\.compositionOffset).min() == -512)
        let fragmented = try #require(ContainerFixture.all.first { $0.name == "mp4_avc_frag" }).reader()
        #expect(fragmented.track.sampleTableCount == 0)
        #expect(fragmented.track.editList.isEmpty)
    }

    @Test func audioTrackIsSkipped() throws {
        let reader = try #require(ContainerFixture.all.first { $0.name == "mp4_avc_audio" }).reader()
        #expect(reader.track.trackID == 2)
        #expect(try allSamples(reader).count == 20)
    }

    /// MP4 → Annex-B gives ffmpeg's h264_mp4toannexb / hevc_mp4toannexb NAL units. FFmpeg 5.1's
    /// hevc_mp4toannexb prepends the record's VPS/SPS/PPS to every IRAP even when the sample
    /// carries them in band (hev1), duplicating them; nalu does not, so those duplicates are
    /// removed from ffmpeg's list before comparing.
    @Test(arguments: ContainerFixture.all) func annexBMatchesFFmpegBitstreamFilter(fixture: ContainerFixture) throws {
        var sink = MemorySink()
        let statistics = try MP4ToAnnexB.convert(try fixture.reader(), to: &sink)
        let ours = annexBNALUnits(sink.bytes)
        var ffmpeg = annexBNALUnits(try fixture.bytes("mp4toannexb.\(fixture.streamExtension)"))
        if fixture.codec == .hevc {
            var seenSinceSlice: [[UInt8]] = []
            ffmpeg = ffmpeg.filter { unit in
                let type = (unit[0] >> 1) & 0x3F
                if type < 32 { seenSinceSlice.removeAll() }
                guard (32...34).contains(type) else { return true }
                defer { seenSinceSlice.append(unit) }
                return !seenSinceSlice.contains(unit)
            }
        }
        #expect(ours.count == ffmpeg.count)
        #expect(firstDifference(ours, ffmpeg) == nil)
        #expect(statistics.accessUnits == (try fixture.facts()).packets)
    }

    /// The same for ffmpeg's remuxes of the elementary-stream fixtures.
    @Test(arguments: RemuxFixture.all) func remuxAnnexBMatchesFFmpegBitstreamFilter(fixture: RemuxFixture) throws {
        var sink = MemorySink()
        try MP4ToAnnexB.convert(try MP4VideoTrackReader(RandomAccessFile(path: fixture.url("mp4").path)), to: &sink)
        let ours = annexBNALUnits(sink.bytes)
        var ffmpeg = annexBNALUnits(try fixture.bytes("mp4toannexb.\(fixture.streamExtension)"))
        if fixture.codec == .hevc {
            var seenSinceSlice: [[UInt8]] = []
            ffmpeg = ffmpeg.filter { unit in
                let type = (unit[0] >> 1) & 0x3F
                if type < 32 { seenSinceSlice.removeAll() }
                guard (32...34).contains(type) else { return true }
                defer { seenSinceSlice.append(unit) }
                return !seenSinceSlice.contains(unit)
            }
        }
        #expect(firstDifference(ours, ffmpeg) == nil)
    }

    /// The in-memory source reads the same samples as the file.
    @Test func memorySourceEqualsFileSource() throws {
        let fixture = try #require(ContainerFixture.all.first { $0.name == "mp4_hevc_frag" })
        let memory = try MP4VideoTrackReader(MemoryRandomAccessSource(try fixture.bytes("mp4")))
        #expect(try allSamples(memory) == (try allSamples(try fixture.reader())))
        #expect(memory.track == (try fixture.reader()).track)
    }
}

/// MP4 → Annex-B decodes with ffmpeg to the same frames as the MP4 itself (`ffmpeg -f framemd5`).
@Suite struct MP4ToAnnexBDecodeTests {
    @Test(arguments: ContainerFixture.all) func annexBDecodesToTheSameFrames(fixture: ContainerFixture) throws {
        var sink = MemorySink()
        try MP4ToAnnexB.convert(try fixture.reader(), to: &sink)
        let path = temporaryPath("out.\(fixture.streamExtension)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path))
        let result = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let md5s = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(md5s == (try fixture.facts()).frame_md5)
    }
}
