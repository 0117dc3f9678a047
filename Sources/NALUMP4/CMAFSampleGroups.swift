extension CMAFBoxes {
    /// The boxes that put a fragment's first sample in a `rap ` (random access point) sample
    /// group (ISO/IEC 14496-12 10.4.2; ISO/IEC 14496-15 for HEVC open GOP, a CRA picture followed
    /// by RASL pictures): `sbgp` (8.9.2, version 0) mapping that one sample to the fragment's
    /// first group description (index 0x10001: 65536 + 1, a description of this `traf`), and
    /// `sgpd` (8.9.3, version 1, `default_length` 1) with one `VisualRandomAccessEntry`:
    /// `num_leading_samples_known` 1, `num_leading_samples` (7 bits; more than 127 is written
    /// as unknown).
    public static func randomAccessGroup(leadingSamples: Int) -> [UInt8] {
        var builder = BoxBuilder(capacity: 64)
        builder.fullBox("sbgp") { box in
            box.fourCC("rap ")
            box.u32(1)
            box.u32(1)
            box.u32(0x1_0001)
        }
        builder.fullBox("sgpd", version: 1) { box in
            box.fourCC("rap ")
            box.u32(1)  // default_length
            box.u32(1)  // entry_count
            box.u8(leadingSamples >= 0 && leadingSamples <= 127 ? 0x80 | UInt8(leadingSamples) : 0)
        }
        return builder.bytes
    }

    /// Appends `boxes` at the end of the `moof`'s last box (its `traf`: `mfhd` is 16 bytes, the
    /// `traf` follows), growing both sizes.
    static func appendToTrackFragment(_ moof: inout [UInt8], _ boxes: [UInt8]) {
        let trackFragment = 8 + 16
        guard moof.count >= trackFragment + 8 else { return }
        func grow(at position: Int) {
            let size = UInt32(moof[position]) << 24 | UInt32(moof[position + 1]) << 16 | UInt32(moof[position + 2]) << 8
                | UInt32(moof[position + 3])
            let grown = size &+ UInt32(boxes.count)
            moof[position] = UInt8(grown >> 24)
            moof[position + 1] = UInt8((grown >> 16) & 0xFF)
            moof[position + 2] = UInt8((grown >> 8) & 0xFF)
            moof[position + 3] = UInt8(grown & 0xFF)
        }
        grow(at: 0)
        grow(at: trackFragment)
        moof += boxes
    }
}
