/// The program specific information of a one-program transport stream (ISO/IEC 13818-1 2.4.4):
/// a program association section (2.4.4.3) naming the program map PID, and a program map
/// section (2.4.4.8) listing the elementary streams, each ending with its CRC-32/MPEG-2
/// (``MPEG2CRC32``).
public enum ProgramSpecificInformation {
    /// One elementary stream of the program map.
    public struct Stream: Sendable, Hashable {
        public var streamType: TransportStreamType
        public var pid: UInt16
        /// The ES_info descriptors (2.6), each with its tag and length.
        public var descriptors: [UInt8]

        public init(streamType: TransportStreamType, pid: UInt16, descriptors: [UInt8] = []) {
            self.streamType = streamType
            self.pid = pid
            self.descriptors = descriptors
        }
    }

    /// `table_id` of a program association section (Table 2-31).
    public static let programAssociationTableID: UInt8 = 0x00
    /// `table_id` of a program map section (Table 2-31).
    public static let programMapTableID: UInt8 = 0x02

    /// A `program_association_section` with one program (2.4.4.3), CRC included.
    public static func programAssociationSection(transportStreamID: UInt16, programNumber: UInt16, programMapPID: UInt16) -> [UInt8] {
        var body: [UInt8] = []
        append16(programNumber, to: &body)
        append16(0xE000 | programMapPID & 0x1FFF, to: &body)  // '111' reserved, program_map_PID
        return section(tableID: programAssociationTableID, tableIDExtension: transportStreamID, body: body)
    }

    /// A `TS_program_map_section` (2.4.4.8), no program descriptors, each stream's ES_info
    /// descriptors (at most 1023 bytes, 2.4.4.9; more are left out), CRC included.
    public static func programMapSection(programNumber: UInt16, pcrPID: UInt16, streams: [Stream]) -> [UInt8] {
        var body: [UInt8] = []
        append16(0xE000 | pcrPID & 0x1FFF, to: &body)  // '111' reserved, PCR_PID
        append16(0xF000, to: &body)  // '1111' reserved, program_info_length 0
        for stream in streams {
            body.append(stream.streamType.rawValue)
            append16(0xE000 | stream.pid & 0x1FFF, to: &body)  // '111', elementary_PID
            let info = stream.descriptors.count <= 0x3FF ? stream.descriptors : []
            append16(0xF000 | UInt16(info.count), to: &body)  // '1111', ES_info_length
            body += info
        }
        return section(tableID: programMapTableID, tableIDExtension: programNumber, body: body)
    }

    /// A long-form section (2.4.4.10 syntax): `table_id`, `section_syntax_indicator` 1,
    /// `section_length`, the table id extension, `version_number` 0, `current_next_indicator`
    /// 1, section 0 of 0, `body`, `CRC_32`.
    static func section(tableID: UInt8, tableIDExtension: UInt16, body: [UInt8]) -> [UInt8] {
        let sectionLength = 5 + body.count + 4
        var bytes: [UInt8] = [tableID]
        append16(0xB000 | UInt16(sectionLength), to: &bytes)  // '1' syntax, '0', '11' reserved, length
        append16(tableIDExtension, to: &bytes)
        bytes.append(0xC1)  // '11' reserved, version_number 0, current_next_indicator 1
        bytes.append(0x00)  // section_number
        bytes.append(0x00)  // last_section_number
        bytes.append(contentsOf: body)
        let crc = MPEG2CRC32.checksum(bytes)
        bytes.append(UInt8(crc >> 24))
        bytes.append(UInt8((crc >> 16) & 0xFF))
        bytes.append(UInt8((crc >> 8) & 0xFF))
        bytes.append(UInt8(crc & 0xFF))
        return bytes
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }
}
