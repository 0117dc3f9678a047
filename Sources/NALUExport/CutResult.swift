public import NALU
public import NALUIO
public import NALUMedia
public import NALUSmartCut

/// What a cut, a join or a composition wrote, for its caller to show (issue 39 item 5: the
/// command line prints these and decides nothing): notes and warnings in order, a one-line
/// summary, and the tracks it could not carry.
public struct CutResult: Sendable {
    /// Something a reader of the output should know, in the order it arose.
    public struct Message: Sendable, Hashable {
        /// `note` (informative) or `warning` (the output differs from the input in a way that
        /// may matter: a retimed input).
        public var kind: String
        /// What to know, in words (no prefix).
        public var text: String
    }

    /// The notes and warnings, in order.
    public var messages: [Message] = []
    /// One line saying what was kept and written (what `--verbose` prints).
    public var summary: String = ""
    /// Tracks of the inputs the output does not carry although nothing asked to leave them
    /// out: the output is written and committed, and the caller reports the loss (the command
    /// line's exit status 2).
    public var loss: CarriageLoss?

    mutating func note(_ text: String) { messages.append(Message(kind: "note", text: text)) }
    mutating func warn(_ text: String) { messages.append(Message(kind: "warning", text: text)) }
}

/// Tracks an output did not carry although nothing asked to leave them out (nothing is lost
/// silently): audio an output could not hold, subtitle, timecode and data tracks not carried, or
/// programs of a transport stream input not read.
public struct CarriageLoss: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input (or inputs, comma-separated) that had them.
    public var input: String
    /// The audio tracks left out.
    public var tracks: [String]
    /// Why they were left out.
    public var why: String
    /// The other programs of a transport stream input, not read.
    public var programs: [String]
    /// Tracks other than audio (subtitles, timecode, metadata) not carried.
    public var others: [String]
    /// Why ``others`` were not carried, when not ``why``.
    public var otherWhy: String?
    /// What would carry ``others``, for the hint.
    public var otherHint: String?
    /// Other video tracks, and a transport stream's streams that are neither its video nor
    /// audio (private data, …): no output holds them beside its one video track. A loss unless
    /// the caller leaves them out on purpose (``leavingOutOtherTracks()``; the command line's
    /// `--no-other-tracks`).
    public var unheld: [String] = []
    /// Why ``unheld`` were not carried, when not ``why``.
    public var unheldWhy: String?
    /// Inputs whose own times (variable frame rate, gaps, another rate) a join timed at one
    /// rate did not keep, and why (``retimedWhy``); ``retimedRate`` is that rate (for the hint).
    public var retimed: [String] = []
    public var retimedWhy: String?
    public var retimedRate: String?
    /// Inputs at whose joins an MPEG-TS output shows the pictures their edit lists hide (a
    /// transport stream has no edit list), so that their audio leads the pictures.
    public var hiddenShown: [String] = []

    public init(input: String, tracks: [String], why: String, programs: [String] = [], others: [String] = []) {
        self.input = input
        self.tracks = tracks
        self.why = why
        self.programs = programs
        self.others = others
    }

    /// What was lost and why, ending `the video was written`.
    public var message: String {
        var lost: [String] = []
        if !tracks.isEmpty { lost.append("\(tracks.joined(separator: ", ")) not carried: \(why)") }
        if !others.isEmpty { lost.append("\(others.joined(separator: ", ")) not carried: \(otherWhy ?? why)") }
        if !unheld.isEmpty { lost.append("\(unheld.joined(separator: ", ")) not carried: \(unheldWhy ?? why)") }
        if !programs.isEmpty {
            lost.append("\(programs.joined(separator: ", ")) not read: nalu reads one program's video and audio")
        }
        if !retimed.isEmpty { lost.append("the times of \(retimed.joined(separator: ", ")) not kept: \(retimedWhy ?? "re-timed")") }
        if !hiddenShown.isEmpty {
            lost.append("the pictures hidden at the joins of \(hiddenShown.joined(separator: ", ")) are shown, and their audio leads them: "
                        + "a transport stream has no edit list to hide them")
        }
        return lost.joined(separator: "; ") + "; the video was written"
    }

    /// What leaves the audio out on purpose or chooses a program (the command line's options).
    public var hint: String? {
        var hints: [String] = []
        if !tracks.isEmpty { hints.append("give --no-audio to leave the audio out on purpose (exit 0)") }
        if let otherHint { hints.append(otherHint) }
        if !unheld.isEmpty { hints.append("give --no-other-tracks to leave other video tracks and data streams out on purpose (exit 0)") }
        if !programs.isEmpty { hints.append("give --pid with a program's video PID to choose it (exit 0; `nalu info` lists the programs)") }
        if let retimedRate, !retimed.isEmpty { hints.append("give --fps \(retimedRate) to time the join at one rate on purpose (exit 0)") }
        if !hiddenShown.isEmpty { hints.append("join with --smart (it re-encodes each piece's head from its first shown picture), or into MP4 without --fps (its edit list hides them)") }
        return hints.isEmpty ? nil : hints.joined(separator: "; ")
    }

    public var description: String { "\(input): \(message)" }

    /// This loss without ``unheld`` (left out on purpose), or `nil` when nothing else is lost.
    public func leavingOutOtherTracks() -> CarriageLoss? {
        var rest = self
        rest.unheld = []
        return tracks.isEmpty && others.isEmpty && programs.isEmpty && retimed.isEmpty && hiddenShown.isEmpty ? nil : rest
    }
}

