import NALU

/// `trex` (ISO/IEC 14496-12 8.8.3 "Track Extends Box"): the defaults fragments of one track use.
struct TrackExtends: Sendable {
    var trackID: UInt32
    var defaultSampleDescriptionIndex: UInt32
    var defaultSampleDuration: UInt32
    var defaultSampleSize: UInt32
    var defaultSampleFlags: UInt32
    /// File offset of `default_sample_description_index` (0 for the implicit defaults).
    var defaultSampleDescriptionIndexOffset: Int64 = 0

    init(_ box: MP4BoxHeader, in source: some RandomAccessByteSource) throws(NALUError) {
        var reader = try MP4BoxPayloadReader(box, in: source, limit: 4096)
        _ = try reader.fullBoxHeader()
        trackID = try reader.u32("track_ID")
        defaultSampleDescriptionIndexOffset = reader.fileOffset
        defaultSampleDescriptionIndex = try reader.u32("default_sample_description_index")
        defaultSampleDuration = try reader.u32("default_sample_duration")
        defaultSampleSize = try reader.u32("default_sample_size")
        defaultSampleFlags = try reader.u32("default_sample_flags")
    }

    init(trackID: UInt32) {
        self.trackID = trackID
        defaultSampleDescriptionIndex = 1
        defaultSampleDuration = 0
        defaultSampleSize = 0
        defaultSampleFlags = 0
    }
}

/// Sample flags (ISO/IEC 14496-12 8.8.3.1): a sample is a sync sample unless
/// `sample_is_non_sync_sample` is set or `sample_depends_on` is 1 (it depends on others), the
/// rule FFmpeg applies too.
enum SampleFlags {
    static let isNonSync: UInt32 = 0x0001_0000
    static let dependsOnMask: UInt32 = 0x0300_0000
    static let dependsOnOthers: UInt32 = 0x0100_0000

    static func isSync(_ flags: UInt32) -> Bool {
        flags & isNonSync == 0 && flags & dependsOnMask != dependsOnOthers
    }
}

/// One track run (`trun`, ISO/IEC 14496-12 8.8.8) of the video track, with the defaults that
/// complete it (`tfhd` 8.8.7, then `trex`), resolved to file offsets.
struct TrackRun: Sendable {
    /// Per-sample fields, as present: duration, size, flags, composition offset.
    let entries: BigEndianTable
    let sampleCount: Int
    let durationField: Int?
    let sizeField: Int?
    let flagsField: Int?
    let compositionField: Int?
    let firstSampleFlags: UInt32?
    let defaultDuration: UInt32
    let defaultSize: UInt32
    let defaultFlags: UInt32
    let sampleDescriptionIndex: Int
    /// File offset of the first sample's data.
    let dataOffset: Int64
    /// `tfdt.baseMediaDecodeTime` when this is the first run of a track fragment that has one.
    let baseMediaDecodeTime: Int64?

    func duration(_ index: Int) -> UInt32 { durationField.map { entries.u32(index, field: $0) } ?? defaultDuration }
    func size(_ index: Int) -> UInt32 { sizeField.map { entries.u32(index, field: $0) } ?? defaultSize }
    func flags(_ index: Int) -> UInt32 {
        if let flagsField { return entries.u32(index, field: flagsField) }
        if index == 0, let firstSampleFlags { return firstSampleFlags }
        return defaultFlags
    }
    /// Read as signed in both versions (version 0 values above 2^31 do not occur in practice; FFmpeg does the same).
    func compositionOffset(_ index: Int) -> Int32 {
        compositionField.map { Int32(bitPattern: entries.u32(index, field: $0)) } ?? 0
    }
}

/// The runs of one movie fragment (`moof`, ISO/IEC 14496-12 8.8.4) that belong to one track.
enum MovieFragment {
    private static let tfhdBaseDataOffset: UInt32 = 0x1
    private static let tfhdSampleDescriptionIndex: UInt32 = 0x2
    private static let tfhdDefaultDuration: UInt32 = 0x8
    private static let tfhdDefaultSize: UInt32 = 0x10
    private static let tfhdDefaultFlags: UInt32 = 0x20
    private static let tfhdDefaultBaseIsMoof: UInt32 = 0x20000

