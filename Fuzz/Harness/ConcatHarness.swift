// Joins of transport streams (issue 41): the input after a mode byte is written to a scratch file
// as an MPEG-TS and joined with itself by `Concatenator`, which reads each picture's PES times
// (`ConcatPiece(transportStream:)`, `ConcatTiming`) and the audio streams
// (`ConcatTransportStreamAudio`) from the untrusted bytes. Mode bits: 0 the output (MP4, else
// MPEG-TS), 1 the audio joined (else the video alone), 2 a frame rate given (the join timed at
// 25 fps instead of the inputs' own times; MP4 output).
//
// Properties beyond "value or typed error, no trap": both inputs (the same file) give as many
// pictures, and the RASL pictures dropped at their start are as many; the audio frames left out
// at the joins are no more than the frames of the streams joined.
import NALU
import NALUIO
import NALUMP4
import NALUTS
import NALUMedia

enum ConcatHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let mode = all.first else { return }
        let bytes = Array(all.dropFirst())
        guard let folder = PackageHarness.makeFolder() else { return }
        defer { PackageHarness.removeTree(folder) }
        let input = folder + "/input.ts"
        guard PackageHarness.store(bytes, to: input) else { return }
        var options = MediaSourceOptions(codecFromFileName: false)
        options.readsAhead = false
        let joiner: Concatenator
        do {
            joiner = try Concatenator(paths: [input, input], options: [options])
        } catch {
            // A NALUError: `Concatenator.init` throws only that type (typed throws).
            return
        }
        guard joiner.inputs.allSatisfy({ $0.container.isTransportStream }) else { return }
        let audio = mode & 2 != 0
        let report: ConcatReport
        do {
            if mode & 1 == 0 {
                let output = try FileSink(path: folder + "/joined.mp4")
                defer { output.discard() }
                var muxer = MP4MuxerOptions()
                if mode & 4 != 0 { muxer.frameRate = Rational(25, 1) }
                report = try joiner.writeMP4(output: output, options: muxer, audio: audio)
            } else {
                let output = try FileSink(path: folder + "/joined.ts")
                defer { output.discard() }
                report = try joiner.writeTransportStream(output: output, options: TransportStreamMuxerOptions(), audio: audio)
            }
        } catch {
            // The writers throw NALUError (typed throws): that the join failed with one is checked
            // by the compiler; a trap or a property below is what this target looks for.
            return
        }
        try fuzzCheck(report.pictures.count == 2 && report.pictures[0] == report.pictures[1],
                      "the same input gave \(report.pictures) pictures")
        try fuzzCheck(report.droppedLeadingPictures.count == 2 && report.droppedLeadingPictures[0] == report.droppedLeadingPictures[1],
                      "the same input dropped \(report.droppedLeadingPictures) leading pictures")
        let dropped = report.audioFramesDroppedAtJoins.reduce(0, +)
        try fuzzCheck(dropped >= 0 && (dropped == 0 || report.audioJoined != nil), "\(dropped) audio frames left out of no join")
    }
}
