import ArgumentParser
import NALU
import NALUIO
import NALUMP4
import NALUMedia

/// `--sample-entry avc1|avc3|hvc1|hev1`.
enum SampleEntryOption: String, ExpressibleByArgument, CaseIterable {
    case avc1, avc3, hvc1, hev1

    var entry: MP4SampleEntryType {
        switch self {
        case .avc1: .avc1
        case .avc3: .avc3
        case .hvc1: .hvc1
        case .hev1: .hev1
        }
    }
}

/// Options for writing MP4, shared by `nalu convert --to mp4` and `nalu encode -o out.mp4`.
struct MP4OutputOptions: ParsableArguments {
    @Flag(help: "MP4 output: moov before the media data, so players can start before the download ends.")
    var faststart = false

    @Flag(help: "MP4 output: fragmented (moov, then a moof + mdat per GOP) for streaming.")
    var fragmented = false

    @Option(name: .customLong("sample-entry"),
            help: "MP4 output: avc1/hvc1 (parameter sets only in the record; Apple players need hvc1) or avc3/hev1 (also in band).")
    var sampleEntryOption: SampleEntryOption?

    var sampleEntry: MP4SampleEntryType? { sampleEntryOption?.entry }

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

    /// Whether `path` names an MP4/MOV output by its extension.
    static func isMP4Path(_ path: String) -> Bool { ContainerDetection.hasMP4Extension(path) }

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

/// An MP4 file being written by `nalu encode`: the library's ``MP4FileSink`` over a `FileSink`,
/// committed by ``finish()``.
final class MP4OutputFile {
    let file: MP4FileSink

    /// The file written.
    var sink: FileSink { file.output }

    /// - Parameters:
    ///   - frameRate: frames per second, or `nil` for the SPS's VUI timing.
    ///   - sink: the output, if already open (else `path` is opened).
    init(path: String, codec: Codec, options: MP4OutputOptions, frameRate: Rational?,
         accessUnitDelimiters: AccessUnitDelimiterPolicy = .keep, sink: FileSink? = nil) throws {
        try options.check(codec: codec)
        file = try MP4FileSink(codec: codec, output: try sink ?? FileSink(path: path),
                               options: options.muxerOptions(frameRate: frameRate, accessUnitDelimiters: accessUnitDelimiters))
    }

    /// Feeds one NAL unit.
    func push(_ unit: NALUnitView) throws { try file.push(unit) }

    /// Feeds one NAL unit held in an array (out-of-band parameter sets).
    func push(nalUnit: [UInt8]) throws { try file.push(nalUnit: nalUnit) }

    /// Feeds the NAL units of an Annex-B buffer (an encoder's access unit).
    func push(annexB bytes: UnsafeRawBufferPointer) throws { try file.push(annexB: bytes) }

    /// Writes the movie box and renames the file into place.
    @discardableResult
    func finish() throws -> MP4MuxerSummary {
        let report = try file.finish()
        for note in report.notes { StandardError.write("nalu: note: \(note)\n") }
        try file.output.commit()
        guard let summary = report.mp4 else { throw NALUError(.missing, field: "MP4 summary") }
        return summary
    }
}
