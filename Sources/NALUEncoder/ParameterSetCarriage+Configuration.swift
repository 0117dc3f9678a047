public import NALU

extension EncoderConfiguration {
    /// Where this configuration's packets carry parameter sets (the rule of
    /// ``NALU/ParameterSetCarriage``):
    ///
    /// - Annex-B output: in band, always: an elementary stream has no other place for them, so the
    ///   first packet of every encoder carries them (and every keyframe's with
    ///   ``repeatParameterSets``).
    /// - Length-prefixed output (for MP4 and other containers) with ``repeatParameterSets``: in
    ///   band before every keyframe (`avc3`/`hev1`; hvcC arrays not complete).
    /// - Length-prefixed output without: out of band. The packets carry none (the session removes
    ///   the ones x265 writes anyway), ``EncoderSession/decoderConfigurationRecord(lengthSize:)``
    ///   holds them and says its arrays are complete (`avc1`/`hvc1`). A later encoder (after a
    ///   refresh with new settings) whose parameter sets differ puts its own in band before its
    ///   first picture.
    public var parameterSetCarriage: ParameterSetCarriage {
        ParameterSetCarriage(inBand: outputFormat == .annexB || repeatParameterSets)
    }
}
