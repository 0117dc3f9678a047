/// Demultiplexes one video elementary stream from transport packets (ISO/IEC 13818-1 2.4.3),
/// one packet at a time, in place: the PAT (2.4.4.3) names the program map PIDs, the first PMT
/// (2.4.4.8) with an H.264 (`stream_type` 0x1B) or H.265 (0x24) stream — or the one with the
/// requested PID — picks the PID, and each packet of that PID yields the range of its bytes
/// that are PES payload (2.4.3.6): the elementary stream is their concatenation.
///
/// Damage is counted and reported through ``onWarning``, never thrown: `continuity_counter`
/// gaps, `transport_error_indicator`, adaptation fields or PES headers that run past their
/// bytes, payload with no PES start. Memory is constant: one PSI section per PMT PID being
/// read, one PES header, and the time-stamp queue (``PESTimestampQueue``).
///
/// - **Continuity** (2.4.3.3): only a packet that repeats the previous one of its PID byte for
///   byte (its PCR aside) is a duplicate, and dropped (``TransportStreamCounts/duplicatePackets``).
///   Any other packet whose `continuity_counter` is not the next one is a discontinuity: it is
///   counted and reported, and its payload kept. (Packets of PIDs whose payload is not read are
///   not kept to compare: a repeated counter there is taken for a duplicate.)
/// - **Program changes**: the PMT of the program read is followed after the video was chosen; a
///   new version that moves the video to another PID of the same `stream_type` is followed (the
///   PES packet in progress ends), anything else is reported (``TransportStreamWarning/Kind/programMap``).
/// - **Time stamps** are unwrapped (``PESTimestamps``): each PTS/DTS is taken as the 64-bit value
///   nearest to the previous decoding time that is congruent to it modulo 2^33, so a clock that
///   passes 2^33 (26.5 h at 90 kHz) gives increasing times.
public struct TransportStreamDemuxer {
    /// The PID asked for, if any (`--pid`).
    public let requestedPID: UInt16?
    /// The video stream read, once a PMT has named it.
    public private(set) var video: ProgramElement?
    /// The program map table of the program read.
    public private(set) var program: ProgramMapTable?
    /// Why ``requestedPID`` cannot be read (it is in a PMT, but not H.264/H.265).
    public private(set) var requestedPIDProblem: String?
    /// Every elementary stream of the PMTs parsed before the video was chosen.
    public private(set) var streamsSeen: [ProgramElement] = []
    /// The programs the PAT lists (`program_number`, `program_map_PID`; at most 64, the network
    /// PID left out): the one read and the others, which a reader of one program leaves out.
    public private(set) var programsListed: [(number: UInt16, pid: UInt16)] = []
    /// The program map tables of the programs not read, as first parsed (at most 64): what
    /// `nalu info` lists of every program (issue 41 item 16). After the video is chosen, each
    /// other PMT PID is read until its table arrives once, then left alone.
    public private(set) var otherProgramTables: [ProgramMapTable] = []
    /// The other programs' PMT PIDs whose table has not come yet.
    private var pendingMapPIDs: Set<UInt16> = []
    public private(set) var counts = TransportStreamCounts()
    /// The first PES packets' time stamps (at most 32), for the frame rate.
    public private(set) var firstTimestamps: [PESTimestamps] = []
    /// Called for every warning, as it happens.
    public var onWarning: ((TransportStreamWarning) -> Void)?
    /// Another PID of the program whose packets are handed to ``onAuxiliaryPacket`` as they come
    /// (a live packager's audio, read in the same pass as the video); `nil`: none.
    public var auxiliaryPID: UInt16?
    /// Called with every packet of ``auxiliaryPID`` that carries payload (the 188 bytes from the
    /// sync byte, and the packet's input offset); duplicates (2.4.3.3) and packets with
    /// `transport_error_indicator` are left out.
    public var onAuxiliaryPacket: ((UnsafeRawBufferPointer, Int64) -> Void)?