extension CutOutputFormat {
    /// What this output carries beside the video.
    public var carriageTarget: CarriageTarget {
        switch self {
        case .mp4: .mp4
        case .transportStream: .transportStream
        case .annexB, .lengthPrefixed: .elementaryStream
        }
    }
}

extension MediaSource {
    /// The tracks or streams an output carrying `carried` leaves out (``tracksLeftOut(carried:noAudio:to:)``)
    /// as a loss — the audio unless `noAudio`, the subtitle, timecode and data tracks, other video
    /// tracks and data streams (``CarriageLoss/unheld``), a transport stream's other programs
    /// unless a PID chose the one read; `nil` when nothing is lost. `reason` replaces what
    /// `target` holds as the words saying why.
    public func carriageLoss(carried: Set<UInt32>, noAudio: Bool, to target: CarriageTarget, input: String,
                             reason: String? = nil) -> CarriageLoss? {
        let left = tracksLeftOut(carried: carried, noAudio: noAudio, to: target)
        let held = reason ?? left.why
        guard left.isLoss || !left.tracks.isEmpty else { return nil }
        var lost = CarriageLoss(input: input, tracks: left.audio, why: held, programs: left.programs, others: left.others)
        lost.unheld = left.tracks
        if target != .mp4 && !left.others.isEmpty { lost.otherHint = "an MP4 output carries subtitle, timecode and data tracks" }
        return lost
    }

    fileprivate func carriage(_ carried: Set<UInt32>, noAudio: Bool, format: CutOutputFormat, input: String, into result: inout CutResult) {
        result.loss = carriageLoss(carried: carried, noAudio: noAudio, to: format.carriageTarget, input: input)
    }
}

extension Trimmer {
    /// Writes `plan` in `format` to `output` (``write(_:output:format:audio:)``) with the input's
    /// movie metadata, commits it, and says what it did: the tracks not carried (`input` names
    /// the input), the sink's notes, the lead-in an elementary stream shows (``notes(_:format:)``).
    /// - Throws: ``NALU/NALUError`` from reading, muxing or writing.
    public func commit(_ plan: TrimPlan, input: String, to output: FileSink, format: CutOutputFormat, audio: Bool) throws(NALUError) -> CutResult {
        do {
            var result = CutResult()
            var format = format
            if case .mp4(var options) = format {
                options.metadata = try outputMetadata(from: source, output: output.path)
                format = .mp4(options)
            }
            if format.isElementary { source.carriage([], noAudio: !audio, format: format, input: input, into: &result) }
            let report = try write(plan, output: output, format: format, audio: audio)
            if !format.isElementary { source.carriage(carriedTrackIDs, noAudio: !audio, format: format, input: input, into: &result) }
            try output.commit()
            for note in report.notes + notes(plan, format: format) { result.note(note) }
            result.summary = plan.summary(report)
            return result
        } catch {
            throw NALUError.converting(error, field: output.path)
        }
    }
}

