import NALU
import NALUMP4
import NALUMedia

/// What `nalu doctor` checks in each new sequence parameter set: its level's limits, colour and
/// timing in the VUI, the display size, and the target's profile limits.
extension DoctorScan {
    /// Called after a parameter set went into the splitter: compares it with the sample entry's
    /// copy and checks a new or changed SPS.
    func parameterSetPushed(_ unit: NALUnitView, header: NALUnitHeader) {
        // A parameter set the MP4 reader hands on from a later sample entry (no length prefix)
        // is that entry's, not in band; with avc3/hev1 the stream may update its sets in band,
        // so only the first access unit's must match the record.
        // Each sample's in-band sets are compared with the record of its own sample description
        // (a join of two sizes has one per size), so each description gives its own finding.
        let inBand = unit.prefixLength > 0 || !source.container.isMP4
        let mayUpdate = source.mp4?.track.sampleEntryType.allowsInBandParameterSets == true
        let description = recordStores.indices.contains(currentDescription) ? currentDescription : 0
        if inBand, !mayUpdate || currentIndex == descriptionStart, recordStores.indices.contains(description),
           var probe = recordStores[description], (try? probe.add(unit.array)) == .changed {
            let record = codec == .h264 ? "avcC" : "hvcC"
            let which = recordStores.count > 1 ? " of sample description \(description + 1)" : ""
            add(.recordMismatch, "the in-band \(header.typeName) differs from the one with the same id in the \(record) record\(which): players that use the record decode with other parameters",
                accessUnit: currentIndex, offset: unit.offset, clause: codec == .h264 ? "ISO/IEC 14496-15 5.3.3, 5.4.2" : "ISO/IEC 14496-15 8.3.3, 8.4.1",
                key: "\(description)")
        }
        recordChecked(unit, header: header)
    }

    /// Checks a new or changed SPS once it went into the splitter.
    private func recordChecked(_ unit: NALUnitView, header: NALUnitHeader) {
        let store = splitter.parameterSets
        guard header.typeNumber == (codec == .h264 ? 7 : 33), let id = store.lastSPSId else { return }
        checkSPS(id: id, in: store, accessUnit: currentIndex, offset: unit.offset)
    }

    /// Checks the sample entry's SPSs, found before the first access unit.
    func checkOutOfBandSPS() {
        guard let recordStore else { return }
        let ids = codec == .h264 ? recordStore.avcSPS.keys.sorted() : recordStore.hevcSPS.keys.sorted()
        for id in ids { checkSPS(id: id, in: recordStore, accessUnit: 0, offset: nil) }
    }

    func checkSPS(id: Int, in store: ParameterSetStore, accessUnit: Int, offset: Int64?) {
        switch codec {
        case .h264:
            guard let entry = store.avcSPS[id], checkedSPS[id] != entry.nalUnit else { return }
            checkedSPS[id] = entry.nalUnit
            check(entry.parsed, accessUnit: accessUnit, offset: offset)
        case .hevc:
            guard let entry = store.hevcSPS[id], checkedSPS[id] != entry.nalUnit else { return }
            checkedSPS[id] = entry.nalUnit
            check(entry.parsed, accessUnit: accessUnit, offset: offset)
        }
    }

    func check(_ sps: AVCSequenceParameterSet, accessUnit: Int, offset: Int64?) {
        lastAVCSPS = sps
        let rate = sps.frameRate ?? containerFrameRate
        if let limits = AVCLevelLimits.limits(of: sps) {
            let reasons = LevelCheck.violations(sps, limits, frameRate: rate)
            if !reasons.isEmpty {
                let fit = LevelCheck.lowestLevel(for: sps, frameRate: rate)
                add(.levelExceeded, "level \(limits.name) is too low: " + reasons.joined(separator: "; ") + (fit.map { "; level \($0.name) fits" } ?? ""),
                    accessUnit: accessUnit, offset: offset, clause: "H.264 A.3.1, Table A-1", fix: fit.map { doctor.editCommand("--level \($0.name)") })
            }
        }
        let vui = sps.vuiParameters
        pictureSize = (sps.width, sps.height)
        checkColour(present: vui?.colourDescriptionPresentFlag == true, accessUnit: accessUnit, offset: offset, clause: "H.264 E.2.1")
        if let rate = sps.frameRate { sawVUIRate = rate }
        noteTiming(present: sps.frameRate != nil, accessUnit: accessUnit, offset: offset)
        checkDimensions(width: sps.width, height: sps.height, accessUnit: accessUnit, offset: offset, clause: "H.264 7.4.2.1.1")
        if doctor.target == .broadcast, let vui, vui.timingInfoPresentFlag, !vui.fixedFrameRateFlag {
            add(.variableFrameRate, "fixed_frame_rate_flag is 0: the VUI does not promise a constant frame rate, which broadcast chains expect",
                accessUnit: accessUnit, offset: offset, clause: "H.264 E.2.1", severity: .warning)
        }
        guard let target = doctor.target, target != .broadcast else { return }
        var problems: [String] = []
        if ![66, 77, 100].contains(Int(sps.profileIdc)) { problems.append("profile \(sps.profileName)") }
        if sps.chromaFormatIdc != 1 { problems.append("chroma_format_idc \(sps.chromaFormatIdc) (not 4:2:0)") }
        if sps.bitDepthLuma != 8 || sps.bitDepthChroma != 8 { problems.append("\(sps.bitDepthLuma)-bit samples") }
        if target == .apple && sps.levelIdc > 52 { problems.append("level \(sps.levelName) above 5.2") }
        if !problems.isEmpty {
            let who = target == .apple ? "Apple's H.264 decoders" : "browsers"
            add(.targetUnsupported, "\(who) decode 8-bit 4:2:0 Baseline, Main and High\(target == .apple ? " up to level 5.2" : ""); this stream has " + problems.joined(separator: ", "),
                accessUnit: accessUnit, offset: offset, clause: "H.264 A.2")
        }
    }

