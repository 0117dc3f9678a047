import NALU
import NALUMP4

/// `nalu doctor`: reads a stream once, in bounded memory, and reports what would make a decoder,
/// a player or a muxer fail or misbehave (``DoctorFinding``), each with its spec clause and,
/// where one exists, the `nalu edit`/`nalu convert` command that fixes it.
///
/// ```swift
/// let source = try MediaSource(path: "in.mp4")
/// let findings = try Doctor(target: .apple, inputName: "in.mp4").examine(source)
/// ```
///
/// Access unit indices count pictures in decoding order from 0; a picture whose slices cannot be
/// parsed (its parameter sets are missing) still counts as one access unit.
public struct Doctor: Sendable {
    /// The player the stream is for, adding its checks (`--target`).
    public var target: DoctorTarget?
    /// The input's name as the user gave it, for the fix command lines.
    public var inputName: String

    public init(target: DoctorTarget? = nil, inputName: String) {
        self.target = target
        self.inputName = inputName
    }

    /// Examines `source` to its end.
    /// - Returns: one finding per code, at its first occurrence, errors first, then warnings,
    ///   each group in the order found.
    /// - Throws: ``NALUError`` `.io` when reading fails; anything malformed in the stream is a
    ///   finding, not an error.
    public func examine(_ source: MediaSource) throws -> [DoctorFinding] {
        let scan = DoctorScan(source: source, doctor: self)
        try scan.run()
        let findings = scan.log.findings
        return findings.filter { $0.severity == .error } + findings.filter { $0.severity == .warning }
    }

