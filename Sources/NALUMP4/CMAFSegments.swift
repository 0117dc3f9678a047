public import NALU

/// One sample of a CMAF fragment (ISO/IEC 23000-19 7.3.2.3): what its `trun` entry says
/// (ISO/IEC 14496-12 8.8.8).
public struct CMAFSample: Hashable, Sendable {
    /// Bytes of the sample in the `mdat`.
    public var size: UInt32
    /// Decoding duration in the track's timescale.
    public var duration: UInt32
    /// Presentation time − decoding time (signed: `trun` version 1).
    public var compositionOffset: Int64
    /// Whether it is a sync sample (`sample_depends_on` 2); otherwise it is marked non-sync.
    public var isSync: Bool

    public init(size: UInt32, duration: UInt32, compositionOffset: Int64, isSync: Bool) {
        self.size = size
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
    }
}

/// The boxes of CMAF headers and segments (ISO/IEC 23000-19 7.3; ISO/IEC 14496-12 8.8), built
/// with the writers ``MP4Writer`` uses for its fragmented layout: a CMAF header (`ftyp` with the
/// `cmfc` brand, `moov` with `mvex`/`trex` and empty sample tables) and a CMAF segment of one
/// fragment (`styp`, `moof` with `mfhd` and one `traf` of `tfhd`, `tfdt`, `trun` version 1,
/// then the `mdat` header; the caller writes the sample data after it).
public enum CMAFBoxes {
    /// `ftyp` of a CMAF header (ISO/IEC 23000-19 7.2): `iso6` with `cmfc` among its brands.
    static func fileType(codecBrand: FourCC?) -> [UInt8] {
        var builder = BoxBuilder()
        builder.box(.ftyp) { box in
            box.fourCC("iso6")
            box.u32(0)
            var brands: [FourCC] = ["iso6", "cmfc", "iso5", "dash"]
            if let codecBrand { brands.append(codecBrand) }
            brands.append("mp41")
            for brand in brands { box.fourCC(brand) }
        }
        return builder.bytes
    }

    /// The CMAF header of a video track (track_ID 1): `ftyp` and a `moov` with one
    /// `VisualSampleEntry` of `sampleEntry` holding `record` (ISO/IEC 14496-15 5.4, 8.4), the
    /// track's `editList` written verbatim (ISO/IEC 14496-12 8.6.6; durations in
    /// `movieTimescale`), `mvex`, and the source's `metadata` (the video track's display matrix,
    /// so a portrait clip plays upright; creation times; user data), when given.
    public static func videoHeader(sampleEntry: MP4SampleEntryType, record: [UInt8], width: Int, height: Int, timescale: UInt32,
                                   movieTimescale: UInt32? = nil, editList: [MP4EditListEntry]? = nil,
                                   metadata: MP4MovieMetadata? = nil) -> [UInt8] {
        var metadata = metadata
        metadata?.quickTime = false
        let movie = MovieDescription(sampleEntry: sampleEntry, record: record, width: width, height: height, timescale: timescale,
                                     movieTimescale: movieTimescale ?? timescale, duration: 0, editMediaTime: nil,
                                     editList: editList ?? [], fragmented: true, metadata: metadata)
        return fileType(codecBrand: sampleEntry.codec == .h264 ? "avc1" : "hvc1")
            + movie.movie { stbl, _ in MP4Writer<MemorySink>.emptyTables(&stbl) }
    }

    /// The CMAF header of a track copied from an input (audio: `mp4a` with its `esds`), as
    /// track_ID 2: `ftyp`, `moov` with `mvhd`, the track's `trak` (its sample entries and edit
    /// list byte for byte, empty sample tables) and `mvex`.
    public static func passthroughHeader(_ track: MP4PassthroughTrack, movieTimescale: UInt32) -> [UInt8] {
        let movie = MovieDescription(sampleEntry: .avc1, record: [], width: 0, height: 0, timescale: track.timescale,
                                     movieTimescale: movieTimescale, duration: 0, editMediaTime: nil,
                                     fragmented: true, passthrough: [(track, 0)])
        var builder = BoxBuilder(capacity: 1024)
        builder.box(.moov) { moov in
            // 8.2.2 Movie Header Box.
            moov.fullBox(.mvhd) { box in
                box.zeros(8)
                box.u32(movieTimescale)
                box.u32(0)
                box.u32(0x0001_0000)
                box.u16(0x0100)
                box.zeros(10)
                box.unityMatrix()
                box.zeros(24)
                box.u32(3)  // next_track_ID
            }
            movie.passthroughTrack(0, into: &moov) { stbl, _ in MP4Writer<MemorySink>.emptyTables(&stbl) }
            moov.box(.mvex) { mvex in
                mvex.fullBox(.trex) { box in
                    box.u32(2)
                    box.u32(1)
                    box.zeros(12)
                }
            }
        }
        return fileType(codecBrand: nil) + builder.bytes
    }

