/// CRC-32/MPEG-2, the checksum that ends every PSI section (ISO/IEC 13818-1 Annex A,
/// `CRC_32` in 2.4.4.10): polynomial 0x04C11DB7, initial value 0xFFFFFFFF, no reflection,
/// no final XOR. A section with its own CRC appended checks to 0.
public enum MPEG2CRC32 {
    /// The CRC of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    /// The CRC of `bytes`, continuing from `crc` (pass `0xFFFF_FFFF` to start).
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 {
            value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1
        }
        return value
    }
}
