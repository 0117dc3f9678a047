import NALU
import NALUTS

/// How `nalu info` prints a transport stream input's container.
extension StreamSummary {
    var transportStreamJSON: JSONValue? {
        guard let ts = transportStream else { return nil }
        let rate = ts.frameRate
        let duration = transportStreamDuration
        var members: [(String, JSONValue)] = [
            ("format", .string("mpegts")),
            ("packet_size", .number(ts.packetSize)),
            ("program_number", ts.programNumber.map { .number(Int($0)) } ?? .null),
            ("pid", ts.video.map { .number(Int($0.pid)) } ?? .null),
            ("stream_type", ts.video.map { .number(Int($0.streamType)) } ?? .null),
            ("other_streams", .array(ts.otherStreams.map { .object([("pid", .number(Int($0.pid))), ("stream_type", .number(Int($0.streamType)))]) })),
            ("other_programs", .array(ts.otherPrograms.map { .object([("program_number", .number(Int($0.number))), ("pmt_pid", .number(Int($0.pid)))]) })),
            // Every program the PAT lists, the one read first, with its streams (issue 41 item 16).
            ("programs", .array(programsJSON(ts))),
            ("packets", .number(ts.counts.packets)),
            ("pes_packets", .number(ts.counts.pesPackets)),
            ("first_pts", presentationTimeRange.map { .number(Int($0.lowerBound)) } ?? .null),
            ("duration", duration.map { .number(Int($0)) } ?? .null),
            ("duration_seconds", duration.map { .double(Double($0) / Double(TransportStream.presentationClockRate)) } ?? .null),
            ("frame_rate", rate.map { .string("\($0.numerator)/\($0.denominator)") } ?? .null),
            ("continuity_errors", .number(ts.counts.continuityErrors)),
            ("warnings", .number(ts.counts.totalWarnings)),
        ]
        if ts.counts.skippedBytes > 0 { members.append(("skipped_bytes", .number(Int(ts.counts.skippedBytes)))) }
        if ts.counts.duplicatePackets > 0 { members.append(("duplicate_packets", .number(ts.counts.duplicatePackets))) }
        return .object(members)
    }

    var transportStreamText: String? {
        guard let ts = transportStream else { return nil }
        var lines: [(String, String)] = []
        lines.append(("container", "MPEG-TS (\(ts.packetSize)-byte packets\(ts.packetSize == 192 ? ", M2TS" : ""))"))
        if let video = ts.video {
            lines.append(("stream", "\(video)" + (ts.programNumber.map { ", program \($0)" } ?? "")))
        }
        for other in ts.otherStreams { lines.append(("other stream", "\(other)")) }
        for program in ts.otherPrograms {
            lines.append(("other program", "\(program.number) (PMT PID 0x\(String(program.pid, radix: 16))), not read: --pid chooses its video"))
            for stream in ts.otherProgramStreams[program.number] ?? [] { lines.append(("  stream", "\(stream)")) }
        }
        lines.append(("packets", "\(ts.counts.packets) (\(ts.counts.pesPackets) video PES packets)"))
        if let rate = ts.frameRate {
            lines.append(("timing", "\(formatFPS(rate.doubleValue)) fps (\(rate.numerator)/\(rate.denominator), from the DTS)"))
        }
        if let duration = transportStreamDuration, let first = presentationTimeRange?.lowerBound {
            lines.append(("duration", "\(duration) (\(formatSeconds(Double(duration) / 90_000)) s at 90 kHz), first PTS \(first)"))
        }
        var damage = "\(ts.counts.continuityErrors) continuity errors"
        let others = ts.counts.totalWarnings - ts.counts.continuityErrors
        if others > 0 { damage += ", \(others) other warnings" }
        if ts.counts.skippedBytes > 0 { damage += ", \(ts.counts.skippedBytes) bytes skipped to regain sync" }
        if ts.counts.duplicatePackets > 0 { damage += ", \(ts.counts.duplicatePackets) duplicate packets dropped" }
        lines.append(("damage", damage))
        return lines.map { ($0.0 + ":").padding(15) + $0.1 }.joined(separator: "\n") + "\n"
    }
}

extension StreamSummary {
    /// `programs`: the program read (`read` true: its video and other streams) and each other
    /// program the PAT lists (`read` false, with its `pmt_pid`), with `program_number` and
    /// `streams` (`pid`, `stream_type`, `description`; empty when its PMT never came).
    func programsJSON(_ ts: TransportStreamSummary) -> [JSONValue] {
        func streams(_ elements: [ProgramElement]) -> JSONValue {
            .array(elements.map { .object([("pid", .number(Int($0.pid))), ("stream_type", .number(Int($0.streamType))), ("description", .string("\($0)"))]) })
        }
        var programs: [JSONValue] = []
        if let number = ts.programNumber {
            let read = (ts.video.map { [$0] } ?? []) + ts.otherStreams
            programs.append(.object([("program_number", .number(Int(number))), ("read", .bool(true)), ("streams", streams(read))]))
        }
        for program in ts.otherPrograms {
            programs.append(.object([("program_number", .number(Int(program.number))), ("pmt_pid", .number(Int(program.pid))), ("read", .bool(false)),
                                     ("streams", streams(ts.otherProgramStreams[program.number] ?? []))]))
        }
        return programs
    }
}