    private static let trunDataOffset: UInt32 = 0x1
    private static let trunFirstSampleFlags: UInt32 = 0x4
    private static let trunDuration: UInt32 = 0x100
    private static let trunSize: UInt32 = 0x200
    private static let trunFlags: UInt32 = 0x400
    private static let trunCompositionOffset: UInt32 = 0x800

    /// Parses `moof` and returns the runs of track `trackID`, in order. Every `traf` is read, as
    /// the implicit base data offset of one track fragment is the end of the previous one's data
    /// (8.8.7.1), whatever its track. The runs of track `trackID` must name one of its
    /// `sampleDescriptionCount` sample entries (`tfhd`'s or `trex`'s `sample_description_index`).
    ///
    /// `sampleBudget` is how many more samples the file's runs may declare, of every track: the
    /// caller starts it at the file size, as a sample that holds a NAL unit takes at least one
    /// byte. Samples of a default size of 0 take none, so without it each `trun` could declare
    /// file-size samples and reading would be quadratic in the file size.
    static func runs(of moof: MP4BoxHeader, trackID: UInt32, sampleDescriptionCount: Int, extends: [UInt32: TrackExtends],
                     in source: some RandomAccessByteSource, fileSize: Int64, sampleBudget: inout Int64) throws(NALUError) -> [TrackRun] {
        var runs: [TrackRun] = []
        // The end of the previous track fragment's data: the base of one without its own.
        var implicitOffset = moof.offset
        for traf in try MP4BoxHeader.children(of: moof, in: source, depth: 1) where traf.type == .traf {
            let children = try MP4BoxHeader.children(of: traf, in: source, depth: 2)
            guard let tfhdBox = children.first(where: { $0.type == .tfhd }) else {
                throw NALUError(.missing, field: "tfhd", byteOffset: traf.offset, detail: "traf without tfhd")
            }
            var tfhd = try MP4BoxPayloadReader(tfhdBox, in: source, limit: 4096)
            let flags = try tfhd.fullBoxHeader().flags
            let fragmentTrack = try tfhd.u32("track_ID")
            let trex = extends[fragmentTrack] ?? TrackExtends(trackID: fragmentTrack)
            var base: Int64
            if flags & tfhdBaseDataOffset != 0 {
                let offsetPosition = tfhd.position
                let value = try tfhd.u64("base_data_offset")
                guard value <= UInt64(fileSize) else {
                    throw tfhd.error(.lengthPastEnd, "base_data_offset", at: offsetPosition, "\(value), past the \(fileSize)-byte file")
                }
                base = Int64(value)
            } else if flags & tfhdDefaultBaseIsMoof != 0 {
                base = moof.offset
            } else {
                base = implicitOffset
            }
            let inTFHD = flags & tfhdSampleDescriptionIndex != 0
            let descriptionOffset = inTFHD ? tfhd.fileOffset : trex.defaultSampleDescriptionIndexOffset
            let descriptionIndex = inTFHD ? try tfhd.u32("sample_description_index") : trex.defaultSampleDescriptionIndex
            if fragmentTrack == trackID, descriptionIndex < 1 || descriptionIndex > sampleDescriptionCount {
                throw NALUError(.invalidValue, field: inTFHD ? "tfhd.sample_description_index" : "trex.default_sample_description_index",
                                byteOffset: descriptionOffset,
                                detail: "\(descriptionIndex), but stsd has \(sampleDescriptionCount) sample \(sampleDescriptionCount == 1 ? "entry" : "entries")")
            }
            let duration = flags & tfhdDefaultDuration != 0 ? try tfhd.u32("default_sample_duration") : trex.defaultSampleDuration
            let size = flags & tfhdDefaultSize != 0 ? try tfhd.u32("default_sample_size") : trex.defaultSampleSize
            let sampleFlags = flags & tfhdDefaultFlags != 0 ? try tfhd.u32("default_sample_flags") : trex.defaultSampleFlags

            var decodeTime: Int64?
            if let tfdtBox = children.first(where: { $0.type == .tfdt }) {
                var tfdt = try MP4BoxPayloadReader(tfdtBox, in: source, limit: 4096)
                let version = try tfdt.fullBoxHeader().version
                let timePosition = tfdt.position
                let time = version == 1 ? try tfdt.u64("baseMediaDecodeTime") : UInt64(try tfdt.u32("baseMediaDecodeTime"))
                guard time <= UInt64(Int64.max) else {
                    throw tfdt.error(.invalidValue, "baseMediaDecodeTime", at: timePosition, "\(time) does not fit a signed 64-bit time")
                }
                decodeTime = Int64(time)
            }

            var nextData = base
            var firstRun = true
            for box in children where box.type == .trun {
                var trun = try MP4BoxPayloadReader(box, in: source, limit: 1 << 28)
                let runFlags = try trun.fullBoxHeader().flags
                let countPosition = trun.position
                let count = Int(try trun.u32("sample_count"))
                var dataOffset = nextData
                if runFlags & trunDataOffset != 0 {
                    let delta = try trun.i32("data_offset")
                    let (value, overflow) = base.addingReportingOverflow(Int64(delta))
                    guard !overflow, value >= 0, value <= fileSize else {
                        throw trun.error(.lengthPastEnd, "data_offset", at: trun.position - 4,
                                         "base \(base) + \(delta) is outside the \(fileSize)-byte file")
                    }
                    dataOffset = value
                }
                let firstFlags = runFlags & trunFirstSampleFlags != 0 ? try trun.u32("first_sample_flags") : nil
                var stride = 0
                var fields: [Int?] = []
                for bit in [trunDuration, trunSize, trunFlags, trunCompositionOffset] {
                    if runFlags & bit != 0 {
                        fields.append(stride)
                        stride += 4
                    } else {
                        fields.append(nil)
                    }
                }
                if stride > 0 {
                    let (needed, overflow) = count.multipliedReportingOverflow(by: stride)
                    guard !overflow, needed <= trun.remaining else {
                        throw trun.error(.lengthPastEnd, "sample_count", at: countPosition,
                                         "\(count) samples of \(stride) bytes, \(trun.remaining) bytes left in the box")
                    }
                } else {
                    // Every sample takes the default size: they cannot hold more than the file.
                    guard Int64(count) <= fileSize / Int64(max(1, size)) else {
                        throw trun.error(.invalidValue, "sample_count", at: countPosition,
                                         "\(count) samples of \(size) bytes exceed the \(fileSize)-byte file")
                    }
                }
                guard Int64(count) <= sampleBudget else {
                    throw trun.error(.tooLarge, "sample_count", at: countPosition,
                                     "\(count) more samples: the file's runs declare more samples than its \(fileSize) bytes")
                }
                sampleBudget -= Int64(count)
                let entries = try BigEndianTable(&trun, count: count, stride: max(stride, 0), field: "sample")
                let run = TrackRun(entries: entries, sampleCount: count, durationField: fields[0], sizeField: fields[1],
                                   flagsField: fields[2], compositionField: fields[3], firstSampleFlags: firstFlags,
                                   defaultDuration: duration, defaultSize: size, defaultFlags: sampleFlags,
                                   sampleDescriptionIndex: Int(descriptionIndex), dataOffset: dataOffset,
                                   baseMediaDecodeTime: firstRun ? decodeTime : nil)
                // The end of this run's data.
                var end = dataOffset
                for index in 0..<count {
                    let (sum, overflow) = end.addingReportingOverflow(Int64(run.size(index)))
                    guard !overflow else {
                        throw trun.error(.invalidValue, "sample_size", "sizes overflow a 64-bit offset")
                    }
                    end = sum
                }
                nextData = end
                if fragmentTrack == trackID { runs.append(run) }
                firstRun = false
            }
            implicitOffset = nextData
        }
        return runs
    }
}
