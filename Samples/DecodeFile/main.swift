// Decodes any input nalu reads (MP4/MOV, fragmented MP4, MPEG-TS, Annex-B; a file or a pipe):
// MediaReader yields complete access units with their times, DecoderSession turns them into
// pictures in presentation order.
import NALU
import NALUAVCodec
import NALUDecoder
import NALUMedia

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "Tests/Fixtures/mp4_avc_bframes.mp4"
let reader = try MediaReader(path: path)
let decoder = try DecoderSession(codec: reader.codec, parameterSets: reader.outOfBandParameterSets, factory: AVCodecDecoderFactory())
var pictures = 0, otherSamples = 0, damaged = 0
while let item = try reader.next() {          // or: for try await item in reader (cancellable)
    switch item {
    case .accessUnit(let unit):                // NAL units, timing (dts/pts/duration), keyframe, parameter sets
        pictures += try decoder.decode(unit).count
    case .sample:                              // audio, subtitles, timecode: interleaved by time
        otherSamples += 1
    case .damaged(let damage):                 // left out, never silently; reading goes on
        damaged += 1
        print(damage)
    }
}
pictures += decoder.flush().count
print("\(pictures) pictures, \(otherSamples) samples of \(reader.otherTracks.count) other track(s), \(damaged) damaged NAL unit(s)")
print("not decoded: \(decoder.statistics.accessUnitsLost) access unit(s); problems: \(decoder.problems.count)")  // nothing lost silently