    private var continuity = [UInt8](repeating: 0xFF, count: 8192)
    /// The last packet of the video PID (when ``lastVideoPacketValid``) and of each PSI PID read,
    /// to tell a duplicate from a discontinuity.
    private var lastVideoPacket = [UInt8](repeating: 0, count: TransportStream.packetSize)
    private var lastVideoPacketValid = false
    private var lastTablePackets: [UInt16: [UInt8]] = [:]
    /// The PMT PID of the program read, followed after the video was chosen.
    private var programMapPID: UInt16 = 0xFFFF
    /// The last unwrapped decoding time (DTS, else PTS), that the next time stamps are unwrapped near.
    private var timestampReference: Int64?
    private var mapPIDs: [UInt16] = []
    private var sections: [UInt16: PSISectionAssembler] = [:]
    private var videoPID: UInt16 = 0xFFFF
    private var timestamps = PESTimestampQueue()

    private enum PESState { case idle, skipping, header, payload }
    private var state = PESState.idle
    private var header: [UInt8] = []
    private var pesStart: Int64 = 0
    private var pesExpected: Int?
    private var pesReceived = 0

    public init(requestedPID: UInt16? = nil) {
        self.requestedPID = requestedPID
        header.reserveCapacity(PESHeader.maximumLength)
    }

    /// Reads one 188-byte packet (`packet` starts with the sync byte) found at input offset
    /// `offset`; returns the range of `packet` that is video elementary-stream payload (empty
    /// for every other packet).
    public mutating func consume(_ packet: UnsafeRawBufferPointer, at offset: Int64) -> Range<Int> {
        counts.packets += 1
        let parsed: TransportPacket
        switch TransportPacket.parse(packet) {
        case .success(let value): parsed = value
        case .failure(let error):
            if case .adaptationFieldLength(let length) = error.problem {
                let pid = packet.count >= 3 ? UInt16(packet[1] & 0x1F) << 8 | UInt16(packet[2]) : nil
                warn(.adaptationField, pid, offset, "adaptation_field_length \(length) runs past the packet's 188 bytes; packet dropped")
            }
            return 0..<0
        }
        if parsed.transportErrorIndicator {
            warn(.transportError, nil, offset, "transport_error_indicator set; packet dropped")
            return 0..<0
        }
        let pid = parsed.pid
        guard pid != TransportStream.nullPacketPID else { return 0..<0 }
        if parsed.adaptationFieldControl & 1 != 0 {
            let last = continuity[Int(pid)]
            if last != 0xFF && !parsed.discontinuityIndicator {
                let expected = (last &+ 1) & 0x0F
                if parsed.continuityCounter == last {
                    // 2.4.3.3: a duplicate repeats the previous packet byte for byte; it is dropped.
                    if isDuplicate(packet, pid: pid) {
                        counts.duplicatePackets += 1
                        return 0..<0
                    }
                    warn(.continuity, pid, offset, "continuity_counter \(last) repeated by a packet that is no duplicate of the last (expected \(expected)); its payload is kept")
                } else if parsed.continuityCounter != expected {
                    let lost = (Int(parsed.continuityCounter) - Int(expected) + 16) % 16
                    warn(.continuity, pid, offset, "continuity_counter \(parsed.continuityCounter), expected \(expected) (\(lost) packet\(lost == 1 ? "" : "s") lost?)")
                }
            }
            continuity[Int(pid)] = parsed.continuityCounter
            remember(packet, pid: pid)
        }
        guard parsed.hasPayload else { return 0..<0 }
        if pid == videoPID {
            if parsed.scramblingControl != 0 {
                warn(.scrambled, pid, offset, "transport_scrambling_control \(parsed.scramblingControl): scrambled payload dropped")
                state = .skipping
                return 0..<0
            }
            return videoPayload(parsed, packet, at: offset)
        }
        if pid == auxiliaryPID, let onAuxiliaryPacket {
            onAuxiliaryPacket(UnsafeRawBufferPointer(rebasing: packet[0..<TransportStream.packetSize]), offset)
            return 0..<0
        }
        if video == nil || pid == programMapPID || (!pendingMapPIDs.isEmpty && pendingMapPIDs.contains(pid)) {
            readTable(parsed, packet, at: offset)
        }
        return 0..<0
    }