    /// `fixed.<the input's extension>`, the output name of the fix command lines.
    var fixedName: String {
        let name = inputName.split(separator: "/").last.map(String.init) ?? inputName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "fixed.h264" }
        return "fixed" + name[dot...]
    }

    /// `nalu edit <input> <options> -o fixed.<ext>`.
    func editCommand(_ options: String) -> String {
        "nalu edit \(Self.quoted(inputName)) \(options) -o \(fixedName)"
    }

    /// A shell word: as is when safe, in single quotes otherwise.
    static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./+:=,@%".contains($0) }
        guard !safe || word.isEmpty else { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

/// The state of one ``Doctor/examine(_:)`` pass.
final class DoctorScan {
    let source: MediaSource
    let doctor: Doctor
    let codec: Codec
    var log = DoctorFindingLog()
    var splitter: AccessUnitSplitter
    /// The sample entry's parameter sets alone, to compare the in-band ones with.
    let recordStore: ParameterSetStore?
    /// Pictures the splitter never saw (their parameter sets were missing): added to its indices.
    var skippedPictures = 0
    /// PPS ids whose SPS is missing: their slices are skipped without a finding of their own.
    var brokenPPS = Set<Int>()
    /// The content of each SPS id last checked against its level, so repeats are not re-checked.
    var checkedSPS: [Int: [UInt8]] = [:]
    var sawPicture = false
    var pendingOpenGOP: (accessUnit: Int, offset: Int64)?
    /// A NAL unit that failed to parse: `truncated` if nothing follows it, `malformed` otherwise.
    var pendingFailure: (error: NALUError, accessUnit: Int, offset: Int64)?
    var lastAccessUnit: (summary: AccessUnitSummary, index: Int, skipped: Bool)?
    var counter = PictureOrderCounter()
    var largestPOC: Int?
    var firstReordered: (accessUnit: Int, offset: Int64)?
    var timing = ContainerTiming()
    var sawVUITiming = false
    /// Frames per second from the MP4 track's timing, for level checks when the VUI has none.
    let containerFrameRate: Rational?
    /// Whether the MP4 sample entry signals colour (`colr` of type `nclx`).
    let containerColourPresent: Bool
    var firstSPSWithoutTiming: (accessUnit: Int, offset: Int64?)?
    /// Bytes of NAL units and their prefixes, for the average bit rate.
    var streamBytes: Int64 = 0
    /// The SPS checked last (the stream's, for the bit rate against its level).
    var lastAVCSPS: AVCSequenceParameterSet?
    var lastHEVCSPS: HEVCSequenceParameterSet?

    init(source: MediaSource, doctor: Doctor) {
        self.source = source
        self.doctor = doctor
        codec = source.codec
        splitter = AccessUnitSplitter(codec: source.codec)
        if source.outOfBandParameterSets.isEmpty {
            recordStore = nil
        } else {
            var store = ParameterSetStore(codec: source.codec)
            for unit in source.outOfBandParameterSets { _ = try? store.add(unit) }
            recordStore = store
        }
        for unit in source.outOfBandParameterSets { try? splitter.addParameterSet(unit) }
        containerFrameRate = try? source.containerFrameRate()
        if let colour = source.mp4?.track.sampleDescription.colour {
            containerColourPresent = colour.colourPrimaries != nil
        } else {
            containerColourPresent = false
        }
    }

    func add(_ code: DoctorCode, _ message: String, accessUnit: Int?, offset: Int64?, clause: String, fix: String? = nil,
             severity: DoctorSeverity? = nil) {
        log.add(DoctorFinding(severity: severity ?? code.defaultSeverity, code: code, message: message, accessUnit: accessUnit,
                              byteOffset: offset, clause: clause, fix: fix))
    }

    /// The index of the access unit being assembled (or about to start).
    var currentIndex: Int {
        (splitter.current?.index ?? splitter.completedCount) + skippedPictures
    }

    func run() throws {
        checkOutOfBandSPS()
        containerChecks()
        do {
            try source.forEachNALUnit(sampleStarts: { self.sample($0) }) { unit in
                self.nalUnit(unit)
            }
        } catch let error as NALUError where error.code != .io {
            // The container or framing cannot go on: a length past the end of the file is a cut.
            let cut = error.code == .lengthPastEnd || error.code == .truncated
            add(cut ? .truncated : .malformed, cut ? "the input ends inside an access unit: \(error.description)" : error.description,
                accessUnit: failedSampleIndex(error) ?? currentIndex, offset: error.byteOffset,
                clause: source.container.isMP4 ? "ISO/IEC 14496-12 8.7.3, 8.7.5" : "ISO/IEC 14496-15 5.3.2")
            pendingFailure = nil
        }
        if let failure = pendingFailure {
            add(.truncated, "the last NAL unit ends early: \(failure.error.description)", accessUnit: failure.accessUnit,
                offset: failure.offset, clause: codec == .h264 ? "H.264 7.3.3, B.1" : "H.265 7.3.6.1, B.2")
            pendingFailure = nil
        }
        if let last = splitter.finish() { completed(last, skipped: false) }
        if let last = lastAccessUnit, last.summary.vclNALUnitCount == 0, !last.skipped, !log.contains(.truncated) {
            add(.truncated, "the last access unit has no coded picture: the stream ends after its \(last.summary.nalUnitCount) non-VCL NAL unit(s)",
                accessUnit: last.index, offset: last.summary.offset, clause: codec == .h264 ? "H.264 7.4.1.2.3" : "H.265 7.4.2.4.4")
        }
        endChecks()
    }

    /// The index of the MP4 sample an error is about: the last one read, or the next when the
    /// error lies past its end (a sample table entry outside the file fails before it is read).
    /// For length-prefixed input, the NAL unit cut off is taken to start the next access unit
    /// when the current one has its picture (exact for one slice per picture).
    func failedSampleIndex(_ error: NALUError) -> Int? {
        guard source.container.isMP4 else {
            return (splitter.current?.vclNALUnitCount ?? 0) > 0 ? currentIndex + 1 : currentIndex
        }
        guard let last = timing.lastSample else { return 0 }
        if let offset = error.byteOffset, offset >= last.offset + Int64(last.size) { return last.index + 1 }
        return last.index
    }

    // MARK: NAL units

    func nalUnit(_ unit: NALUnitView) {
        if let failure = pendingFailure {
            add(.malformed, failure.error.description, accessUnit: failure.accessUnit, offset: failure.offset,
                clause: codec == .h264 ? "H.264 7.3" : "H.265 7.3")
            pendingFailure = nil
        }
        streamBytes += Int64(unit.count + unit.prefixLength)
        guard unit.count > 0 else { return }
        if unit.firstByte & 0x80 != 0 {
            add(.forbiddenZeroBit, "forbidden_zero_bit is 1 in a NAL unit header: a decoder drops the NAL unit (a bit error in transmission)",
                accessUnit: indexOfCorrupted(unit), offset: unit.offset, clause: codec == .h264 ? "H.264 7.4.1" : "H.265 7.4.2.1")
            return
        }
        let header: NALUnitHeader
        do {
            header = try NALUnitHeader(unit.bytes, codec: codec)
        } catch {
            pendingFailure = (error.offset(by: unit.offset), currentIndex, unit.offset)
            return
        }
        if header.isVCL {
            guard sliceReferencesPresent(unit, header: header) else { return }
        } else if header.isParameterSet {
            guard parameterSetReferencesPresent(unit, header: header) else { return }
        } else if isSEI(header), seiOverflows(unit) {
            return
        }
        let step: AccessUnitSplitter.Step
        do {
            step = try splitter.push(unit)
        } catch {
            // A picture's first slice that fails belongs to a new access unit.
            var index = currentIndex
            if header.isVCL, ParameterSetReferences.slice(unit, header: header)?.firstSliceOfPicture == true,
               (splitter.current?.vclNALUnitCount ?? 0) > 0 {
                index += 1
            }
            pendingFailure = (error, index, unit.offset)
            return
        }
        if let done = step.completed { completed(done, skipped: false) }
        if header.isParameterSet { parameterSetPushed(unit, header: header) }
        if step.isFirstVCL { firstSliceOfPicture(step) }
        if case .hevc(let hevc) = header, hevc.nalUnitType == .raslN || hevc.nalUnitType == .raslR, let open = pendingOpenGOP {
            add(.openGOPStart, "the stream starts at a CRA picture whose RASL pictures (leading pictures referring to pictures before it) cannot be decoded",
                accessUnit: open.accessUnit, offset: open.offset, clause: "H.265 8.1.3, 7.4.2.2")
            pendingOpenGOP = nil
        }
    }

    /// The access unit a NAL unit with forbidden_zero_bit set would have been in, read as if the
    /// bit were 0: the next one when it would start an access unit after a picture.
    func indexOfCorrupted(_ unit: NALUnitView) -> Int {
        guard (splitter.current?.vclNALUnitCount ?? 0) > 0 else { return currentIndex }
        var head = Array(unit.bytes.prefix(24))
        head[0] &= 0x7F
        let startsNew: Bool = NALUnitView.withNALUnit(head) { (view) -> Bool in
            guard let header = try? NALUnitHeader(view.bytes, codec: codec) else { return false }
            if header.isVCL { return ParameterSetReferences.slice(view, header: header)?.firstSliceOfPicture == true }
            switch header {
            case .avc(let avc): return [.sei, .sps, .pps, .accessUnitDelimiter].contains(avc.nalUnitType)
            case .hevc(let hevc): return [.vps, .sps, .pps, .accessUnitDelimiter, .prefixSEI].contains(hevc.nalUnitType)
            }
        }
        return currentIndex + (startsNew ? 1 : 0)
    }

    func isSEI(_ header: NALUnitHeader) -> Bool {
        switch header {
        case .avc(let avc): avc.nalUnitType == .sei
        case .hevc(let hevc): hevc.nalUnitType == .prefixSEI || hevc.nalUnitType == .suffixSEI
        }
    }

    /// Whether an SEI message's payloadSize runs past its NAL unit (then the NAL unit is not
    /// handed on: a decoder discards it).
    func seiOverflows(_ unit: NALUnitView) -> Bool {
        do {
            _ = try SEIMessage.messages(inNALUnit: Array(unit.bytes)[...], codec: codec)
            return false
        } catch where error.code == .lengthPastEnd || error.code == .truncated {
            add(.seiOverflow, "an SEI message runs past the end of its NAL unit (\(error.field): \(error.detail ?? error.code.description)); decoders drop the SEI",
                accessUnit: currentIndex, offset: unit.offset, clause: codec == .h264 ? "H.264 7.3.2.3.1, 7.4.2.3.1" : "H.265 7.3.5, 7.4.6")
            return true
        } catch {
            return false
        }
    }

    /// Checks that a slice's PPS (and so its SPS) has been received; a slice without them is a
    /// picture the splitter cannot parse: it is counted and skipped. With no parameter set
    /// received at all it is `no-parameter-sets`; with some, but not its PPS, `missing-reference`.
    func sliceReferencesPresent(_ unit: NALUnitView, header: NALUnitHeader) -> Bool {
        guard let reference = ParameterSetReferences.slice(unit, header: header) else { return true }
        let store = splitter.parameterSets
        let present = codec == .h264 ? store.avcPPS[reference.ppsId] != nil : store.hevcPPS[reference.ppsId] != nil
        if present { return true }
        if reference.firstSliceOfPicture || lastAccessUnit?.skipped != true { skipPicture(unit, header: header) }
        if brokenPPS.contains(reference.ppsId) { return false }
        let kind = codec == .h264 ? "slice" : "slice segment"
        if !store.isEmpty {
            add(.missingReference, "a \(kind) refers to PPS \(reference.ppsId), which the stream never sent before it",
                accessUnit: currentIndex - 1, offset: unit.offset, clause: codec == .h264 ? "H.264 7.4.3" : "H.265 7.4.7.1")
        } else {
            let needed = codec == .h264 ? "SPS and PPS" : "VPS, SPS and PPS"
            add(.noParameterSets, "a \(kind) comes before any \(needed) it needs (PPS \(reference.ppsId)): a decoder cannot decode it",
                accessUnit: currentIndex - 1, offset: unit.offset, clause: codec == .h264 ? "H.264 7.4.1.2.1" : "H.265 7.4.2.4.2")
        }
        return false
    }

    /// Counts a picture whose first slice cannot be parsed as an access unit of its own (after
    /// closing the one being assembled), and checks it as the first picture.
    func skipPicture(_ unit: NALUnitView, header: NALUnitHeader) {
        var start = unit.offset - Int64(unit.prefixLength)
        if let current = splitter.current, current.vclNALUnitCount == 0 {
            // Its AUD/SEI already started the access unit: that one is this picture.
            start = current.offset
            if let done = splitter.finish() { completed(done, skipped: true) }
        } else {
            if let done = splitter.finish() { completed(done, skipped: false) }
            skippedPictures += 1
            lastAccessUnit = (AccessUnitSummary(index: currentIndex - 1, offset: start, size: Int64(unit.count)), currentIndex - 1, true)
        }
        if !sawPicture {
            sawPicture = true
            let irap: Bool = switch header {
            case .avc(let avc): avc.nalUnitType == .idrSlice
            case .hevc(let hevc): hevc.nalUnitType.isIRAP
            }
            if !irap { startsWithoutKeyframe(accessUnit: currentIndex - 1, offset: start) }
        }
    }

    func startsWithoutKeyframe(accessUnit: Int, offset: Int64) {
        let what = codec == .h264 ? "an IDR picture or a recovery point" : "an IRAP picture (IDR, CRA, BLA)"
        add(.startsWithoutKeyframe, "the first picture is not \(what): the pictures before the first keyframe cannot be decoded",
            accessUnit: accessUnit, offset: offset, clause: codec == .h264 ? "H.264 7.4.1.2.2, D.2.8" : "H.265 7.4.2.4.2")
    }

    /// Checks the references of a parameter set; `false` when it cannot be used (a PPS whose
    /// SPS is missing).
    func parameterSetReferencesPresent(_ unit: NALUnitView, header: NALUnitHeader) -> Bool {
        let store = splitter.parameterSets
        switch header {
        case .avc(let avc) where avc.nalUnitType == .pps:
            guard let ids = ParameterSetReferences.pictureParameterSet(unit, codec: codec) else { return true }
            if store.avcSPS[ids.spsId] != nil { brokenPPS.remove(ids.ppsId); return true }
            brokenPPS.insert(ids.ppsId)
            add(.missingReference, "PPS \(ids.ppsId) refers to SPS \(ids.spsId), which the stream never sent before it",
                accessUnit: currentIndex, offset: unit.offset, clause: "H.264 7.4.2.2")
            return false
        case .hevc(let hevc) where hevc.nalUnitType == .pps:
            guard let ids = ParameterSetReferences.pictureParameterSet(unit, codec: codec) else { return true }
            if store.hevcSPS[ids.spsId] != nil { brokenPPS.remove(ids.ppsId); return true }
            brokenPPS.insert(ids.ppsId)
            add(.missingReference, "PPS \(ids.ppsId) refers to SPS \(ids.spsId), which the stream never sent before it",
                accessUnit: currentIndex, offset: unit.offset, clause: "H.265 7.4.3.3.1")
            return false
        case .hevc(let hevc) where hevc.nalUnitType == .sps:
            if let vps = ParameterSetReferences.videoParameterSetId(ofSPS: unit), store.hevcVPS[vps] == nil {
                add(.missingReference, "SPS refers to VPS \(vps), which the stream never sent before it",
                    accessUnit: currentIndex, offset: unit.offset, clause: "H.265 7.4.3.2.1")
            }
            return true
        default:
            return true
        }
    }

    // MARK: Access units

    func completed(_ summary: AccessUnitSummary, skipped: Bool) {
        let index = summary.index + skippedPictures
        lastAccessUnit = (summary, index, skipped)
        if doctor.target == .broadcast, !summary.hasAccessUnitDelimiter {
            add(.missingAUD, "access units do not start with an access unit delimiter, which MPEG-2 transport streams (broadcast, HLS) require",
                accessUnit: index, offset: summary.offset, clause: "ITU-T H.222.0 2.14.1 (AVC), 2.17.1 (HEVC)", fix: doctor.editCommand("--aud insert"))
        }
    }

    func firstSliceOfPicture(_ step: AccessUnitSplitter.Step) {
        guard let current = splitter.current else { return }
        let index = current.index + skippedPictures
        if sawPicture {
            if current.keyframe?.isIRAP == true { pendingOpenGOP = nil }
        } else {
            sawPicture = true
            switch current.keyframe {
            case nil where current.pictureType == .i:
                // An I picture decodes; pictures after it that refer across it do not.
                add(.openGOPStart, "the stream starts at an I picture that is neither IDR nor a recovery point: pictures that refer to pictures before it decode wrongly",
                    accessUnit: index, offset: current.offset, clause: codec == .h264 ? "H.264 7.4.1.2.2, D.2.8" : "H.265 7.4.2.4.2")
            case nil:
                startsWithoutKeyframe(accessUnit: index, offset: current.offset)
            case .recoveryPoint(let count)?:
                add(.openGOPStart, "the stream starts at a recovery point (recovery_frame_cnt \(count)), not an IDR picture: pictures that refer across it decode wrongly",
                    accessUnit: index, offset: current.offset, clause: "H.264 D.2.8")
            case .cra?, .bla?:
                pendingOpenGOP = (index, current.offset)
            case .idr?:
                break
            }
        }
        pictureOrder(step, accessUnit: index, offset: current.offset)
    }

    /// Notes the first picture that comes before an earlier-decoded one in output order (the
    /// stream reorders: an MP4 of it needs composition offsets).
    func pictureOrder(_ step: AccessUnitSplitter.Step, accessUnit: Int, offset: Int64) {
        guard firstReordered == nil else { return }
        var count: PictureOrderCount?
        switch codec {
        case .h264:
            count = (try? splitter.avcPictureOrderCount(&counter))?.0
        case .hevc:
            let store = splitter.parameterSets
            if let slice = step.hevcSliceSegmentHeader, let pps = store.hevcPPS[slice.slicePicParameterSetId],
               let sps = store.hevcSPS[pps.parsed.ppsSeqParameterSetId] {
                count = try? counter.pictureOrderCount(slice, sps: sps.parsed)
            }
        }
        guard let count else { return }
        if count.startsCodedVideoSequence || largestPOC == nil {
            largestPOC = count.value
        } else if let largest = largestPOC {
            if count.value < largest { firstReordered = (accessUnit, offset) }
            largestPOC = max(largest, count.value)
        }
    }
}