extension SmartTrimmer {
    /// Cuts `[start, end)` frame-exactly in `format` to `output` (``writeMP4(start:end:output:options:audio:)``
    /// and the others) with the input's movie metadata, commits it, and says what it did.
    /// - Throws: ``ExportError`` carrying the cut's cause whole (``ExportError/init(stage:)``): the stream's
    ///   `NALUError`, the decoder's or encoder's error, `CancellationError`.
    public func commit(start: MediaTime, end: MediaTime?, input: String, to output: FileSink, format: CutOutputFormat,
                       audio: Bool) throws(ExportError) -> CutResult {
        do {
            let report: Report
            switch format {
            case .mp4(var options):
                options.metadata = try outputMetadata(from: source, output: output.path)
                report = try SmartCutError.unwrapping { try writeMP4(start: start, end: end, output: output, options: options, audio: audio) }
            case .annexB: report = try SmartCutError.unwrapping { try writeAnnexB(start: start, end: end, output: output) }
            case .lengthPrefixed: report = try SmartCutError.unwrapping { try writeLengthPrefixed(start: start, end: end, output: output) }
            case .transportStream(let options):
                report = try SmartCutError.unwrapping { try writeTransportStream(start: start, end: end, output: output, options: options, audio: audio) }
            }
            try output.commit()
            var result = CutResult()
            source.carriage(Set(report.audioTrackIDs + report.otherTrackIDs), noAudio: !audio, format: format, input: input, into: &result)
            for note in report.sink.notes { result.note(note) }
            result.summary = "smart trim: \(report.plan.pictureCount) pictures shown: \(report.headPictures) re-encoded before, "
                + "\(report.copiedAccessUnits) access units copied, \(report.tailPictures) re-encoded after"
                + (report.plan.rewritesCopyPointAsBLA ? "; the CRA copy point written as BLA" : "")
                + ", \(report.audioTracks) audio track(s)"
            return result
        } catch {
            throw ExportError(stage: error)
        }
    }
}

private func rateText(_ rate: Rational) -> String {
    rate.denominator == 1 ? "\(rate.numerator)" : "\(rate.numerator)/\(rate.denominator)"
}