    /// What precedes the sample data of a CMAF segment of one fragment: `styp` (8.16.2, brands
    /// `msdh`, `msix`, `cmfs`), `moof` (8.8.4) with `mfhd` (`sequenceNumber`) and a `traf` of
    /// `trackID` starting at `baseMediaDecodeTime` (`tfdt` version 1) whose `trun` (version 1)
    /// lists `samples`, and the `mdat` header for their bytes. The caller writes the samples'
    /// bytes, in order, after it. Without `segmentType` the `styp` is left out: a CMAF chunk
    /// (ISO/IEC 23000-19 7.3.2.3) that continues a segment, as an LL-HLS part after the first is.
    /// `randomAccessLeadingSamples` adds to the `traf` a `rap ` sample group (ISO/IEC 14496-12
    /// 10.4) holding the first sample (``randomAccessGroup(leadingSamples:)``).
    /// - Throws: ``NALUError`` `.tooLarge` when a composition offset does not fit 32 bits.
    public static func segmentHeader(sequenceNumber: UInt32, trackID: UInt32, baseMediaDecodeTime: UInt64,
                                     samples: [CMAFSample], segmentType: Bool = true,
                                     randomAccessLeadingSamples: Int? = nil) throws(NALUError) -> [UInt8] {
        var payload: Int64 = 0
        for (index, sample) in samples.enumerated() {
            payload += Int64(sample.size)
            guard sample.compositionOffset >= Int64(Int32.min), sample.compositionOffset <= Int64(Int32.max) else {
                throw NALUError(.tooLarge, field: "sample_composition_time_offset",
                                detail: "sample \(index): \(sample.compositionOffset) ticks does not fit 32 bits")
            }
        }
        var styp = BoxBuilder(capacity: 32)
        styp.box("styp") { box in
            box.fourCC("msdh")
            box.u32(0)
            for brand: FourCC in ["msdh", "msix", "cmfs"] { box.fourCC(brand) }
        }
        var builder = BoxBuilder(capacity: 96 + 16 * samples.count)
        var patch = 0
        builder.box(.moof) { moof in
            moof.fullBox(.mfhd) { box in box.u32(sequenceNumber) }
            patch = MP4Writer<MemorySink>.trackFragment(&moof, trackID: trackID, startTime: baseMediaDecodeTime,
                                                        samples: samples.map { ($0.size, $0.duration, $0.compositionOffset, $0.isSync) })
        }
        var moof = builder.bytes
        if let randomAccessLeadingSamples { appendToTrackFragment(&moof, randomAccessGroup(leadingSamples: randomAccessLeadingSamples)) }
        let header = MP4Writer<MemorySink>.mediaDataHeader(payload: payload)
        let dataOffset = UInt32(truncatingIfNeeded: moof.count + header.count)
        moof.replaceSubrange(patch..<(patch + 4), with: [UInt8(dataOffset >> 24), UInt8((dataOffset >> 16) & 0xFF),
                                                          UInt8((dataOffset >> 8) & 0xFF), UInt8(dataOffset & 0xFF)])
        return (segmentType ? styp.bytes : []) + moof + header
    }

    /// A segment index box (`sidx` version 1, ISO/IEC 14496-12 8.16.3) of `references`, one
    /// media reference (type 0) each, in order: its size in bytes, its duration in `timescale`
    /// ticks and whether it starts with a SAP of type 1. `first_offset` is 0: the first
    /// referenced segment follows the box. At most 65535 references (`reference_count`).
    public static func segmentIndex(referenceID: UInt32, timescale: UInt32, earliestPresentationTime: UInt64,
                                    references: [(size: UInt32, duration: UInt32, startsWithSAP: Bool)]) -> [UInt8] {
        var builder = BoxBuilder(capacity: 40 + 12 * references.count)
        builder.fullBox("sidx", version: 1) { box in
            box.u32(referenceID)
            box.u32(timescale)
            box.u64(earliestPresentationTime)
            box.u64(0)
            box.u16(0)
            box.u16(UInt16(truncatingIfNeeded: references.count))
            for reference in references {
                box.u32(reference.size & 0x7FFF_FFFF)
                box.u32(reference.duration)
                box.u32(reference.startsWithSAP ? 0x9000_0000 : 0)
            }
        }
        return builder.bytes
    }
}
