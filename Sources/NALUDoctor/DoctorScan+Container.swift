import NALU
import NALUMP4
import NALUMedia

/// What an MP4 track's timing has shown so far (bounded: the last few presentation times).
struct ContainerTiming {
    var lastDTS: Int64?
    /// The sample being read (an MP4 sample is an access unit).
    var lastSample: MP4Sample?
    /// The presentation times of the last samples, in a fixed ring (a duplicate farther back
    /// than any stream reorders is not looked for).
    var recentPTS = [Int64?](repeating: nil, count: 32)
    var next = 0
    var anyCompositionOffset = false
    var firstDuration: UInt32?
    /// A sample whose duration differs from the first's: variable frame rate once another
    /// sample follows it (the last sample's duration is often a guess).
    var durationChange: MP4Sample?
    var confirmedDurationChange: MP4Sample?
    /// Samples and their summed durations, and the shortest and longest duration of every
    /// sample but the last (the last's is often a guess): the average rate of a variable one.
    var samples: Int64 = 0
    var totalDuration: Int64 = 0
    var pendingDuration: UInt32?
    var shortest: UInt32?
    var longest: UInt32?
}

/// The container's checks: the sample entry type, and each sample's timing.
extension DoctorScan {
    func containerChecks() {
        guard let mp4 = source.mp4 else { return }
        if !mp4.track.isFragmented, let edit = mp4.track.editList.last, edit.segmentDuration == 0, edit.mediaTime >= 0 {
            add(.zeroLengthEdit, "the video track's last edit shows media from \(edit.mediaTime) for no time (segment_duration 0): players show no picture (in a fragmented movie 0 means \"to the end\", in a progressive one it does not)",
                accessUnit: nil, offset: nil, clause: "ISO/IEC 14496-12 8.6.6.3", fix: "nalu convert \(Doctor.quoted(doctor.inputName)) -o \(doctor.fixedName)")
        }
        if mp4.track.sampleEntryType == .hev1 {
            let apple = doctor.target == .apple
            add(.hev1SampleEntry, "the HEVC track's sample entry is hev1 (parameter sets may be in band); Apple players (QuickTime, Safari, AVFoundation, iOS) play only hvc1",
                accessUnit: nil, offset: nil, clause: "ISO/IEC 14496-15 8.4.1", fix: "nalu convert \(Doctor.quoted(doctor.inputName)) --sample-entry hvc1 -o \(doctor.fixedName)",
                severity: apple ? .error : .warning)
        }
    }

    /// Checks one MP4 sample's timestamps: decoding times strictly increase (ISO/IEC 14496-12
    /// 8.6.1.2: `sample_delta` 0 repeats a time), no two samples share a presentation time.
    func sample(_ sample: MP4Sample) {
        timing.lastSample = sample
        let description = max(0, sample.sampleDescriptionIndex - 1)
        if description != currentDescription {
            currentDescription = description
            descriptionStart = sample.index
        }
        timing.samples += 1
        timing.totalDuration &+= Int64(sample.duration)
        if let previous = timing.pendingDuration {
            timing.shortest = min(timing.shortest ?? previous, previous)
            timing.longest = max(timing.longest ?? previous, previous)
        }
        timing.pendingDuration = sample.duration
        if let last = timing.lastDTS, sample.dts <= last {
            add(.nonMonotonicTimestamps, "sample \(sample.index) decodes at \(sample.dts), not after the previous sample's \(last)",
                accessUnit: sample.index, offset: sample.offset, clause: "ISO/IEC 14496-12 8.6.1.2")
        }
        if timing.recentPTS.contains(sample.pts) {
            add(.nonMonotonicTimestamps, "sample \(sample.index) has composition time \(sample.pts), the time of an earlier sample: presentation times repeat",
                accessUnit: sample.index, offset: sample.offset, clause: "ISO/IEC 14496-12 8.6.1.1, 8.6.1.3")
        }
        timing.recentPTS[timing.next] = sample.pts
        timing.next = (timing.next + 1) % timing.recentPTS.count
        timing.lastDTS = sample.dts
        if sample.pts != sample.dts { timing.anyCompositionOffset = true }
        if let pending = timing.durationChange, timing.confirmedDurationChange == nil {
            timing.confirmedDurationChange = pending
        }
        if let first = timing.firstDuration {
            if sample.duration != first && timing.durationChange == nil { timing.durationChange = sample }
        } else {
            timing.firstDuration = sample.duration
        }
    }

    /// Checks that need the whole stream.
    func endChecks() {
        checkBitRate()
        if !sawVUITiming, !source.container.isMP4, let first = firstSPSWithoutTiming {
            add(.noTiming, "neither the VUI (timing_info_present_flag) nor the container gives a frame rate: players and muxers guess (often 25 fps)",
                accessUnit: first.accessUnit, offset: first.offset, clause: codec == .h264 ? "H.264 E.2.1" : "H.265 E.3.1",
                fix: doctor.editCommand("--fps 25"))
        }
        if source.container.isMP4, !timing.anyCompositionOffset, let reordered = firstReordered {
            let ext = codec == .h264 ? "h264" : "h265"
            let rate = containerFrameRate.map { " --fps \(LevelCheck.rateText($0))" } ?? ""
            // The fix goes through Annex-B, which holds no audio: said, so it runs (exit 0).
            let audio = source.otherTracks.contains { $0.handler == "soun" } ? " --no-audio" : ""
            add(.bFramesWithoutCtts, "pictures are reordered (B-frames) but the track has no composition offsets (ctts): every frame is shown at its decoding time, out of order",
                accessUnit: reordered.accessUnit, offset: reordered.offset, clause: "ISO/IEC 14496-12 8.6.1.3",
                fix: "nalu convert \(Doctor.quoted(doctor.inputName)) --to annexb\(audio) -o fixed.\(ext) && nalu convert fixed.\(ext)\(rate) -o \(doctor.fixedName)")
        }
        variableFrameRateCheck()
    }

    /// An MP4 track whose sample durations differ (the last sample's aside) has a variable frame
    /// rate: reported as information with its average rate (samples over their summed durations)
    /// and the range of frame durations, as the VUI's `time_scale`/`num_units_in_tick` is at best
    /// a ceiling then; `--target broadcast`, which expects a constant rate, makes it a warning.
    func variableFrameRateCheck() {
        guard let mp4 = source.mp4, let shortest = timing.shortest, let longest = timing.longest, shortest != longest,
              timing.totalDuration > 0, timing.samples > 1 else { return }
        let scale = Double(mp4.track.timescale)
        let average = Double(timing.samples) * scale / Double(timing.totalDuration)
        let vui = sawVUIRate.map { "; the SPS VUI's \(LevelCheck.rateText($0)) fps is only a ceiling" } ?? ""
        let change = timing.confirmedDurationChange
        add(.variableFrameRate,
            "variable frame rate: \(Self.rateText(average)) fps on average over \(timing.samples) pictures, frame durations \(shortest)–\(longest) ticks of 1/\(mp4.track.timescale) s (\(Self.rateText(scale / Double(longest)))–\(Self.rateText(scale / Double(shortest))) fps)\(vui)",
            accessUnit: change?.index, offset: change?.offset, clause: "ISO/IEC 14496-12 8.6.1.2",
            severity: doctor.target == .broadcast ? .warning : .information)
    }

    /// `37.5`, `29.97`, `60`: a rate with at most two decimals.
    static func rateText(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, hundredths >= 0, hundredths < 1e12 else { return "?" }
        let whole = Int64(hundredths) / 100, fraction = Int64(hundredths) % 100
        if fraction == 0 { return "\(whole)" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