    // MARK: Continuity

    /// Whether `packet` repeats the last packet kept of `pid` byte for byte, the PCR aside
    /// (2.4.3.3: a duplicate's PCR may be a new valid value). A PID whose packets are not kept
    /// (its payload is not read) takes any repeated counter for a duplicate; the video PID
    /// without one (just chosen) takes none.
    private func isDuplicate(_ packet: UnsafeRawBufferPointer, pid: UInt16) -> Bool {
        let pcr = packet[3] & 0x20 != 0 && packet[4] >= 7 && packet[5] & 0x10 != 0 ? 6..<12 : 0..<0
        let same = { (last: UnsafeRawBufferPointer) -> Bool in
            for index in 0..<TransportStream.packetSize where !pcr.contains(index) && last[index] != packet[index] { return false }
            return true
        }
        if pid == videoPID { return lastVideoPacketValid && lastVideoPacket.withUnsafeBytes(same) }
        if let last = lastTablePackets[pid] { return last.withUnsafeBytes(same) }
        return true
    }

    /// Keeps `packet` as the last of `pid` when its payload is read (the video and PSI PIDs).
    private mutating func remember(_ packet: UnsafeRawBufferPointer, pid: UInt16) {
        if pid == videoPID {
            lastVideoPacket.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<TransportStream.packetSize])) }
            lastVideoPacketValid = true
        } else if pid == TransportStream.programAssociationPID || pid == programMapPID || (video == nil && mapPIDs.contains(pid)) {
            lastTablePackets[pid] = Array(packet[0..<TransportStream.packetSize])
        }
    }

    /// Ends the stream at input offset `offset`: checks the last PES packet.
    public mutating func finish(at offset: Int64) { finishPES(at: offset) }

    /// The time stamps that apply to an access unit starting at elementary-stream offset
    /// `offset` (``PESTimestampQueue``); call in stream order.
    public mutating func timestamps(forAccessUnitAt offset: Int64) -> PESTimestamps? {
        timestamps.take(upTo: offset)
    }

    // MARK: PES

    private mutating func videoPayload(_ parsed: TransportPacket, _ packet: UnsafeRawBufferPointer, at offset: Int64) -> Range<Int> {
        var start = parsed.payloadOffset
        let end = TransportStream.packetSize
        if parsed.payloadUnitStart {
            finishPES(at: offset)
            state = .header
            header.removeAll(keepingCapacity: true)
            pesStart = offset
        }
        switch state {
        case .idle:
            warn(.pesWithoutStart, videoPID, offset, "\(end - start) payload bytes with no PES packet started; dropped until the next payload_unit_start_indicator")
            state = .skipping
            return 0..<0
        case .skipping:
            return 0..<0
        case .header:
            let before = header.count
            let take = min(PESHeader.maximumLength - before, end - start)
            header.append(contentsOf: UnsafeRawBufferPointer(rebasing: packet[start..<(start + take)]))
            let outcome = header.withUnsafeBytes { PESHeader.parse($0) }
            switch outcome {
            case .needMore:
                return 0..<0
            case .malformed(let text):
                warn(.malformedPES, videoPID, pesStart, "\(text); PES packet dropped")
                state = .skipping
                return 0..<0
            case .header(let pes):
                guard (0xE0...0xEF).contains(pes.streamID) else {
                    warn(.malformedPES, videoPID, pesStart, "stream_id 0x\(String(pes.streamID, radix: 16)) is no video stream; PES packet dropped")
                    state = .skipping
                    return 0..<0
                }
                start += pes.headerLength - before
                state = .payload
                counts.pesPackets += 1
                pesExpected = pes.packetLength == 0 ? nil : pes.packetLength + 6 - pes.headerLength
                pesReceived = 0
                if pes.presentationTimestamp != nil {
                    let stamps = unwrapped(PESTimestamps(presentation: pes.presentationTimestamp, decoding: pes.decodingTimestamp))
                    timestamps.append(stamps, at: counts.elementaryBytes)
                    if firstTimestamps.count < 32 { firstTimestamps.append(stamps) }
                }
            }
        case .payload:
            break
        }
        pesReceived += end - start
        counts.elementaryBytes += Int64(end - start)
        return start..<end
    }

    private mutating func finishPES(at offset: Int64) {
        switch state {
        case .header:
            warn(.malformedPES, videoPID, pesStart, "PES header cut short (\(header.count) bytes) before the next PES packet")
        case .payload:
            if let expected = pesExpected, expected != pesReceived {
                warn(.pesLength, videoPID, pesStart, "PES_packet_length promises \(expected) payload bytes, \(pesReceived) arrived")
            }
        case .idle, .skipping:
            break
        }
        state = .idle
    }

    /// `stamps` (33-bit) as the 64-bit times nearest to the previous decoding time; the new
    /// decoding time (DTS, else PTS) becomes the reference.
    private mutating func unwrapped(_ stamps: PESTimestamps) -> PESTimestamps {
        guard let reference = timestampReference else {
            timestampReference = stamps.effectiveDecoding
            return stamps
        }
        let result = PESTimestamps(presentation: stamps.presentation.map { Self.unwrap($0, near: reference) },
                                   decoding: stamps.decoding.map { Self.unwrap($0, near: reference) })
        timestampReference = result.effectiveDecoding
        return result
    }

    /// The value congruent to `value` modulo 2^33 nearest to `reference`; `value` itself when
    /// that does not fit 64 bits.
    static func unwrap(_ value: Int64, near reference: Int64) -> Int64 {
        let modulus = TransportStream.timestampModulus
        var step = value - (reference % modulus + modulus) % modulus
        if step > modulus / 2 { step -= modulus } else if step < -modulus / 2 { step += modulus }
        let (result, overflow) = reference.addingReportingOverflow(step)
        return overflow ? value : result
    }

    // MARK: PSI

    private mutating func readTable(_ parsed: TransportPacket, _ packet: UnsafeRawBufferPointer, at offset: Int64) {
        let pid = parsed.pid
        guard pid == TransportStream.programAssociationPID || mapPIDs.contains(pid) else { return }
        let payload = UnsafeRawBufferPointer(rebasing: packet[parsed.payloadOffset...])
        var assembler = sections[pid] ?? PSISectionAssembler()
        var complete: [[UInt8]] = []
        let problem = assembler.push(payload, payloadUnitStart: parsed.payloadUnitStart) { complete.append(Array($0)) }
        sections[pid] = assembler
        switch problem {
        case .pointerField(let value)?: warn(.section, pid, offset, "pointer_field \(value) runs past the packet")
        case .sectionLength(let value)?: warn(.section, pid, offset, "section_length \(value) over \(PSISectionAssembler.maximumSectionLength)")
        case nil: break
        }
        for section in complete {
            guard MPEG2CRC32.checksum(section) == 0 else {
                warn(.section, pid, offset, "CRC_32 mismatch in a section with table_id \(section.first ?? 0); ignored")
                continue
            }
            section.withUnsafeBytes { bytes in
                if pid == TransportStream.programAssociationPID {
                    readAssociation(bytes, at: offset)
                } else if bytes.first == 0x02 {
                    readMap(bytes, pid: pid, at: offset)
                }
            }
        }
    }

    private mutating func readAssociation(_ section: UnsafeRawBufferPointer, at offset: Int64) {
        guard section.first == 0x00 else { return }
        do {
            guard let table = try ProgramAssociationTable(section: section) else { return }
            for program in table.programs where !mapPIDs.contains(program.pid) && mapPIDs.count < 64 {
                mapPIDs.append(program.pid)
                if video != nil, program.pid != programMapPID { pendingMapPIDs.insert(program.pid) }
            }
            for program in table.programs where !programsListed.contains(where: { $0.number == program.number }) && programsListed.count < 64 {
                programsListed.append(program)
            }
        } catch {
            warn(.section, TransportStream.programAssociationPID, offset, "PAT \(error); ignored")
        }
    }

    private mutating func readMap(_ section: UnsafeRawBufferPointer, pid: UInt16, at offset: Int64) {
        let table: ProgramMapTable
        do {
            guard let parsed = try ProgramMapTable(section: section) else { return }
            table = parsed
        } catch {
            warn(.section, pid, offset, "PMT \(error); ignored")
            return
        }
        if let current = video {
            if pid == programMapPID {
                follow(table, from: current, pid: pid, at: offset)
            } else {
                recordOther(table, pid: pid)
            }
            return
        }
        for element in table.elements where !streamsSeen.contains(element) && streamsSeen.count < 256 { streamsSeen.append(element) }
        let chosen: ProgramElement?
        if let requestedPID {
            guard let element = table.elements.first(where: { $0.pid == requestedPID }) else { return }
            guard element.isReadableVideo else {
                requestedPIDProblem = "\(element) is not H.264 (stream_type 0x1B) or H.265 (0x24) video"
                return
            }
            chosen = element
        } else {
            chosen = table.elements.first(where: \.isReadableVideo)
        }
        guard let chosen else {
            recordOther(table, pid: pid)
            return
        }
        video = chosen
        program = table
        videoPID = chosen.pid
        programMapPID = pid
        otherProgramTables.removeAll { $0.programNumber == table.programNumber }
        pendingMapPIDs = Set(mapPIDs.filter { map in map != pid && !otherProgramTables.contains { table in
            programsListed.contains { $0.pid == map && $0.number == table.programNumber } } })
        lastVideoPacketValid = false
        sections = [:]
        lastTablePackets = lastTablePackets.filter { $0.key == pid }
    }

    /// Keeps the first table of a program not read (``otherProgramTables``); its PMT PID is then
    /// no longer read.
    private mutating func recordOther(_ table: ProgramMapTable, pid: UInt16) {
        pendingMapPIDs.remove(pid)
        guard table.programNumber != program?.programNumber, otherProgramTables.count < 64,
              !otherProgramTables.contains(where: { $0.programNumber == table.programNumber }) else { return }
        otherProgramTables.append(table)
    }

    /// A PMT of the program read after the video was chosen: a new version that moves the video
    /// to another PID of the same `stream_type` is followed; one that drops it or changes its
    /// type is reported, and the PID read stays.
    private mutating func follow(_ table: ProgramMapTable, from current: ProgramElement, pid: UInt16, at offset: Int64) {
        guard table.programNumber == program?.programNumber, table != program else { return }
        program = table
        let next = requestedPID.map { wanted in table.elements.first { $0.pid == wanted } } ?? table.elements.first(where: \.isReadableVideo)
        guard let next, next.isReadableVideo else {
            warn(.programMap, pid, offset, "a new PMT of program \(table.programNumber) has no \(requestedPID == nil ? "H.264/H.265 stream" : "\(current)"); still reading \(current)")
            return
        }
        guard next.streamType == current.streamType else {
            warn(.programMap, pid, offset, "a new PMT of program \(table.programNumber) puts the video on \(next), another codec than \(current): not followed")
            return
        }
        guard next.pid != current.pid else { return }
        finishPES(at: offset)
        warn(.programMap, pid, offset, "a new PMT of program \(table.programNumber) moves the video from \(current) to PID 0x\(String(next.pid, radix: 16)); followed")
        video = next
        videoPID = next.pid
        lastVideoPacketValid = false
    }

    /// Counts and reports damage the reader found (lost sync, a cut packet).
    mutating func note(_ kind: TransportStreamWarning.Kind, at offset: Int64, _ detail: String) { warn(kind, nil, offset, detail) }

    /// Counts input bytes skipped to regain sync.
    mutating func noteSkipped(_ count: Int64) { counts.skippedBytes += count }

    private mutating func warn(_ kind: TransportStreamWarning.Kind, _ pid: UInt16?, _ offset: Int64, _ detail: String) {
        counts.warnings[kind, default: 0] += 1
        onWarning?(TransportStreamWarning(kind: kind, pid: pid, byteOffset: offset, detail: detail))
    }
}
