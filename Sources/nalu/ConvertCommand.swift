public import ArgumentParser
public import NALU
import NALUIO
import NALUMP4
public import NALUExport
import NALUMedia
import NALUTS

/// `--to annexb|avcc|mp4|ts|m2ts` (``NALUExport/ConversionFormat``).
typealias OutputFraming = ConversionFormat

extension ConversionFormat: ExpressibleByArgument {}

/// `--aud keep|strip|insert`.
extension AccessUnitDelimiterPolicy: ExpressibleByArgument {}

/// `--parameter-sets keyframes|first|never`.
extension ParameterSetInsertion: ExpressibleByArgument {}

/// `nalu convert`: Annex-B ⇄ length-prefixed ⇄ MP4, and to MPEG-TS, streaming.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between Annex-B, length-prefixed (AVCC/HVCC) framing and MP4, or to MPEG-TS.",
        discussion: """
        Annex-B → length-prefixed (--to avcc) moves parameter sets into the avcC/hvcC record \
        (--extradata-out) unless --keep-parameter-sets keeps them in band too (avc3/hev1 use); \
        without --extradata-out they stay in band (with a note), so the output stays decodable. \
        Length-prefixed → Annex-B (--to annexb) writes the record's parameter sets before every \
        keyframe access unit that lacks them (--parameter-sets keyframes|first|never), after any \
        access unit delimiter. Length-prefixed input takes its parameter sets from --extradata (a \
        raw avcC/hvcC record) or from the stream itself. Output files are written under a \
        temporary name and renamed when complete.

        MP4/MOV input (told by its content: a file or pipe that starts with an ISO BMFF box) is \
        read from its first H.264/H.265 video track; --to annexb/avcc name the other tracks on \
        standard error and do what ffmpeg's h264_mp4toannexb / hevc_mp4toannexb bitstream filters do; \
        --to mp4 copies the other tracks (audio, subtitles; not other video tracks) unchanged beside \
        the video, with their timing and edit lists (--no-audio leaves the audio out). --to mp4 writes one video track \
        (avc1/hvc1 by \
        default, --sample-entry to choose), moov at the end, or first with --faststart, or \
        fragmented per GOP with --fragmented. MP4/MOV and MPEG-TS input keep their own timestamps \
        (every sample's decoding and presentation time, variable frame rates, the input's edit \
        list); an elementary stream (or --fps) is timed at a constant rate from --fps, else the \
        SPS VUI timing; presentation order comes from the slice headers' picture order counts, \
        so B-frames play in order. A stream whose parameter sets \
        change (resolution, profile) gets a sample entry per record (fragmented: the sets stay in \
        band from the change on, with a note).

        --to ts (or -o x.ts) writes an MPEG-2 transport stream (--to m2ts or -o x.m2ts: 192-byte \
        packets with arrival time stamps): one program, the video on PID \
        0x100 with the PCR, one PES packet per access unit with PTS/DTS: the input's own times (MP4/MOV, MPEG-TS; \
        shifted so that audio and video stay in sync after the edit list), else from the picture \
        order at a constant rate (--fps, else the SPS VUI, else 25 with a note), an access unit delimiter at the start \
        of every access unit, parameter sets in band \
        before keyframes (--parameter-sets), random_access_indicator on keyframes, PAT/PMT at \
        least every 100 ms. From MP4/MOV input every AAC (as ADTS, stream type 0x0F), AC-3 (0x81) \
        and MPEG-1/2 audio (0x03/0x04) track goes along, on PIDs 0x101, 0x102, … with its \
        language, interleaved with the video by time and keeping the MP4's A/V offset (edit \
        lists); MPEG-TS input's AAC, AC-3 and MPEG audio streams go along into MP4 (mp4a/esds, \
        ac-3/dac3, mp4a with objectTypeIndication 0x6B; the language in mdhd; an edit list \
        keeping the A/V offset) and MPEG-TS (the same stream types). Audio an output cannot hold \
        (Annex-B, length-prefixed; PCM or E-AC-3 to MPEG-TS) leaves the video written and exit \
        status 2; --no-audio leaves it out (exit 0). MP4/MOV to MP4/MOV keeps the movie metadata: rotation (tkhd matrix), \
        creation times, language, handler names, udta/meta; a .mov output is branded qt.
        """
    )

    @Argument(help: ArgumentHelp("Input stream, or - for standard input (the default when it is a pipe).", valueName: "input"))
    var inputArgument: String?

    @Option(name: .customLong("to"), help: "Output: annexb, avcc (length-prefixed; also for H.265), mp4, ts or m2ts (MPEG-TS); default from the output's extension.")
    var toOption: OutputFraming?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file, or - for standard output (the default when it is a pipe).", valueName: "file"))
    var outputArgument: String?

    @Option(help: "Codec of the input (h264|hevc); detected when omitted.")
    var codec: CodecOption?

    @Option(help: ArgumentHelp("Bytes per NAL length: of the output with --to avcc (default 4), of the input otherwise.", valueName: "n"))
    var lengthSize: Int?

    @Option(help: ArgumentHelp("Bytes per NAL length of length-prefixed input, when converting to avcc (default: from --extradata, or 4).", valueName: "n"))
    var inputLengthSize: Int?

    @Option(help: ArgumentHelp("avcC/hvcC record holding the input's parameter sets (length-prefixed input).", valueName: "file"))
    var extradata: String?

    @Option(help: ArgumentHelp("MPEG-TS input: the PID of the video stream to read (decimal or 0x hex); default the first H.264/H.265 stream of the PMT.", valueName: "pid"))
    var pid: PIDOption?

    @Option(help: ArgumentHelp("Write the avcC/hvcC record of the output here (--to avcc).", valueName: "file"))
    var extradataOut: String?

    @Flag(help: "Keep parameter sets in the stream as well as in the record (--to avcc; for avc3/hev1).")
    var keepParameterSets = false

    @Option(help: "Access unit delimiters: keep, strip, or insert where missing (--to annexb).")
    var aud: AccessUnitDelimiterPolicy = .keep

    @Option(help: "Where to write parameter sets in band (--to annexb): keyframes, first, never.")
    var parameterSets: ParameterSetInsertion = .keyframes

    @Option(help: ArgumentHelp("MP4 and MPEG-TS output: frames per second, e.g. 30, 29.97, 30000/1001 (default: the SPS VUI timing).", valueName: "rate"))
    var fps: FrameRate?

    @OptionGroup var mp4: MP4OutputOptions

    @Flag(help: "MP4/MOV or MPEG-TS input to MP4 or MPEG-TS: leave the audio tracks out (they are carried otherwise: to MPEG-TS every AAC, AC-3 and MPEG audio track).")
    var noAudio = false
    @OptionGroup var otherTracks: OtherTracksOption

    @Flag(help: "Print what was done to standard error.")
    var verbose = false

    func validate() throws {
        for (name, value) in [("--length-size", lengthSize), ("--input-length-size", inputLengthSize)] {
            if let value, ![1, 2, 4].contains(value) {
                throw ValidationError("\(name) must be 1, 2 or 4 (3 is reserved by ISO/IEC 14496-15).")
            }
        }
        do { try settings().validate() } catch { throw ValidationError(error.detail ?? "\(error)") }
    }

    /// What the options ask of the conversion.
    func settings() -> ConversionSettings {
        var settings = ConversionSettings(format: to)
        (settings.accessUnitDelimiters, settings.parameterSets, settings.lengthSize) = (aud, parameterSets, lengthSize)
        (settings.keepsParameterSets, settings.writesRecord) = (keepParameterSets, extradataOut != nil)
        (settings.mp4, settings.frameRate, settings.maxAccessUnitSize) = (mp4.muxerOptions(frameRate: nil), fps?.rational, mp4.maxAccessUnitSize)
        settings.carriesAudio = !noAudio
        return settings
    }

    func run() throws {
        // The input record, if given, says the codec and the input length size.
        var record: DecoderConfigurationRecord?
        if let extradata { record = try DecoderConfigurationRecord(contentsOf: extradata, codec: codec?.codec) }
        let inputLength = to == .avcc ? inputLengthSize : (lengthSize ?? inputLengthSize)
        var sourceOptions = MediaSourceOptions(codec: codec?.codec, lengthSize: inputLength, record: record,
                                               codecFromFileName: false, pid: pid?.value)
        sourceOptions.maxNALUnitSize = mp4.maxAccessUnitSize
        let source = try openMediaSource(input, sourceOptions)
        if source.container.isMP4 && to != .avcc && lengthSize != nil {
            throw ValidationError("MP4 input carries its own record: --extradata, --input-length-size and --length-size do not apply.")
        }
        if to == .mp4 { try mp4.check(codec: source.codec) }
        let conversion = try StreamConversion(source: source, outputPath: output, settings: settings())
        // Other tracks left out are named; audio left out without --no-audio gives exit status 2.
        let lost = source.carriageLoss(carried: conversion.carriedTrackIDs, noAudio: noAudio, to: to.carriageTarget, input: input)
        let file = try FileSink(path: output)
        let result = try conversion.run(output: file)
        for note in result.notes { StandardError.write("nalu: note: \(note)\n") }
        if let extradataOut, let bytes = result.report.record { try FileSink.writeWhole(bytes, to: extradataOut) }
        try file.commit()
        for note in result.report.notes { StandardError.write("nalu: note: \(note)\n") }
        if verbose { for line in result.summary { StandardError.write("nalu: \(line)\n") } }
        try lost?.fail(noOtherTracks: otherTracks.noOtherTracks)
    }
}