extension Concatenator {
    /// Joins the inputs in `format` to `output` with the first input's movie metadata, commits
    /// it, and says what it did: the tracks not joined, the inputs retimed (unless
    /// `frameRateGiven`: the caller chose the rate).
    /// - Throws: ``NALU/NALUError`` from reading, muxing or writing.
    public func commit(to output: FileSink, format: CutOutputFormat, audio: Bool, frameRateGiven: Bool = false) throws(NALUError) -> CutResult {
        do {
            let report: ConcatReport
            switch format {
            case .mp4(var options):
                options.metadata = outputMetadata((try? firstMovieMetadata()) ?? nil, output: output.path)
                report = try writeMP4(output: output, options: options, audio: audio)
            case .annexB(let maxAccessUnitSize): report = try writeAnnexB(output: output, maxAccessUnitSize: maxAccessUnitSize)
            case .lengthPrefixed: report = try writeLengthPrefixed(output: output)
            case .transportStream(let options): report = try writeTransportStream(output: output, options: options, audio: audio)
            }
            try output.commit()
            var result = CutResult()
            for note in report.sink?.notes ?? [] { result.note(note) }
            let overlapped = report.audioFramesDroppedAtJoins.reduce(0, +)
            if overlapped > 0 {
                // Transport stream inputs: each input's audio stays with its pictures (``ConcatTransportStreamAudio``).
                result.note("\(overlapped) audio frame\(overlapped == 1 ? "" : "s") (\(report.audioFramesDroppedAtJoins.map(String.init).joined(separator: ", ")) by stream) "
                            + "started inside the previous input's audio and were left out at the joins, so that each input's audio stays with its pictures")
            }
            // The tracks left out: with the audio joined (or left out on purpose), other video
            // tracks (named); subtitle, timecode and data tracks not joined are a loss.
            let skipAudio = report.audioJoined != nil || !audio
            let withOthers = report.otherTracks.enumerated()
                .filter { !$0.element.filter { (!skipAudio || $0.handler != "soun") && ($0.handler == "soun" || $0.handler == "vide") }.isEmpty }
                .map { inputs[$0.offset].path }
            let unjoined = report.tracksJoined.isEmpty ? report.otherTracks.enumerated().flatMap { position, tracks in
                tracks.filter { $0.handler != "soun" && $0.handler != "vide" }.map { "\(inputs[position].path) \($0.description)" }
            } : []
            let withAudio = inputs.filter(\.hasAudio)
            if audio, report.audioJoined == nil, !withAudio.isEmpty {
                let why = report.audioNotJoined ?? (format.isElementary ? "an elementary stream holds one video track" : "only MP4/MOV inputs' audio is joined")
                result.loss = CarriageLoss(input: withAudio.map(\.path).joined(separator: ", "), tracks: ["the audio"], why: "it is not joined (\(why))")
            } else if !withOthers.isEmpty {
                let held = report.audioJoined != nil ? "the output has the video and the joined audio" : "the output has the video only"
                var loss = CarriageLoss(input: withOthers.joined(separator: ", "), tracks: [], why: held)
                loss.unheld = ["other tracks\(skipAudio ? "" : " (audio)")"]
                loss.unheldWhy = "they are not joined; \(held)"
                result.loss = loss
            }
            // A transport stream's data streams (private PES, …): no join carries them.
            let dataStreams = inputs.flatMap { input in input.dataStreams.map { "\(input.path) \($0)" } }
            if !dataStreams.isEmpty {
                var loss = result.loss ?? CarriageLoss(input: inputs.map(\.path).joined(separator: ", "), tracks: [], why: "concat joins the video and the audio")
                loss.unheld += dataStreams
                loss.unheldWhy = loss.unheldWhy ?? "concat joins the video and the audio"
                result.loss = loss
            }
            if !unjoined.isEmpty {
                var isMP4 = false
                if case .mp4 = format { isMP4 = true }
                let why = !isMP4 ? "only an MP4 output holds them" : "they are not joined (\(report.tracksNotJoined ?? "the inputs differ"))"
                var loss = result.loss ?? CarriageLoss(input: inputs.map(\.path).joined(separator: ", "), tracks: [], why: why)
                loss.others = unjoined
                loss.otherWhy = why
                result.loss = loss
            }
            // Inputs with times of their own re-timed at a rate nobody chose: their times are lost
            // (nothing is lost silently); a rate the caller gave re-times them on purpose.
            if !frameRateGiven, !report.timesNotKept.isEmpty, let rate = report.outputFrameRate {
                var loss = result.loss ?? CarriageLoss(input: inputs.map(\.path).joined(separator: ", "), tracks: [], why: "")
                loss.retimed = report.timesNotKept.map { inputs[$0].path }
                loss.retimedWhy = "the join is timed at \(rateText(rate)) fps: \(report.timesNotKeptReason ?? "their times cannot be joined")"
                loss.retimedRate = rateText(rate)
                result.loss = loss
            }
            if !report.hiddenPicturesShown.isEmpty {
                var loss = result.loss ?? CarriageLoss(input: inputs.map(\.path).joined(separator: ", "), tracks: [], why: "")
                loss.hiddenShown = report.hiddenPicturesShown.map { inputs[$0].path }
                result.loss = loss
            }
            var line = "joined " + zip(inputs, report.pictures).map { "\($0.path) (\($0.container), \($1) pictures)" }.joined(separator: " + ")
            if let summary = report.sink?.mp4 {
                line += " → MP4 \(summary.sampleEntry), \(summary.writer.samples) samples, \(summary.sampleDescriptions) sample entries, \(rateText(summary.frameRate)) fps"
            }
            result.summary = line
            return result
        } catch {
            throw NALUError.converting(error, field: output.path)
        }
    }
}

extension CompositionWriter {
    /// Writes the composition in `format` to `output` (``write(output:format:audio:)``) with the
    /// first clip's movie metadata, commits it, and says what it did: the audio and tracks not
    /// joined (a loss), the other video tracks (a note), the clips retimed (warnings).
    /// `caller` names what joins (`--keep`, `concat`) in the words saying why tracks are not carried.
    /// With `refusingLoss`, a loss is thrown (a ``CarriageLoss``) instead of committed; with
    /// `isCancelled` true at the end, `CancellationError` (the output is not committed either way).
    /// - Returns: the result and the writer's report.
    /// - Throws: ``ExportError`` carrying the join's cause whole (``ExportError/init(stage:)``): the
    ///   stream's, decoder's or encoder's error, the ``CarriageLoss`` refused, `CancellationError`.
    public func commit(to output: FileSink, format: CutOutputFormat, audio: Bool, caller: String = "a composition",
                       refusingLoss: Bool = false, isCancelled: (() -> Bool)? = nil) throws(ExportError) -> (result: CutResult, report: Report) {
        do {
            var format = format
            if case .mp4(var options) = format {
                options.metadata = try outputMetadata(from: composition.clips.first.flatMap { source(of: $0.path) }, output: output.path)
                format = .mp4(options)
            }
            let report = try SmartCutError.unwrapping { try write(output: output, format: format, audio: audio) }
            let result = describe(report, format: format, audio: audio, caller: caller)
            if refusingLoss, let loss = result.loss { throw loss }
            if let isCancelled, isCancelled() { throw CancellationError() }
            try output.commit()
            return (result, report)
        } catch {
            throw ExportError(stage: error)
        }
    }