    func check(_ sps: HEVCSequenceParameterSet, accessUnit: Int, offset: Int64?) {
        lastHEVCSPS = sps
        let rate = sps.frameRate ?? containerFrameRate
        let ptl = sps.profileTierLevel
        if let limits = HEVCLevelLimits.limits(levelIdc: Int(ptl.generalLevelIdc)) {
            let reasons = LevelCheck.violations(sps, limits, frameRate: rate)
            if !reasons.isEmpty {
                let fit = LevelCheck.lowestLevel(for: sps, frameRate: rate)
                add(.levelExceeded, "level \(limits.name) is too low: " + reasons.joined(separator: "; ") + (fit.map { "; level \($0.name) fits" } ?? ""),
                    accessUnit: accessUnit, offset: offset, clause: "H.265 A.4.1, A.4.2, Tables A.8 and A.9",
                    fix: fit.map { doctor.editCommand("--level \($0.name)") })
            }
        }
        let vui = sps.vuiParameters
        pictureSize = (sps.width, sps.height)
        checkColour(present: vui?.colourDescriptionPresentFlag == true, accessUnit: accessUnit, offset: offset, clause: "H.265 E.3.1")
        if let rate = sps.frameRate { sawVUIRate = rate }
        noteTiming(present: sps.frameRate != nil, accessUnit: accessUnit, offset: offset)
        checkDimensions(width: sps.width, height: sps.height, accessUnit: accessUnit, offset: offset, clause: "H.265 7.4.3.2.1")
        guard let target = doctor.target, target != .broadcast else { return }
        if target == .web {
            add(.targetUnsupported, "HEVC plays only in browsers whose platform decodes it (Safari, Edge and Chrome with hardware support); H.264 plays everywhere",
                accessUnit: accessUnit, offset: offset, clause: "H.265 A.3")
        } else if sps.chromaFormatIdc != 1 || sps.bitDepthLuma > 10 {
            add(.targetUnsupported, "Apple's HEVC decoders take Main and Main 10 (4:2:0, up to 10 bits); this stream is \(sps.profileName), chroma_format_idc \(sps.chromaFormatIdc), \(sps.bitDepthLuma)-bit",
                accessUnit: accessUnit, offset: offset, clause: "H.265 A.3.2, A.3.3")
        }
    }

    func checkColour(present: Bool, accessUnit: Int, offset: Int64?, clause: String) {
        guard !present, containerColourPresent == false else { return }
        add(.noVUIColour, "the VUI has no colour description (colour_primaries, transfer_characteristics, matrix_coefficients): players guess, often differently for SD and HD",
            accessUnit: accessUnit, offset: offset, clause: clause, fix: doctor.editCommand(colourSuggestion))
    }

    /// The colour description to write for the stream's size, as players guess it when none is
    /// given: HD (720 lines or 1280 columns and more) ITU-R BT.709; SD ITU-R BT.601 — the
    /// 625-line (576/288-line, PAL) primaries and matrix `bt470bg`, the 525-line and other SD
    /// sizes (480 lines, 640x360) `smpte170m` — with the BT.601 transfer (`smpte170m`).
    var colourSuggestion: String {
        let (width, height) = pictureSize ?? (1920, 1080)
        guard height < 720 && width < 1280 else { return "--color-primaries bt709 --color-transfer bt709 --color-space bt709" }
        let pal = height == 576 || height == 288
        let system = pal ? "bt470bg" : "smpte170m"
        return "--color-primaries \(system) --color-transfer smpte170m --color-space \(system)"
    }

    func noteTiming(present: Bool, accessUnit: Int, offset: Int64?) {
        if present {
            sawVUITiming = true
        } else if firstSPSWithoutTiming == nil {
            firstSPSWithoutTiming = (accessUnit, offset)
        }
    }

    func checkDimensions(width: Int, height: Int, accessUnit: Int, offset: Int64?, clause: String) {
        guard width % 2 != 0 || height % 2 != 0 else { return }
        add(.oddDimensions, "the display size \(width)x\(height) is odd: 4:2:0 conversion, many hardware decoders and muxers need even sizes",
            accessUnit: accessUnit, offset: offset, clause: clause)
    }
}
