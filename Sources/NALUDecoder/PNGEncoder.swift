/// Writes an ``RGBImage`` as a PNG file (W3C Portable Network Graphics (PNG) Specification, 3rd
/// edition; ISO/IEC 15948): the signature (5.2), `IHDR` (11.2.1: 8-bit truecolour, colour type 2,
/// no interlace), one `IDAT` (11.2.4) holding the rows, each led by filter type 0 (9.2), in a
/// zlib stream (RFC 1950) of DEFLATE stored blocks (RFC 1951 3.2.4: no compression, so the
/// encoder is a few lines and exact), and `IEND` (11.2.5). Every chunk ends with its CRC-32
/// (5.3, Annex D); the zlib stream with the Adler-32 of the rows (RFC 1950 8.2).
public enum PNGEncoder {
    /// The PNG file of `image`.
    public static func encode(_ image: RGBImage) -> [UInt8] {
        let rowBytes = image.width * 3
        // The filtered rows (9.2): a filter-type byte before each row.
        var raw = [UInt8]()
        raw.reserveCapacity((rowBytes + 1) * image.height)
        for row in 0..<image.height {
            raw.append(0)
            raw.append(contentsOf: image.pixels[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        appendBigEndian(UInt32(image.width), to: &header)
        appendBigEndian(UInt32(image.height), to: &header)
        header += [8, 2, 0, 0, 0]  // bit depth, colour type (truecolour), compression, filter, interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(raw), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// `data` as a zlib stream (RFC 1950 2.2) of stored DEFLATE blocks (RFC 1951 3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        // CMF: method 8 (deflate), window 2^15; FLG: no dictionary, level 0, FCHECK so that
        // CMF·256 + FLG is a multiple of 31.
        var out: [UInt8] = [0x78, 0x01]
        let blockSize = 65_535
        var start = 0
        repeat {
            let end = min(start + blockSize, data.count)
            let length = end - start
            out.append(end == data.count ? 1 : 0)  // BFINAL, BTYPE 00 (stored)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out.append(contentsOf: data[start..<end])
            start = end
        } while start < data.count
        appendBigEndian(adler32(data), to: &out)
        return out
    }

    /// Adler-32 of `data` (RFC 1950 8.2).
    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5552 bytes is the most before the sums may pass 2³² (RFC 1950's NMAX).
            let end = min(index + 5552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }

    /// The CRC-32 table of PNG Annex D (polynomial 0xEDB88320, reflected).
    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 of `bytes` (PNG 5.3, Annex D).
    static func crc32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// A chunk (5.3): length, type, data, CRC of type and data.
    static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &png)
        let typed = Array(type.utf8) + data
        png += typed
        appendBigEndian(crc32(typed), to: &png)
    }

    static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

extension RGBImage {
    /// The image as a PNG file (``PNGEncoder``).
    public var pngData: [UInt8] { PNGEncoder.encode(self) }
}
