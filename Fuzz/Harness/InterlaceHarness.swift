// Interlace detection (issue 41 item 15): InterlaceDetector over arbitrary NAL unit sequences of
// either codec (the first byte picks the codec; the rest is an Annex-B stream). Properties: it
// decides at the first slice (H.264 nal_unit_type 1 or 5, any H.265 VCL type) and never before;
// ffprobe's field order name is H.264's only, one of tt/bb/progressive, and agrees with the
// interlacing found; H.264 interlacing is always interleaved frames.
import NALU

enum InterlaceHarness {
    static func run(_ all: [UInt8]) throws(FuzzPropertyViolation) {
        guard let first = all.first else { return }
        let codec: Codec = first & 1 == 0 ? .h264 : .hevc
        let bytes = Array(all.dropFirst())
        var detector = InterlaceDetector(codec: codec)
        var early = false
        var undecided = false
        bytes.withUnsafeBytes { buffer in
            AnnexB.forEachNALUnit(in: buffer) { range in
                guard !detector.isDone, !range.isEmpty else { return }
                let unit = Array(buffer[range])
                let isSlice: Bool
                switch codec {
                case .h264:
                    let type = (try? AVCNALUnitHeader(unit).nalUnitType) ?? .unspecified
                    isSlice = type == .nonIDRSlice || type == .idrSlice
                case .hevc:
                    isSlice = (try? HEVCNALUnitHeader(unit).nalUnitType.isVCL) ?? false
                }
                detector.add(unit[...])
                if !isSlice && detector.isDone { early = true }
                if isSlice && !detector.isDone { undecided = true }
            }
        }
        try fuzzCheck(!early, "decided before the first slice")
        try fuzzCheck(!undecided, "a slice left it undecided")
        try fuzzCheck(detector.isDone || detector.interlace == nil, "interlacing found before a slice")
        if let name = detector.avcFieldOrderName {
            try fuzzCheck(codec == .h264 && ["tt", "bb", "progressive"].contains(name), "field order name \(name) for \(codec)")
            try fuzzCheck((detector.interlace?.fieldOrder.rawValue ?? "progressive") == name, "\(name) against \(String(describing: detector.interlace))")
        }
        if codec == .h264, let interlace = detector.interlace {
            try fuzzCheck(interlace.layout == .interleavedFrames, "H.264 \(interlace)")
        }
    }
}
