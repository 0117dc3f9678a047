import NALU
import NALUMedia

/// Missing parameter sets: a slice before the sets it needs, a set that refers to one never sent.
extension DoctorScan {
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
}
