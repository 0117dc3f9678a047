public import ArgumentParser
import NALU
import NALUMP4
import NALUMedia

/// `--sample-entry avc1|avc3|hvc1|hev1`.
extension MP4SampleEntryType: ExpressibleByArgument {}

/// Options for writing MP4, shared by `nalu convert --to mp4` and `nalu encode -o out.mp4`.
struct MP4OutputOptions: ParsableArguments {
    @Flag(help: "MP4 output: moov before the media data, so players can start before the download ends.")
    var faststart = false
    @Flag(help: "MP4 output: fragmented (moov, then a moof + mdat per GOP) for streaming.")
    var fragmented = false
    @Option(name: .customLong("sample-entry"),
            help: "MP4 output: avc1/hvc1 (parameter sets only in the record; Apple players need hvc1) or avc3/hev1 (also in band).")
    var sampleEntryOption: MP4SampleEntryType?
    var sampleEntry: MP4SampleEntryType? { sampleEntryOption }
    @Option(name: .customLong("max-access-unit-size"),
            help: ArgumentHelp("Bytes of one access unit held in memory before giving up (MP4 and Annex-B output; default 64 MiB).", valueName: "bytes"))
    var maxAccessUnitSize: Int = AccessUnitLimit.defaultMaxBytes

    func validate() throws {
        if faststart && fragmented { throw ValidationError("Use either --faststart or --fragmented.") }
        if maxAccessUnitSize < 1 << 16 { throw ValidationError("--max-access-unit-size must be at least 65536 bytes.") }
    }

    /// Whether any of these options was given.
    var isSet: Bool { faststart || fragmented || sampleEntryOption != nil }

    var layout: MP4Layout { faststart ? .faststart : fragmented ? .fragmented : .moovAtEnd }

    /// The muxer options these give.
    func muxerOptions(frameRate: Rational?, accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep) -> MP4MuxerOptions {
        var options = MP4MuxerOptions(sampleEntry: sampleEntry, layout: layout, frameRate: frameRate, accessUnitDelimiters: accessUnitDelimiters)
        options.maxAccessUnitSize = maxAccessUnitSize
        return options
    }

    /// Refuses a `--sample-entry` of the other codec.
    func check(codec: Codec) throws {
        if let entry = sampleEntry, entry.codec != codec {
            throw ValidationError("--sample-entry \(entry) is for \(entry.codec == .h264 ? "H.264" : "H.265"); the stream is \(codec == .h264 ? "H.264" : "H.265").")
        }
    }
}
