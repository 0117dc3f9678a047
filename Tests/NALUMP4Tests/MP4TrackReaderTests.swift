import Foundation
import Testing
import NALU
import NALUIO
import NALUMP4

/// ffprobe's view of one stream: its packets (dts, duration, size) and stream fields.
struct ProbedStream {
    var codecTag: String
    var timeBase: String
    var language: String?
    var dts: [Int64] = []
    var durations: [Int64] = []
    var sizes: [Int] = []

    /// Every stream of `path`, by index.
    /// With `ignoreEditList`, packet times are the media's (`-ignore_editlist 1`); a duration
    /// ffprobe does not know is -1.
    static func all(_ path: String, ignoreEditList: Bool = false) throws -> [ProbedStream] {
        let streams = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_tag_string,time_base:stream_tags=language",
                                              "-of", "json", path])
        struct Streams: Decodable {
            struct Stream: Decodable {
                let index: Int
                let codec_tag_string: String
                let time_base: String
                let tags: [String: String]?
            }
            let streams: [Stream]
        }
        let decoded = try JSONDecoder().decode(Streams.self, from: Data(streams.stdout.utf8))
        var result = decoded.streams.map { ProbedStream(codecTag: $0.codec_tag_string, timeBase: $0.time_base, language: $0.tags?["language"]) }
        let packets = try runTool("ffprobe", ["-v", "error"] + (ignoreEditList ? ["-ignore_editlist", "1"] : []) + ["-show_entries", "packet=stream_index,dts,duration,size", "-of", "csv=p=0", path])
        for line in packets.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count == 4, let stream = Int(fields[0]), let dts = Int64(fields[1]), let duration = Int64(fields[2]) ?? (fields[2] == "N/A" ? -1 : nil),
                  let size = Int(fields[3]), stream < result.count else { continue }
            result[stream].dts.append(dts)
            result[stream].durations.append(duration)
            result[stream].sizes.append(size)
        }
        return result
    }
}

/// ``MP4MovieReader``: every track of a movie, checked against ffprobe's streams and packets.
@Suite struct MP4TrackReaderTests {
    static let files = ["tracks_avc_aac.mp4", "tracks_hevc_aac.mp4", "tracks_mov_aac_pcm.mov", "mp4_avc_audio.mp4", "mp4_avc_frag.mp4"]

    @Test(arguments: files) func everyTrackMatchesFFprobe(file: String) throws {
        let path = fixtureDirectory.appendingPathComponent(file).path
        let movie = try MP4MovieReader(RandomAccessFile(path: path))
        let probed = try ProbedStream.all(path)
        #expect(movie.tracks.count == probed.count)
        for (track, stream) in zip(movie.tracks, probed) {
            #expect("1/\(track.track.timescale)" == stream.timeBase)
            #expect(track.track.sampleEntryType?.description == stream.codecTag)
            #expect(track.track.language == stream.language)
            var samples: [MP4Sample] = []
            try track.forEachSample { samples.append($0) }
            // ffprobe's packets have the edit list's media_time taken off their times.
            let shift = track.track.editList.first { $0.mediaTime >= 0 }?.mediaTime ?? 0
            if stream.codecTag == "sowt" {
                // QuickTime PCM: a sample per PCM frame; ffmpeg makes a packet per chunk.
                #expect(samples.count == 16000)
                #expect(samples.reduce(0) { $0 + $1.size } == stream.sizes.reduce(0, +))
                #expect(samples.reduce(Int64(0)) { $0 + Int64($1.duration) } == stream.durations.reduce(0, +))
            } else {
                #expect(samples.map(\.size) == stream.sizes)
                #expect(samples.map { Int64($0.duration) } == stream.durations)
                #expect(samples.map { $0.dts - shift } == stream.dts)
            }
        }
    }

