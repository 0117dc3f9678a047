#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUMP4

/// The samples of an input's tracks other than its video, in time order, for ``MediaReader`` to
/// interleave with the access units: an MP4/MOV's other tracks (each read through its own
/// sample iterator: the sample tables' or fragments' order, ISO/IEC 14496-12 8.6, 8.8), or a
/// transport stream's ADTS AAC stream (``TransportStreamAudioReader``, a pass of its own over
/// the file). Memory holds one waiting sample per track.
///
/// Samples are ordered by their decoding time on one clock (``ClockTime``, compared exactly):
/// an MP4 track's media time mapped through the start of its edit list (ISO/IEC 14496-12
/// 8.6.6: minus the first edit's `media_time`, plus the leading empty edits in the track's
/// timescale), a transport stream's 90 kHz time as it is. The video's access units are placed
/// on the same clock (``videoClock(_:)``); a sample at the same time as an access unit comes
/// before it.
final class OtherTrackFeed {
    /// The tracks read, as the reader lists them.
    let tracks: [MediaReaderTrack]

    private struct MP4Cursor {
        let reader: MP4TrackReader<AnyRandomAccessSource>
        var iterator: MP4SampleIterator<AnyRandomAccessSource>
        var head: MP4Sample?
        var ended = false
        /// Ticks added to `dts` to reach the movie's clock.
        let shift: Int64
    }

    private var cursors: [MP4Cursor] = []
    private var audio: TransportStreamAudioReader?
    private var audioHead: (frame: [UInt8], pts: Int64)?
    private var audioIndex = 0
    private var audioEnded = false
    private var buffer: [UInt8] = []
    /// The video track's shift onto the clock (MP4), in its ticks.
    private let videoShift: Int64

    /// A sample larger than this is refused (`.tooLarge`) before it is read.
    static let maxSampleBytes = 64 << 20

    /// The other tracks of `source` that can be read, or `nil` when it has none.
    init?(source: MediaSource) throws(NALUError) {
        if let mp4 = source.mp4, let movie = try source.movie() {
            let movieTimescale = Int64(max(1, movie.movieTimescale))
            func shift(_ editList: [MP4EditListEntry], timescale: UInt32) -> Int64 {
                let start = editListStart(editList)
                let delay = CheckedNumber.int64(start.delay).flatMap { CheckedNumber.rescale($0, from: movieTimescale, to: Int64(max(1, timescale))) } ?? 0
                return CheckedNumber.sum(delay, -start.mediaTime) ?? 0
            }
            videoShift = shift(mp4.track.editList, timescale: mp4.track.timescale)
            for reader in movie.tracks where reader.track.trackID != mp4.track.trackID {
                cursors.append(MP4Cursor(reader: reader, iterator: reader.samples(), shift: shift(reader.track.editList, timescale: reader.track.timescale)))
            }
            tracks = cursors.map {
                MediaReaderTrack(trackID: $0.reader.track.trackID, handler: $0.reader.track.handler.description.trimmingTrailingSpaces,
                                 timescale: $0.reader.track.timescale, sampleEntries: $0.reader.track.sampleEntries)
            }
        } else if Self.isRegularFile(source.path), let audio = try source.transportStreamAudio() {
            self.audio = audio
            videoShift = 0
            tracks = [MediaReaderTrack(trackID: UInt32(audio.pid), handler: "soun", timescale: 90_000,
                                       audioSpecificConfig: audio.audioSpecificConfig)]
        } else {
            return nil
        }
        if tracks.isEmpty { return nil }
    }

    /// Whether `path` names a regular file: a transport stream's audio is read by a second
    /// pass, which a pipe or FIFO cannot give (opening a FIFO again would take the video
    /// reader's bytes); there the audio stays listed in ``MediaReader/unreadTracks``.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return path != "-" && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// An access unit's place on the clock: its decoding time.
    func videoClock(_ timing: SampleTiming) -> ClockTime {
        ClockTime(timing.decode, shift: videoShift, timescale: timing.timescale)
    }

