import Foundation
import Testing
import NALU
import NALUTS

/// The multiplexer's pieces against bytes FFmpeg writes (its `mpegts` muxer, its ADTS muxer).
@Suite("MPEG-TS mux")
struct TransportStreamMuxTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// PAT and PMT of a one-program stream with H.264 on PID 0x100: the sections FFmpeg writes
    /// (`ffmpeg -i mp4_avc_bframes.mp4 -c copy -f mpegts`), CRC included.
    @Test func programTablesMatchFFmpeg() {
        let pat = ProgramSpecificInformation.programAssociationSection(transportStreamID: 1, programNumber: 1, programMapPID: 0x1000)
        #expect(pat == [0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00, 0x2A, 0xB1, 0x04, 0xB2])
        let pmt = ProgramSpecificInformation.programMapSection(programNumber: 1, pcrPID: 0x100, streams: [.init(streamType: .h264, pid: 0x100)])
        let ffmpegPMT: [UInt8] = [0x02, 0xB0, 0x12, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00, 0x1B, 0xE1, 0x00, 0xF0, 0x00,
                                  0x15, 0xBD, 0x4D, 0x56]
        #expect(pmt == ffmpegPMT)
        #expect(MPEG2CRC32.checksum(pmt) == 0)
        // HEVC and AAC entries: stream types 0x24 and 0x0F; the section still checks to 0.
        let both = ProgramSpecificInformation.programMapSection(programNumber: 1, pcrPID: 0x100,
                                                                streams: [.init(streamType: .hevc, pid: 0x100), .init(streamType: .adtsAAC, pid: 0x101)])
        #expect(both.count == 12 + 5 + 5 + 4)
        #expect(Array(both[12..<22]) == [0x24, 0xE1, 0x00, 0xF0, 0x00, 0x0F, 0xE1, 0x01, 0xF0, 0x00])
        #expect(MPEG2CRC32.checksum(both) == 0)
    }

    /// PTS 132000 and DTS 126000 encode as FFmpeg's first PES header of the same stream has them
    /// (`31 00 09 07 41`, `11 00 07 D8 61`); PTS alone takes the `'0010'` prefix.
    @Test func pesHeaderTimestamps() {
        var header: [UInt8] = []
        PESHeader.append(to: &header, streamID: PESHeader.videoStreamID, pts: 132_000, dts: 126_000, payloadLength: 100_000)
        #expect(header == [0x00, 0x00, 0x01, 0xE0, 0x00, 0x00, 0x84, 0xC0, 0x0A, 0x31, 0x00, 0x09, 0x07, 0x41, 0x11, 0x00, 0x07, 0xD8, 0x61])
        header.removeAll()
        PESHeader.append(to: &header, streamID: PESHeader.audioStreamID, pts: 132_000, dts: 132_000, payloadLength: 100)
        #expect(header == [0x00, 0x00, 0x01, 0xC0, 0x00, 0x6C, 0x84, 0x80, 0x05, 0x21, 0x00, 0x09, 0x07, 0x41])
        // 33 bits: 2^33 + 1 is written as 1; the largest value is all ones between the markers.
        header.removeAll()
        PESHeader.append(to: &header, streamID: 0xE0, pts: (1 << 33) + 1, dts: nil, payloadLength: 0)
        #expect(Array(header.suffix(5)) == [0x21, 0x00, 0x01, 0x00, 0x03])
        header.removeAll()
        PESHeader.append(to: &header, streamID: 0xE0, pts: (1 << 33) - 1, dts: nil, payloadLength: 0)
        #expect(Array(header.suffix(5)) == [0x2F, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    /// Every packet is 188 bytes; a payload short of a full packet is padded with
    /// adaptation-field stuffing: one byte of it is `adaptation_field_length` 0, more is a
    /// flags byte and 0xFF; the PES comes back whole.
    @Test(arguments: [1, 156, 157, 158, 340, 341, 524, 5000, 65_522, 65_523])
    func stuffingGivesWholePackets(payloadLength: Int) throws {
        let writer = try TransportStreamWriter(sink: MemorySink(), configuration: .init(videoStreamType: .h264))
        let payload = (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        try payload.withUnsafeBytes { try writer.writeVideo($0, pts: 130_000, dts: 127_000, randomAccess: true) }
        let summary = try writer.finish()
        let bytes = writer.sink.bytes
        #expect(bytes.count == Int(summary.packets) * 188)
        let packets = stride(from: 0, to: bytes.count, by: 188).map { Array(bytes[$0..<($0 + 188)]) }
        #expect(packets.allSatisfy { $0[0] == 0x47 })
        // PAT, PMT, then the PES: 157 bytes in the first packet (8 of adaptation field, 19 of
        // PES header), 184 in each other.
        let expectedPES = payloadLength <= 157 ? 1 : 1 + (payloadLength - 157 + 183) / 184
        #expect(packets.count == 2 + expectedPES)
        var pes: [UInt8] = []
        for (index, packet) in packets.dropFirst(2).enumerated() {
            let pid = UInt16(packet[1] & 0x1F) << 8 | UInt16(packet[2])
            #expect(pid == 0x100)
            #expect(packet[3] & 0x0F == UInt8(index & 0x0F))
            let control = packet[3] >> 4 & 0x03
            var start = 4
            if control & 0x02 != 0 {
                let length = Int(packet[4])
                if index == 0 {
                    #expect(packet[5] == 0x70)  // random_access, ES priority, PCR_flag
                    #expect(length >= 7)
                } else if length > 0 {
                    #expect(packet[5] == 0x00)
                }
                #expect(packet[(4 + 1 + min(length, index == 0 ? 7 : 1))..<(5 + length)].allSatisfy { $0 == 0xFF })
                start = 5 + length
            }
            pes += packet[start...]
        }
        if payloadLength == 340 {
            // 183 bytes left for the second packet: a one-byte adaptation field.
            #expect(packets[3][3] >> 4 == 0x3)
            #expect(packets[3][4] == 0)
        }
        // PES_packet_length: 3 bytes of flags, 10 of PTS and DTS, the payload; 0 past 65535.
        let length = payloadLength + 13 <= 0xFFFF ? payloadLength + 13 : 0
        let expectedHeader: [UInt8] = [0x00, 0x00, 0x01, 0xE0, UInt8(length >> 8), UInt8(length & 0xFF), 0x84, 0xC0, 0x0A]
        if payloadLength == 65_522 { #expect(expectedHeader[4...5] == [0xFF, 0xFF]) }
        if payloadLength == 65_523 { #expect(expectedHeader[4...5] == [0x00, 0x00]) }
        #expect(Array(pes.prefix(9)) == expectedHeader)
        #expect(Array(pes.dropFirst(19)) == payload)
    }

    /// ADTS headers written from the AudioSpecificConfig equal FFmpeg's, frame by frame, for
    /// FFmpeg's own AAC-LC stream (Tests/Fixtures/aac_lc_stereo.adts).
    @Test func adtsHeadersMatchFFmpeg() throws {
        let frames = try Self.adtsFrames()
        #expect(frames.count == 23)  // ffprobe -count_packets: 23
        let first = try #require(frames.first)
        // profile_ObjectType 1 (LC), sampling_frequency_index 4 (44.1 kHz), channel_configuration 2.
        let objectType = Int(first.header[2] >> 6) + 1
        let frequencyIndex = Int(first.header[2] >> 2 & 0x0F)
        let channels = Int((first.header[2] & 0x01) << 2 | first.header[3] >> 6)
        #expect(objectType == 2 && frequencyIndex == 4 && channels == 2)
        let config = [UInt8(objectType << 3 | frequencyIndex >> 1), UInt8((frequencyIndex & 1) << 7 | channels << 3)]
        #expect(config == [0x12, 0x10])
        let adts = try ADTSHeader(audioSpecificConfig: config)
        #expect(adts.samplingFrequency == 44_100)
        for frame in frames {
            var header: [UInt8] = []
            try adts.append(rawFrameLength: frame.raw.count, to: &header)
            #expect(header == frame.header)
        }
    }

    @Test func adtsRefusesWhatItCannotSay() {
        // HE-AAC (object type 5), an explicit frequency (index 15), a program config element (channels 0).
        #expect(throws: NALUError.self) { try ADTSHeader(audioSpecificConfig: [0x2B, 0x92, 0x08, 0x00]) }
        #expect(throws: NALUError.self) { try ADTSHeader(audioSpecificConfig: [0x17, 0x80]) }
        #expect(throws: NALUError.self) { try ADTSHeader(audioSpecificConfig: [0x12, 0x00]) }
        #expect(throws: NALUError.self) { try ADTSHeader(audioSpecificConfig: [0x12]) }
        let adts = try? ADTSHeader(audioSpecificConfig: [0x12, 0x10])
        var header: [UInt8] = []
        #expect(throws: NALUError.self) { try adts?.append(rawFrameLength: 8185, to: &header) }
    }

    /// The frames of the ADTS fixture: each header (7 bytes, no CRC) and raw frame.
    static func adtsFrames() throws -> [(header: [UInt8], raw: [UInt8])] {
        let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("aac_lc_stereo.adts")))
        var frames: [(header: [UInt8], raw: [UInt8])] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            #expect(bytes[offset] == 0xFF && bytes[offset + 1] == 0xF1)
            let length = Int(bytes[offset + 3] & 0x03) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
            guard length >= 7, offset + length <= bytes.count else { break }
            frames.append((Array(bytes[offset..<(offset + 7)]), Array(bytes[(offset + 7)..<(offset + length)])))
            offset += length
        }
        #expect(offset == bytes.count)
        return frames
    }
}
