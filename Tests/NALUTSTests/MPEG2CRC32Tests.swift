import Testing
import NALUTS

@Suite("CRC-32/MPEG-2")
struct MPEG2CRC32Tests {
    /// The catalogued check value of CRC-32/MPEG-2 over the ASCII digits "123456789".
    @Test func checkValue() {
        #expect(MPEG2CRC32.checksum(Array("123456789".utf8)) == 0x0376_E6E7)
    }

    /// A PAT written by ffmpeg (program 1 → PMT PID 0x1000): its CRC_32 field makes the section check to 0.
    @Test func ffmpegProgramAssociationSectionChecksToZero() {
        let section: [UInt8] = [0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0x2A, 0xB1, 0x04, 0xB2]
        #expect(MPEG2CRC32.checksum(section) == 0)
        #expect(MPEG2CRC32.checksum(section.dropLast(4)) == 0x2AB1_04B2)
    }
}
