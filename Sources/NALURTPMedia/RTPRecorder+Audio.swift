public import NALU
public import NALURTP

extension RTPRecorder {
    /// Writes the AAC AUs among `events` (of ``audioReceiver``); keeps malformed packets as notes.
    /// - Throws: ``NALU/NALUError`` from the output.
    public func handleAudio(_ events: [RTPAACReceiverEvent]) throws(NALUError) {
        for event in events {
            switch event {
            case .accessUnit(let unit):
                try output.writeAudio(unit)
            case .malformedPacket(let sequenceNumber, let error):
                noteAudio("audio packet \(sequenceNumber): \(error)")
            case .gap:
                continue
            }
        }
    }

    /// Takes one RTP packet of the AAC stream received at `arrival` (a monotonic clock).
    /// - Throws: ``NALU/NALUError`` from the output.
    public func receiveAudio(_ packet: RTPPacket, arrival: Int64) throws(NALUError) {
        guard var audio = audioReceiver else { return }
        let events = audio.receive(packet, arrival: arrival)
        audioReceiver = audio
        try handleAudio(events)
    }

    /// Gives up on audio packets that waited past the reorder delay at `now`.
    /// - Throws: ``NALU/NALUError`` from the output.
    public func advanceAudio(to now: Int64) throws(NALUError) {
        guard var audio = audioReceiver else { return }
        let events = audio.advance(to: now)
        audioReceiver = audio
        try handleAudio(events)
    }

    /// Releases the audio packets held (the end of the reception).
    /// - Throws: ``NALU/NALUError`` from the output.
    public func finishAudio() throws(NALUError) {
        guard var audio = audioReceiver else { return }
        let events = audio.finish()
        audioReceiver = audio
        try handleAudio(events)
    }

    /// What the audio lost, one phrase each.
    var audioLosses: [String] {
        var lost: [String] = []
        if let statistics = audioReceiver?.statistics {
            if statistics.lost + statistics.late > 0 { lost.append(Self.count(statistics.lost + statistics.late, "audio packet") + " lost") }
            if statistics.droppedAccessUnits > 0 { lost.append(Self.count(statistics.droppedAccessUnits, "AAC access unit") + " dropped") }
            if statistics.malformed > 0 { lost.append(Self.count(statistics.malformed, "malformed audio packet")) }
            if statistics.otherPayloadType + statistics.otherSource > 0 {
                lost.append(Self.count(statistics.otherPayloadType + statistics.otherSource, "audio packet") + " of another payload type or source")
            }
            if statistics.packets == 0 { lost.append("no audio packet came") }
        }
        if output.audioNotWritten > 0 { lost.append(Self.count(output.audioNotWritten, "AAC access unit") + " not written") }
        if output.audioWritten.outOfOrder > 0 { lost.append(Self.count(output.audioWritten.outOfOrder, "AAC access unit") + " out of order") }
        if output.audioIsUnaligned {
            lost.append("the audio's place against the video is not known (no RTP-Info for both streams): its first access unit was put with the first picture")
        }
        return lost
    }

    private func noteAudio(_ text: String) {
        if audioNoteCount < 20 { appendAudioNote(text) }
    }

    /// The receiver's statistics of an AAC stream as one phrase.
    static func audioSummary(of statistics: RTPAACReceiverStatistics) -> String {
        "\(statistics.accessUnits) access units from \(statistics.packets) packets; \(statistics.lost) lost in \(statistics.gaps) gaps, "
            + "\(statistics.duplicates) duplicates, \(statistics.late) late, \(statistics.droppedAccessUnits) access units dropped"
    }
}
