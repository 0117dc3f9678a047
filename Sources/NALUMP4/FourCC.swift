/// A four-character code: an ISO BMFF box type, brand, handler type or sample entry format
/// (ISO/IEC 14496-12 4.2: `unsigned int(32) type`), kept as its big-endian 32-bit value.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The four bytes as a big-endian integer.
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of four ASCII characters; other lengths are padded with spaces or cut.
    public init(_ text: String) {
        var value: UInt32 = 0
        var count = 0
        for byte in text.utf8.prefix(4) {
            value = value << 8 | UInt32(byte)
            count += 1
        }
        while count < 4 {
            value = value << 8 | 0x20
            count += 1
        }
        rawValue = value
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The four bytes, first character first.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    /// The characters; bytes outside printable ASCII are shown as `\xNN`.
    public var description: String {
        bytes.map { byte in
            (0x20...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
        }.joined()
    }
}

extension FourCC {
    static let ftyp: FourCC = "ftyp"
    static let moov: FourCC = "moov"
    static let mvhd: FourCC = "mvhd"
    static let trak: FourCC = "trak"
    static let tkhd: FourCC = "tkhd"
    static let edts: FourCC = "edts"
    static let elst: FourCC = "elst"
    static let mdia: FourCC = "mdia"
    static let mdhd: FourCC = "mdhd"
    static let hdlr: FourCC = "hdlr"
    static let minf: FourCC = "minf"
    static let vmhd: FourCC = "vmhd"
    static let dinf: FourCC = "dinf"
    static let dref: FourCC = "dref"
    static let stbl: FourCC = "stbl"
    static let stsd: FourCC = "stsd"
    static let stts: FourCC = "stts"
    static let ctts: FourCC = "ctts"
    static let stss: FourCC = "stss"
    static let stsc: FourCC = "stsc"
    static let stsz: FourCC = "stsz"
    static let stz2: FourCC = "stz2"
    static let stco: FourCC = "stco"
    static let co64: FourCC = "co64"
    static let mvex: FourCC = "mvex"
    static let mehd: FourCC = "mehd"
    static let trex: FourCC = "trex"
    static let moof: FourCC = "moof"
    static let mfhd: FourCC = "mfhd"
    static let traf: FourCC = "traf"
    static let tfhd: FourCC = "tfhd"
    static let tfdt: FourCC = "tfdt"
    static let trun: FourCC = "trun"
    static let mdat: FourCC = "mdat"
    static let free: FourCC = "free"
    static let uuid: FourCC = "uuid"
    static let vide: FourCC = "vide"
    static let avcC: FourCC = "avcC"
    static let hvcC: FourCC = "hvcC"
    static let avc1: FourCC = "avc1"
    static let avc3: FourCC = "avc3"
    static let hvc1: FourCC = "hvc1"
    static let hev1: FourCC = "hev1"
    static let quickTime: FourCC = "qt  "
}
