#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUMP4
import NALUMedia

/// An input that is no MP4/MOV (an Annex-B or length-prefixed stream, an MPEG-TS) made
/// packageable: its video muxed into an MP4 scratch file outside the package (an unpredictable
/// name in `$TMPDIR`, removed when the input is packaged, on an error or on a signal) by the muxer `nalu convert --to mp4` uses (``MP4FileSink``), which times
/// it as that command does:
///
/// - **MPEG-TS**: every access unit keeps its PES DTS/PTS (``SampleClock``, 90 kHz), the first
///   picture shown at time 0 through an edit list; each AAC, AC-3 and MPEG audio stream becomes
///   a sound track (``TransportStreamAudioReader``: `mp4a`/`esds`, `ac-3`/`dac3`, its language
///   in `mdhd`), each frame's bytes unchanged, placed against the video by its PTS; with
///   ``PackagerOptions/dropsAudio`` none is read.
/// - **Raw streams**: a constant frame rate from ``PackagerOptions/frameRate`` (`--fps`), else the
///   SPS VUI's (neither: an error asking for `--fps`); composition offsets from the picture order counts.
///
/// A stream whose parameter sets change gets one sample entry per set, which
/// ``Packager`` turns into in-band parameter sets (`avc3`/`hev1`).
final class PackageInput {
    /// The MP4 the input was muxed into.
    let source: MediaSource
    /// Things the user should know (the muxer's notes).
    let notes: [String]
    /// The MP4 file (``NALUIO/OutputTarget/createScratchFile(suffix:)``).
    private let scratch: (path: String, slot: Int?)

    /// Muxes `original` into a scratch file in `$TMPDIR` (`nalu-XXXXXX_input.mp4`).
    /// - Throws: ``NALUError``: `.unsupported` for a transport stream with streams that cannot
    ///   be packaged (other than AAC, AC-3 and MPEG audio; audio of any kind is left out with
    ///   ``PackagerOptions/dropsAudio``), or audio read from standard input (a second pass is
    ///   needed); the muxer's errors.
    init(_ original: MediaSource, options: PackagerOptions) throws {
        var audio: [TransportStreamAudioReader] = []
        if let stream = original.transportStream {
            let others = stream.otherStreams.filter { !(options.dropsAudio && $0.isAudio) }
            if let other = others.first(where: { TransportStreamAudioReader.Coding($0) == nil }) {
                throw NALUError(.unsupported, field: original.path,
                                detail: "\(other) cannot be packaged: only the video and AAC, AC-3 and MPEG audio streams can"
                                    + (other.isAudio ? " (--no-audio leaves the audio out)" : ""))
            }
            if !others.isEmpty {
                guard original.path != "-" else {
                    throw NALUError(.unsupported, field: original.path,
                                    detail: "the transport stream's audio is read in a second pass, which standard input cannot give: give a file, or --no-audio")
                }
                audio = try original.transportStreamAudioStreams()
                if let missing = others.first(where: { stream in !audio.contains { $0.pid == stream.pid } }) {
                    throw NALUError(.missing, field: original.path, detail: "\(missing) has no frame in its first 16 MiB")
                }
            }
        }
        // An unpredictable name outside the package, removed on a signal too.
        scratch = try OutputTarget.createScratchFile(suffix: "_input.mp4")
        let temporaryPath = scratch.path
        let containerRate = original.sampleClock() == nil ? try original.containerFrameRate() : nil
        var muxerOptions = MP4MuxerOptions(sampleEntry: nil, layout: .moovAtEnd, frameRate: options.frameRate ?? containerRate)
        muxerOptions.maxAccessUnitSize = options.maxAccessUnitSize
        do {
            let file = try FileSink(path: temporaryPath, replacing: true)
            let sink: MP4FileSink = if !audio.isEmpty {
                try MP4FileSink(for: original, output: file, options: muxerOptions, transportStreamAudio: audio)
            } else {
                try MP4FileSink(for: original, output: file, options: muxerOptions)
            }
            let report = try sink.write(original)
            try file.commit()
            notes = report.notes.map { "\(original.path): \($0)" }
            source = try MediaSource(path: temporaryPath)
        } catch {
            OutputTarget.removeScratchFile(scratch)
            throw error
        }
    }

    deinit { OutputTarget.removeScratchFile(scratch) }
}
