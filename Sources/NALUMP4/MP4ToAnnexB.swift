public import NALU

/// Converts the video track of an MP4/MOV file to an Annex-B elementary stream: what
/// `ffmpeg -c:v copy -bsf:v h264_mp4toannexb` (or `hevc_mp4toannexb`) `-f h264|hevc` does.
///
/// Samples are read one at a time at their offsets and their length-prefixed NAL units handed to
/// the core's ``LengthPrefixedToAnnexB`` with the sample entry's parameter sets, so keyframes get
/// the record's parameter sets in band (``ParameterSetInsertion``), by default just before the
/// first slice as FFmpeg places them (``ParameterSetPlacement/beforeFirstSlice``); prefix SEI NAL
/// units an `hvcC` carries go with them, as FFmpeg writes the whole record. Memory stays at one
/// sample plus one access unit. When samples switch to another sample entry, that entry's
/// parameter sets are passed in band before the first such sample.
public enum MP4ToAnnexB {
    /// Converts every sample of `reader`'s track, writing Annex-B bytes to `sink`.
    /// - Returns: the conversion's counts.
    @discardableResult
    public static func convert<Source: RandomAccessByteSource>(
        _ reader: MP4VideoTrackReader<Source>, to sink: inout some ByteSink,
        options: LengthPrefixedToAnnexB.Options = .init(placement: .beforeFirstSlice)
    ) throws(NALUError) -> ConversionStatistics {
        let track = reader.track
        var declarativeSEI: [[UInt8]] = []
        if case .hevc(let record) = track.decoderConfiguration { declarativeSEI = record.declarativeSEI }
        var converter = try LengthPrefixedToAnnexB(codec: track.codec, options: options,
                                                   outOfBandParameterSets: track.decoderConfiguration.parameterSets,
                                                   declarativeSEI: declarativeSEI)
        try NALUError.typed(field: "sample") { try reader.forEachNALUnit { unit in try converter.push(unit, to: &sink) } }
        try converter.finish(to: &sink)
        return converter.statistics
    }

    /// Calls `body` with each NAL unit of a sample (`lengthSize`-byte big-endian lengths, ISO/IEC
    /// 14496-15 5.3.2), skipping zero-length ones. A length past the sample's end is an error at
    /// its file offset.
    public static func forEachNALUnit(in sample: [UInt8], lengthSize: Int, sampleOffset: Int64,
                                      _ body: (NALUnitView) throws -> Void) throws {
        try sample.withUnsafeBytes { bytes in
            try LengthPrefixed.forEachNALUnit(in: bytes, lengthSize: lengthSize, baseOffset: sampleOffset, within: "sample", body)
        }
    }
}
