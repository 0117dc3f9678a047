import NALU
import NALUMedia

/// What `nalu doctor` checks per access unit and picture: delimiters, the first picture, reordering.
extension DoctorScan {
    func completed(_ summary: AccessUnitSummary, skipped: Bool) {
        let index = summary.index + skippedPictures
        lastAccessUnit = (summary, index, skipped)
        if doctor.target == .broadcast, !summary.hasAccessUnitDelimiter {
            add(.missingAUD, "access units do not start with an access unit delimiter, which MPEG-2 transport streams (broadcast, HLS) require",
                accessUnit: index, offset: summary.offset, clause: "ITU-T H.222.0 2.14.1 (AVC), 2.17.1 (HEVC)", fix: audFix)
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

extension DoctorScan {
    /// The command that gives every access unit a delimiter: `nalu edit --aud insert`, which
    /// writes Annex-B or MPEG-TS: an MP4's fix is the transport stream the finding is about
    /// (`fixed.ts`, its AAC carried), a length-prefixed stream's an Annex-B one.
    var audFix: String {
        switch source.container {
        case .mp4: doctor.editCommand("--aud insert", output: "fixed.ts")
        case .lengthPrefixed: doctor.editCommand("--aud insert --to annexb", output: codec == .h264 ? "fixed.h264" : "fixed.h265")
        case .annexB, .transportStream: doctor.editCommand("--aud insert")
        }
    }
}
