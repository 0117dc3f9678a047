import NALU

extension RTPVideoDescription {
    /// This description with the decoding order parameters of a stream packetized with `options`:
    /// H.265 `sprop-max-don-diff` when DONL is written; H.264 interleaved mode
    /// `sprop-interleaving-depth` (the packets go in decoding order: the depth is the window a
    /// network may reorder them in, `sprop-max-don-diff`, 0 when not given), with
    /// `sprop-max-don-diff` when above 0, and `sprop-deint-buf-req` 0 when nothing is interleaved
    /// (RFC 6184 8.1 asks for it in mode 2; for a depth above 0 the bytes are not known before the
    /// stream is sent, and it is left out).
    public func withDecodingOrder(of options: RTPPacketizerOptions) -> RTPVideoDescription {
        var description = self
        switch codec {
        case .hevc:
            description.maxDonDiff = options.maxDonDiff
        case .h264 where options.packetizationMode == .interleaved:
            description.maxDonDiff = options.maxDonDiff
            description.deinterleavingUnits = options.maxDonDiff
            if options.maxDonDiff == 0 { description.deinterleavingBytes = 0 }
        case .h264:
            break
        }
        return description
    }
}
