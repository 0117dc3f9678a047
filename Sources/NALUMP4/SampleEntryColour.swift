import NALU

/// A sample entry's `colr` box (ISO/IEC 14496-12 12.1.5 ColourInformationBox): the colour code
/// points (ITU-T H.273) a container declares, which players may prefer over the VUI.
public struct MP4ColourInformation: Hashable, Sendable {
    /// `colour_type`: `nclx` (ISO), `nclc` (QuickTime, no range flag), or an ICC profile
    /// (`rICC`, `prof`), whose code points are then `nil`.
    public var colourType: String
    public var colourPrimaries: Int?
    public var transferCharacteristics: Int?
    public var matrixCoefficients: Int?
    /// `full_range_flag` (`nclx` only).
    public var fullRange: Bool?

    public init(colourType: String, colourPrimaries: Int? = nil, transferCharacteristics: Int? = nil,
                matrixCoefficients: Int? = nil, fullRange: Bool? = nil) {
        self.colourType = colourType
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// Parses a `colr` payload (at most 64 bytes are read: an ICC profile is not kept).
    init(_ reader: inout MP4BoxPayloadReader) throws(NALUError) {
        let type = try reader.fourCC("colour_type")
        colourType = "\(type)"
        guard colourType == "nclx" || colourType == "nclc" else { return }
        colourPrimaries = Int(try reader.u16("colour_primaries"))
        transferCharacteristics = Int(try reader.u16("transfer_characteristics"))
        matrixCoefficients = Int(try reader.u16("matrix_coefficients"))
        if colourType == "nclx" { fullRange = try reader.u8("full_range_flag") & 0x80 != 0 }
    }
}

/// A sample entry's `pasp` box (ISO/IEC 14496-12 12.1.4 PixelAspectRatioBox):
/// `hSpacing:vSpacing`, the pixel (sample) aspect ratio.
public struct MP4PixelAspectRatio: Hashable, Sendable {
    public var hSpacing: UInt32
    public var vSpacing: UInt32

    public init(hSpacing: UInt32, vSpacing: UInt32) {
        self.hSpacing = hSpacing
        self.vSpacing = vSpacing
    }

    init(_ reader: inout MP4BoxPayloadReader) throws(NALUError) {
        hSpacing = try reader.u32("hSpacing")
        vSpacing = try reader.u32("vSpacing")
    }
}

extension MP4SampleDescription {
    /// Reads the `colr` and `pasp` boxes among a VisualSampleEntry's child boxes (at most 64
    /// bytes each). They are advisory: a malformed or oversized one is left out (`nil`) rather
    /// than making the file unreadable, since the VUI still describes the stream.
    mutating func readColourBoxes(_ boxes: [MP4BoxHeader], in source: some RandomAccessByteSource) {
        if let box = boxes.first(where: { $0.type == FourCC("colr") }) {
            let limited = MP4BoxHeader(type: box.type, offset: box.offset, size: min(box.size, Int64(box.headerSize) + 64),
                                       headerSize: box.headerSize)
            if var reader = try? MP4BoxPayloadReader(limited, in: source, limit: 64) {
                colour = try? MP4ColourInformation(&reader)
            }
        }
        if let box = boxes.first(where: { $0.type == FourCC("pasp") }),
           var reader = try? MP4BoxPayloadReader(box, in: source, limit: 64) {
            pixelAspectRatio = try? MP4PixelAspectRatio(&reader)
        }
    }
}