    /// Hands `put` every waiting sample whose time on the clock is at most `limit` (all of them
    /// for `nil`), earliest first (ties: the track listed first).
    func emit(upTo limit: ClockTime?, _ put: (MediaTrackSample) throws -> Void) throws {
        while true {
            var best: (index: Int?, time: ClockTime)?
            for index in cursors.indices {
                guard let head = try peek(index) else { continue }
                let time = ClockTime(head.dts, shift: cursors[index].shift, timescale: cursors[index].reader.track.timescale)
                if limit.map({ time <= $0 }) ?? true, best.map({ time < $0.time }) ?? true { best = (index, time) }
            }
            if let head = try peekAudio() {
                let time = ClockTime(head.pts, shift: 0, timescale: 90_000)
                if limit.map({ time <= $0 }) ?? true, best.map({ time < $0.time }) ?? true { best = (nil, time) }
            }
            guard let best else { return }
            if let index = best.index {
                try put(takeSample(index))
            } else {
                try put(takeAudio())
            }
        }
    }

    private func peek(_ index: Int) throws(NALUError) -> MP4Sample? {
        if let head = cursors[index].head { return head }
        guard !cursors[index].ended else { return nil }
        let next = try cursors[index].iterator.next()
        cursors[index].head = next
        if next == nil { cursors[index].ended = true }
        return next
    }

    private func takeSample(_ index: Int) throws(NALUError) -> MediaTrackSample {
        guard let sample = cursors[index].head else { throw NALUError(.missing, field: "sample", detail: "no sample waiting") }
        cursors[index].head = nil
        let reader = cursors[index].reader
        guard sample.size <= Self.maxSampleBytes else {
            throw NALUError(.tooLarge, field: "sample", byteOffset: sample.offset,
                            detail: "sample \(sample.index + 1) of track \(reader.track.trackID) has \(sample.size) bytes; at most \(Self.maxSampleBytes)")
        }
        try reader.read(sample, into: &buffer)
        let timing = SampleTiming(decode: sample.dts, presentation: sample.pts, duration: Int64(sample.duration), timescale: reader.track.timescale)
        return MediaTrackSample(trackID: reader.track.trackID, index: sample.index, timing: timing, isSync: sample.isSync,
                                byteOffset: sample.offset, bytes: buffer)
    }

    private func peekAudio() throws -> (frame: [UInt8], pts: Int64)? {
        if let audioHead { return audioHead }
        guard let audio, !audioEnded else { return nil }
        audioHead = try audio.next()
        if audioHead == nil { audioEnded = true }
        return audioHead
    }

    private func takeAudio() throws(NALUError) -> MediaTrackSample {
        guard let head = audioHead, let audio else { throw NALUError(.missing, field: "ADTS frame", detail: "no frame waiting") }
        audioHead = nil
        // ISO/IEC 14496-3: an AAC frame is 1024 samples (the ADTS header said the rate).
        let duration = CheckedNumber.rescale(1024, from: Int64(max(1, audio.sampleRate)), to: 90_000) ?? 0
        defer { audioIndex += 1 }
        return MediaTrackSample(trackID: UInt32(audio.pid), index: audioIndex,
                                timing: SampleTiming(decode: head.pts, presentation: head.pts, duration: duration, timescale: 90_000),
                                bytes: head.frame)
    }
}

extension String {
    /// Without the spaces that pad a four-character code (`"tx3g"`, `"sbtl"`, `"qt  "`).
    fileprivate var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}

/// A time on ``OtherTrackFeed``'s clock: `ticks / timescale` seconds, compared exactly (the
/// cross products in 128 bits), so equal times of tracks with different timescales are equal.
struct ClockTime: Comparable {
    var ticks: Int64
    var timescale: Int64

    /// `time + shift` ticks (saturated at the ends of 64 bits) of `1 / timescale` s.
    init(_ time: Int64, shift: Int64, timescale: UInt32) {
        let (sum, overflow) = time.addingReportingOverflow(shift)
        ticks = overflow ? (shift < 0 ? Int64.min : Int64.max) : sum
        self.timescale = Int64(max(1, timescale))
    }

    static func < (lhs: ClockTime, rhs: ClockTime) -> Bool {
        let left = lhs.ticks.multipliedFullWidth(by: rhs.timescale)
        let right = rhs.ticks.multipliedFullWidth(by: lhs.timescale)
        return left.high < right.high || (left.high == right.high && left.low < right.low)
    }

    static func == (lhs: ClockTime, rhs: ClockTime) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }
}
