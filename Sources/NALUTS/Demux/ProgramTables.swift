/// A program association section (ISO/IEC 13818-1 2.4.4.3, Table 2-30): program numbers and
/// the PIDs of their program map tables.
public struct ProgramAssociationTable: Sendable, Hashable {
    /// `(program_number, program_map_PID)`; program 0 (the network PID) is left out.
    public var programs: [(number: UInt16, pid: UInt16)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.programs.map(\.number) == rhs.programs.map(\.number) && lhs.programs.map(\.pid) == rhs.programs.map(\.pid)
    }
    public func hash(into hasher: inout Hasher) { for program in programs { hasher.combine(program.number); hasher.combine(program.pid) } }

    /// Parses a whole section (CRC already checked). `nil` for a section that is not yet
    /// applicable (`current_next_indicator` 0).
    /// - Throws: ``PSIError`` naming the field.
    public init?(section: UnsafeRawBufferPointer) throws(PSIError) {
        try PSIError.check(section, tableID: 0x00, name: "program_association_section")
        guard section[5] & 1 == 1 else { return nil }
        let end = section.count - 4
        guard (end - 8) % 4 == 0 else { throw PSIError(field: "section_length", detail: "\(section.count - 3): the program loop is not whole 4-byte entries") }
        programs = []
        var index = 8
        while index + 4 <= end {
            let number = UInt16(section[index]) << 8 | UInt16(section[index + 1])
            let pid = UInt16(section[index + 2] & 0x1F) << 8 | UInt16(section[index + 3])
            if number != 0 { programs.append((number, pid)) }
            index += 4
        }
    }
}

/// One elementary stream of a program map section (Table 2-33's loop).
public struct ProgramElement: Sendable, Hashable, CustomStringConvertible {
    /// `stream_type` (Table 2-34).
    public var streamType: UInt8
    /// `elementary_PID`.
    public var pid: UInt16
    /// The `ISO_639_language` code of its ISO_639_language_descriptor (2.6.18), when it has one.
    public var language: String?
    /// Whether its ES_info says AC-3: a DVB AC-3_descriptor (ETSI EN 300 468 D.3, tag 0x6A) or a
    /// registration_descriptor (2.6.8) with format_identifier "AC-3" (ATSC A/52 Annex A): with
    /// `stream_type` 0x06, an AC-3 stream.
    public var hasAC3Descriptor = false

    public init(streamType: UInt8, pid: UInt16, language: String? = nil, hasAC3Descriptor: Bool = false) {
        self.streamType = streamType
        self.pid = pid
        self.language = language
        self.hasAC3Descriptor = hasAC3Descriptor
    }

