public import NALU
import NALUMP4
public import NALUMedia

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
    ///   then information, each group in the order found.
    /// - Throws: ``NALUError`` `.io` when reading fails; anything malformed in the stream is a
    ///   finding, not an error.
    public func examine(_ source: MediaSource) throws(NALUError) -> [DoctorFinding] {
        return try NALUError.typed(field: "doctor") {
            let scan = DoctorScan(source: source, doctor: self)
            try scan.run()
            let findings = scan.log.findings
            return findings.filter { $0.severity == .error } + findings.filter { $0.severity == .warning }
                + findings.filter { $0.severity == .information }
        }
    }

    /// `fixed.<the input's extension>`, the output name of the fix command lines.
    var fixedName: String {
        let name = inputName.split(separator: "/").last.map(String.init) ?? inputName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "fixed.h264" }
        return "fixed" + name[dot...]
    }

    /// `nalu edit <input> <options> -o fixed.<ext>` (`output` for another name).
    func editCommand(_ options: String, output: String? = nil) -> String {
        "nalu edit \(Self.quoted(inputName)) \(options) -o \(output ?? fixedName)"
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
    /// An MP4 track's parameter sets of each sample description (index 0: the first), to compare
    /// the in-band sets of the samples that use it with; `[recordStore]` otherwise.
    let recordStores: [ParameterSetStore?]
    /// The sample description of the sample being read (0-based), and the index of the first
    /// access unit that used it.
    var currentDescription = 0
    var descriptionStart = 0
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
    /// The frame rate the last SPS's VUI timing gives, if any.
    var sawVUIRate: Rational?
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
    /// The display size of the SPS checked last (for the colour suggestion).
    var pictureSize: (width: Int, height: Int)?

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
        if let descriptions = source.mp4?.track.sampleDescriptions, descriptions.count > 1 {
            recordStores = descriptions.map { description in
                var store = ParameterSetStore(codec: source.codec)
                for unit in description.record.parameterSets { _ = try? store.add(unit) }
                return store
            }
        } else {
            recordStores = [recordStore]
        }
        for unit in source.outOfBandParameterSets { try? splitter.addParameterSet(unit) }
        containerFrameRate = try? source.containerFrameRate()
        if let colour = source.mp4?.track.sampleDescription.colour {
            containerColourPresent = colour.colourPrimaries != nil
        } else {
            containerColourPresent = false
        }
    }

    /// Adds a finding; findings of one code (and one `key`, when given) are counted as one.
    func add(_ code: DoctorCode, _ message: String, accessUnit: Int?, offset: Int64?, clause: String, fix: String? = nil,
             severity: DoctorSeverity? = nil, key: String? = nil) {
        log.add(DoctorFinding(severity: severity ?? code.defaultSeverity, code: code, message: message, accessUnit: accessUnit,
                              byteOffset: offset, clause: clause, fix: fix), key: key)
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
}