    private func describe(_ report: Report, format: CutOutputFormat, audio: Bool, caller: String) -> CutResult {
        var result = CutResult()
        for note in report.join.sink?.notes ?? [] { result.note(note) }
        let clips = composition.clips
        // Audio the inputs have that is not in the output.
        let paths = Array(Set(clips.map(\.path))).sorted()
        let withAudio = paths.filter {
            guard let source = source(of: $0) else { return false }
            return source.otherTracks.contains { $0.handler == "soun" } || (source.transportStream?.otherStreams.contains(where: \.isAudio) ?? false)
        }
        if audio, report.join.audioJoined == nil, !withAudio.isEmpty {
            let why = format.isElementary ? "an elementary stream holds one video track" : report.join.audioNotJoined ?? "the pieces' audio does not join"
            result.loss = CarriageLoss(input: withAudio.joined(separator: ", "), tracks: ["the audio"], why: "it is not joined (\(why))")
        } else if audio, !format.isElementary {
            // Every audio track or stream of each input is one of the joined ones.
            let most = paths.compactMap { source(of: $0) }.map { source in
                max(source.otherTracks.filter { $0.handler == "soun" }.count, source.transportStream?.otherStreams.filter(\.isAudio).count ?? 0)
            }.max() ?? 0
            if report.join.audioTracksJoined < most {
                result.loss = CarriageLoss(input: withAudio.joined(separator: ", "), tracks: ["\(most - report.join.audioTracksJoined) of \(most) audio tracks"],
                                           why: "the pieces carry AAC, AC-3 and MPEG audio")
            }
        }
        // Clips at another rate than the output's are retimed (elementary and MPEG-TS output).
        if let rate = report.join.outputFrameRate {
            for position in report.join.inputsAtAnotherRate where position < clips.count {
                let own = report.join.frameRates[position].map { " is \(rateText($0)) fps;" } ?? ""
                result.warn("\(clips[position].name)\(own) the output is timed at \(rateText(rate)) fps")
            }
        }
        // Other video tracks, subtitle, timecode and metadata tracks not joined, and a transport
        // stream's streams other than audio, are a loss.
        var others: [String] = []
        var unheld: [String] = []
        for path in paths {
            guard let source = source(of: path) else { continue }
            // The output has one video track: another one is a loss, not a note.
            unheld += source.otherTracks.filter { $0.handler == "vide" }.map { "\(path) \($0.description)" }
            if report.join.tracksJoined.isEmpty {
                others += source.otherTracks.filter { $0.handler != "soun" && $0.handler != "vide" }.map { "\(path) \($0.description)" }
            }
            if let streams = source.transportStream?.otherStreams {
                unheld += streams.filter { !$0.isAudio }.map { "\(path) \($0.description)" }
            }
        }
        if !unheld.isEmpty {
            var loss = result.loss ?? CarriageLoss(input: paths.joined(separator: ", "), tracks: [], why: "the output has one video track")
            loss.unheld = unheld
            loss.unheldWhy = "the output has one video track and its audio"
            result.loss = loss
        }
        if !others.isEmpty {
            let why = report.join.tracksNotJoined.map { "they are not joined (\($0))" } ?? "\(caller) joins the video and one audio track"
            var loss = result.loss ?? CarriageLoss(input: paths.joined(separator: ", "), tracks: [], why: why)
            loss.others = others
            loss.otherWhy = why
            result.loss = loss
        }
        let parts = zip(clips, report.pieces).map { clip, cut in
            "\(clip.name): \(cut.pictures) pictures (\(cut.headPictures) re-encoded before, "
                + "\(cut.copiedAccessUnits) copied, \(cut.tailPictures) re-encoded after)"
        }
        var line = "kept " + parts.joined(separator: " + ") + "; \(report.pictures) pictures"
        if let summary = report.join.sink?.mp4 {
            line += " → MP4 \(summary.writer.samples) samples, \(summary.sampleDescriptions) sample entries"
        }
        if let audio = report.join.audioJoined { line += ", \(audio) audio samples" }
        result.summary = line
        return result
    }
}