    /// Reads the language and AC-3 descriptors of an ES_info loop (2.6: `descriptor_tag`,
    /// `descriptor_length`, its bytes); a descriptor whose length runs past the loop ends it.
    mutating func read(descriptors info: UnsafeRawBufferPointer) {
        var index = 0
        while index + 2 <= info.count {
            let tag = info[index]
            let length = Int(info[index + 1])
            let body = index + 2
            guard body + length <= info.count else { return }
            if tag == 0x0A, length >= 4, language == nil {
                // ISO_639_language_code: three 8-bit ISO 8859-1 characters, audio_type.
                let code = (0..<3).map { info[body + $0] }
                if code.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) {
                    language = String(decoding: code.map { $0 | 0x20 }, as: UTF8.self)
                }
            } else if tag == 0x6A || (tag == 0x05 && length >= 4 && (0..<4).map({ info[body + $0] }) == Array("AC-3".utf8)) {
                hasAC3Descriptor = true
            }
            index = body + length
        }
    }

    /// Whether nalu reads this stream: H.264 (0x1B) or H.265 (0x24).
    public var isReadableVideo: Bool {
        streamType == TransportStreamType.h264.rawValue || streamType == TransportStreamType.hevc.rawValue
    }

    /// "PID 0x101 (stream_type 0x0F, AAC audio, eng)".
    public var description: String {
        let name = streamType == 0x06 && hasAC3Descriptor ? "AC-3 audio" : Self.name(streamType)
        return "PID 0x" + String(pid, radix: 16) + " (stream_type 0x" + hex(streamType) + (name.map { ", " + $0 } ?? "")
            + (language.map { ", " + $0 } ?? "") + ")"
    }

    /// A short name for common `stream_type` values (Table 2-34, and ATSC A/52 for AC-3/E-AC-3).
    public static func name(_ streamType: UInt8) -> String? {
        switch streamType {
        case 0x01: "MPEG-1 video"
        case 0x02: "MPEG-2 video"
        case 0x03: "MPEG-1 audio"
        case 0x04: "MPEG-2 audio"
        case 0x05: "private sections"
        case 0x06: "private PES"
        case 0x0F: "AAC audio"
        case 0x10: "MPEG-4 video"
        case 0x11: "AAC LATM audio"
        case 0x15: "metadata"
        case 0x1B: "H.264 video"
        case 0x24: "H.265 video"
        case 0x81: "AC-3 audio"
        case 0x87: "E-AC-3 audio"
        default: nil
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

/// A program map section (ISO/IEC 13818-1 2.4.4.8, Table 2-33): the PIDs and types of a
/// program's elementary streams.
public struct ProgramMapTable: Sendable, Hashable {
    /// `program_number`.
    public var programNumber: UInt16
    /// `PCR_PID`.
    public var pcrPID: UInt16
    /// The elementary streams in section order.
    public var elements: [ProgramElement]

    /// Parses a whole section (CRC already checked); `nil` when `current_next_indicator` is 0.
    /// - Throws: ``PSIError`` naming the field whose length runs past the section.
    public init?(section: UnsafeRawBufferPointer) throws(PSIError) {
        try PSIError.check(section, tableID: 0x02, name: "TS_program_map_section")
        guard section[5] & 1 == 1 else { return nil }
        let end = section.count - 4
        guard end >= 12 else { throw PSIError(field: "section_length", detail: "\(section.count - 3): shorter than the PMT's fixed fields") }
        programNumber = UInt16(section[3]) << 8 | UInt16(section[4])
        pcrPID = UInt16(section[8] & 0x1F) << 8 | UInt16(section[9])
        let programInfoLength = Int(section[10] & 0x0F) << 8 | Int(section[11])
        var index = 12 + programInfoLength
        guard index <= end else { throw PSIError(field: "program_info_length", detail: "\(programInfoLength) past the section's end") }
        elements = []
        while index < end {
            guard index + 5 <= end else { throw PSIError(field: "stream_type", detail: "an elementary stream entry cut by the section's end") }
            let type = section[index]
            let pid = UInt16(section[index + 1] & 0x1F) << 8 | UInt16(section[index + 2])
            let infoLength = Int(section[index + 3] & 0x0F) << 8 | Int(section[index + 4])
            let info = index + 5
            index = info + infoLength
            guard index <= end else { throw PSIError(field: "ES_info_length", detail: "\(infoLength) past the section's end") }
            var element = ProgramElement(streamType: type, pid: pid)
            element.read(descriptors: UnsafeRawBufferPointer(rebasing: section[info..<index]))
            elements.append(element)
        }
    }
}

/// A PAT or PMT section that does not parse.
public struct PSIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The syntax element.
    public var field: String
    public var detail: String

    public var description: String { "\(field): \(detail)" }

    /// The common header of a long-form section: `table_id`, `section_syntax_indicator`, and room
    /// for the 8 header bytes and the CRC.
    static func check(_ section: UnsafeRawBufferPointer, tableID: UInt8, name: String) throws(PSIError) {
        guard section.count >= 12 else { throw PSIError(field: "section_length", detail: "\(max(0, section.count - 3)): too short for \(name)") }
        guard section[0] == tableID else { throw PSIError(field: "table_id", detail: "\(section[0]), not \(tableID) (\(name))") }
        guard section[1] & 0x80 != 0 else { throw PSIError(field: "section_syntax_indicator", detail: "0 in \(name)") }
        guard section.count - 3 <= 1021 else { throw PSIError(field: "section_length", detail: "\(section.count - 3): over 1021 in \(name)") }
    }
}

extension ProgramElement {
    /// Whether the stream type is audio (ISO/IEC 13818-1 Table 2-34: MPEG-1/2 audio, AAC in
    /// ADTS or LATM, AC-3, E-AC-3).
    public var isAudio: Bool { [0x03, 0x04, 0x0F, 0x11, 0x81, 0x87].contains(streamType) || isAC3 }

    /// Whether it is AC-3: stream_type 0x81 (ATSC A/52 Annex A), or 0x06 with an AC-3_descriptor (DVB).
    public var isAC3: Bool { streamType == 0x81 || (streamType == 0x06 && hasAC3Descriptor) }
}