    /// Fragments: ffmpeg's fragmented copy of the H.264 + AAC fixture (a traf per track per moof).
    @Test func fragmentedTracksMatchFFprobe() throws {
        let path = temporaryPath("frag.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let made = try runTool("ffmpeg", ["-v", "error", "-y", "-i", fixtureDirectory.appendingPathComponent("tracks_avc_aac.mp4").path,
                                          "-map", "0", "-c", "copy", "-movflags", "frag_keyframe+empty_moov+default_base_moof", path])
        #expect(made.status == 0)
        let movie = try MP4MovieReader(RandomAccessFile(path: path))
        #expect(movie.isFragmented)
        let probed = try ProbedStream.all(path, ignoreEditList: true)
        #expect(movie.tracks.count == 2)
        for (track, stream) in zip(movie.tracks, probed) {
            #expect(track.track.sampleTableCount == 0)
            var samples: [MP4Sample] = []
            try track.forEachSample { samples.append($0) }
            #expect(samples.count == stream.sizes.count)
            #expect(samples.map(\.size) == stream.sizes)
            #expect(samples.map(\.dts) == stream.dts)
        }
        #expect(movie.tracks.map(\.track.handler) == ["vide", "soun"])
    }

    @Test func audioTrackFacts() throws {
        let movie = try MP4MovieReader(RandomAccessFile(path: fixtureDirectory.appendingPathComponent("tracks_mov_aac_pcm.mov").path))
        #expect(movie.tracks.map(\.track.handler) == ["vide", "soun", "soun"])
        #expect(movie.tracks.map(\.track.trackID) == [1, 2, 3])
        let aac = movie.tracks[1].track
        #expect(aac.isAudio)
        #expect(aac.timescale == 48000)
        #expect(aac.editList == [MP4EditListEntry(segmentDuration: 2000, mediaTime: 1024)])
        #expect(aac.volume == 0x0100)
        // The entry is copied whole: its size field is its length, the esds inside it.
        let entry = aac.sampleEntries[0]
        #expect(Int(UInt32(entry[0]) << 24 | UInt32(entry[1]) << 16 | UInt32(entry[2]) << 8 | UInt32(entry[3])) == entry.count)
        #expect(String(decoding: entry[4..<8], as: UTF8.self) == "mp4a")
        #expect(movie.tracks[2].track.language == "eng")
        #expect(movie.tracks[2].track.mediaInformationHeader.map { String(decoding: $0[4..<8], as: UTF8.self) } == "smhd")
        // A range of decoding times: samples 2...4 of the AAC track (1024 ticks each).
        var range: [Int] = []
        try movie.tracks[1].forEachSample(decodeTimes: 2048..<5000) { range.append($0.index) }
        #expect(range == [2, 3, 4])
    }

    /// A moov of more than 256 tracks (copies of the AAC trak) is refused, naming the box.
    @Test func tooManyTracks() throws {
        let bytes = Array(try Data(contentsOf: fixtureDirectory.appendingPathComponent("tracks_avc_aac.mp4")))
        let movie = try MP4MovieReader(MemoryRandomAccessSource(bytes))
        let moov = movie.movieBox
        let audio = try #require(movie.tracks.last)
        // The last trak box: find it among moov's children.
        let children = try MP4BoxHeader.children(of: moov, in: MemoryRandomAccessSource(bytes), depth: 1)
        let trak = try #require(children.last { $0.type == "trak" })
        #expect(audio.track.isAudio)
        let trakBytes = Array(bytes[Int(trak.offset)..<Int(trak.end)])
        var moovBytes = Array(bytes[Int(moov.offset)..<Int(moov.end)])
        for _ in 0..<256 { moovBytes += trakBytes }
        let size = UInt32(moovBytes.count)
        moovBytes.replaceSubrange(0..<4, with: [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)])
        let file = Array(bytes[..<Int(moov.offset)]) + moovBytes + Array(bytes[Int(moov.end)...])
        #expect {
            _ = try MP4MovieReader(MemoryRandomAccessSource(file))
        } throws: { error in
            (error as? NALUError)?.field == "moov.trak" && (error as? NALUError)?.code == .tooLarge
        }
    }

    /// The checks of the video reader apply to every track: an audio `stsz` that claims 2^32 − 1
    /// entries is refused before anything is allocated, naming the field and its offset; the
    /// video reader, which does not read that table, still opens the file.
    @Test func malformedAudioTableIsATypedError() throws {
        var bytes = Array(try Data(contentsOf: fixtureDirectory.appendingPathComponent("tracks_avc_aac.mp4")))
        #expect(try MP4MovieReader(MemoryRandomAccessSource(bytes)).tracks.count == 2)
        // The last stsz in the file is the audio track's: its sample_count follows version,
        // flags and sample_size.
        let type = Array("stsz".utf8)
        let position = try #require((0..<(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == type })
        let countOffset = position + 4 + 4 + 4
        bytes.replaceSubrange(countOffset..<(countOffset + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect {
            _ = try MP4MovieReader(MemoryRandomAccessSource(bytes))
        } throws: { error in
            guard let error = error as? NALUError else { return false }
            return error.field == "stsz.sample_count" && error.code == .lengthPastEnd && error.byteOffset == Int64(countOffset)
        }
        #expect(try MP4VideoTrackReader(MemoryRandomAccessSource(bytes)).track.codec == .h264)
    }
}
