import NALU

/// Builds box bytes (ISO/IEC 14496-12 4.2) with big-endian fields.
struct BoxBuilder {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(value & 0xFF)) }
    mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(value >> 24)); bytes.append(UInt8((value >> 16) & 0xFF))
        bytes.append(UInt8((value >> 8) & 0xFF)); bytes.append(UInt8(value & 0xFF))
    }
    mutating func u64(_ value: UInt64) { u32(UInt32(value >> 32)); u32(UInt32(value & 0xFFFF_FFFF)) }
    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func fourCC(_ value: FourCC) { u32(value.rawValue) }
    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }
    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    /// Appends a box of `type` whose payload `body` writes; its 32-bit size is patched after.
    mutating func box(_ type: FourCC, _ body: (inout BoxBuilder) -> Void) {
        let start = bytes.count
        u32(0)
        fourCC(type)
        body(&self)
        patchSize(at: start)
    }

    /// Appends a full box (version and flags first).
    mutating func fullBox(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout BoxBuilder) -> Void) {
        box(type) { builder in
            builder.u32(UInt32(version) << 24 | flags & 0x00FF_FFFF)
            body(&builder)
        }
    }

    private mutating func patchSize(at start: Int) {
        let size = UInt32(truncatingIfNeeded: bytes.count - start)
        bytes[start] = UInt8(size >> 24)
        bytes[start + 1] = UInt8((size >> 16) & 0xFF)
        bytes[start + 2] = UInt8((size >> 8) & 0xFF)
        bytes[start + 3] = UInt8(size & 0xFF)
    }

    /// The unity transformation matrix of `mvhd` and `tkhd` (ISO/IEC 14496-12 8.2.2.2).
    mutating func unityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { u32(value) }
    }
}

/// One sample entry's decoder configuration record and picture size.
struct MP4SampleDescriptionEntry {
    var record: [UInt8]
    var width: Int
    var height: Int
}

/// What the `moov` box of a one-video-track movie says (ISO/IEC 14496-12 8.2–8.7).
struct MovieDescription {
    var sampleEntry: MP4SampleEntryType
    var record: [UInt8]
    var width: Int
    var height: Int
    /// Sample entries after the first (new records after a parameter-set change), each with
    /// its record and picture size.
    var laterEntries: [MP4SampleDescriptionEntry] = []
    var timescale: UInt32
    /// Ticks per second of `mvhd` and edit durations.
    var movieTimescale: UInt32 = 1000
    /// Media duration in `timescale` units.
    var duration: UInt64
    /// `media_time` of a one-entry edit list, or `nil` for none.
    var editMediaTime: Int64?
    /// An edit list written as given instead (``MP4WriterConfiguration/editList``).
    var editList: [MP4EditListEntry]? = nil
    var fragmented: Bool

    /// `duration` in the movie timescale, rounded up.
    var movieDuration: UInt64 {
        let (product, overflow) = duration.multipliedReportingOverflow(by: UInt64(movieTimescale))
        if overflow { return duration / UInt64(max(1, timescale)) * UInt64(movieTimescale) }
        return (product + UInt64(timescale) - 1) / UInt64(max(1, timescale))
    }

    /// `ftyp` (4.3): `isom` with the brands players look for.
    func fileType() -> [UInt8] {
        var builder = BoxBuilder()
        builder.box(.ftyp) { box in
            box.fourCC("isom")
            box.u32(0x200)
            var brands: [FourCC] = ["isom", "iso2"]
            if fragmented { brands.append("iso6") }
            brands.append(sampleEntry.codec == .h264 ? "avc1" : "hvc1")
            brands.append("mp41")
            for brand in brands { box.fourCC(brand) }
        }
        return builder.bytes
    }

    /// `moov` with `tables` (the `stbl` boxes after `stsd`) written by `sampleTables`.
    func movie(sampleTables: (inout BoxBuilder) -> Void) -> [UInt8] {
        var builder = BoxBuilder(capacity: 4096)
        let movieDuration = fragmented ? 0 : self.movieDuration
        let wide = movieDuration > UInt64(UInt32.max) || duration > UInt64(UInt32.max)
        builder.box(.moov) { moov in
            // 8.2.2 Movie Header Box.
            moov.fullBox(.mvhd, version: wide ? 1 : 0) { box in
                if wide { box.zeros(16) } else { box.zeros(8) }
                box.u32(movieTimescale)
                if wide { box.u64(movieDuration) } else { box.u32(UInt32(movieDuration)) }
                box.u32(0x0001_0000)  // rate 1.0
                box.u16(0x0100)       // volume 1.0
                box.zeros(10)
                box.unityMatrix()
                box.zeros(24)
                box.u32(2)            // next_track_ID
            }
            moov.box(.trak) { trak in
                // 8.3.2 Track Header Box: enabled, in movie.
                trak.fullBox(.tkhd, version: wide ? 1 : 0, flags: 3) { box in
                    if wide { box.zeros(16) } else { box.zeros(8) }
                    box.u32(1)        // track_ID
                    box.zeros(4)
                    if wide { box.u64(movieDuration) } else { box.u32(UInt32(movieDuration)) }
                    box.zeros(8)
                    box.zeros(4)      // layer, alternate_group
                    box.zeros(4)      // volume 0, reserved
                    box.unityMatrix()
                    box.u32(UInt32(truncatingIfNeeded: width) << 16)
                    box.u32(UInt32(truncatingIfNeeded: height) << 16)
                }
                // 8.6.5/8.6.6 Edit Box and Edit List Box: the media from editMediaTime on.
                if let editList {
                    let wideEdits = editList.contains { $0.segmentDuration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) || $0.mediaTime < Int64(Int32.min) }
                    trak.box(.edts) { edts in
                        edts.fullBox(.elst, version: wideEdits ? 1 : 0) { box in
                            box.u32(UInt32(truncatingIfNeeded: editList.count))
                            for entry in editList {
                                if wideEdits {
                                    box.u64(entry.segmentDuration)
                                    box.u64(UInt64(bitPattern: entry.mediaTime))
                                } else {
                                    box.u32(UInt32(entry.segmentDuration))
                                    box.i32(Int32(entry.mediaTime))
                                }
                                box.u16(UInt16(bitPattern: entry.mediaRateInteger))
                                box.u16(UInt16(bitPattern: entry.mediaRateFraction))
                            }
                        }
                    }
                } else if let editMediaTime, !fragmented {
                    trak.box(.edts) { edts in
                        edts.fullBox(.elst, version: wide ? 1 : 0) { box in
                            box.u32(1)
                            if wide {
                                box.u64(movieDuration)
                                box.u64(UInt64(bitPattern: editMediaTime))
                            } else {
                                box.u32(UInt32(movieDuration))
                                box.i32(Int32(truncatingIfNeeded: editMediaTime))
                            }
                            box.u32(0x0001_0000)
                        }
                    }
                }
                trak.box(.mdia) { mdia in
                    // 8.4.2 Media Header Box.
                    mdia.fullBox(.mdhd, version: wide ? 1 : 0) { box in
                        if wide { box.zeros(16) } else { box.zeros(8) }
                        box.u32(timescale)
                        let mediaDuration = fragmented ? 0 : duration
                        if wide { box.u64(mediaDuration) } else { box.u32(UInt32(mediaDuration)) }
                        box.u16(0x55C4)  // language "und"
                        box.u16(0)
                    }
                    // 8.4.3 Handler Reference Box.
                    mdia.fullBox(.hdlr) { box in
                        box.u32(0)
                        box.fourCC(.vide)
                        box.zeros(12)
                        box.append(Array("VideoHandler".utf8) + [0])
                    }
                    mdia.box(.minf) { minf in
                        // 12.1.2 Video Media Header Box.
                        minf.fullBox(.vmhd, flags: 1) { box in box.zeros(8) }
                        // 8.7.1 Data Information Box: the media is in this file.
                        minf.box(.dinf) { dinf in
                            dinf.fullBox(.dref) { box in
                                box.u32(1)
                                box.fullBox("url ", flags: 1) { _ in }
                            }
                        }
                        minf.box(.stbl) { stbl in
                            // 8.5.2 Sample Description Box: one VisualSampleEntry (12.1.3) per record.
                            stbl.fullBox(.stsd) { box in
                                let entries = [MP4SampleDescriptionEntry(record: self.record, width: width, height: height)] + laterEntries
                                box.u32(UInt32(entries.count))
                                for description in entries {
                                box.box(sampleEntry.fourCC) { entry in
                                    entry.zeros(6)
                                    entry.u16(1)  // data_reference_index
                                    entry.zeros(16)
                                    entry.u16(UInt16(clamping: description.width))
                                    entry.u16(UInt16(clamping: description.height))
                                    entry.u32(0x0048_0000)  // 72 dpi
                                    entry.u32(0x0048_0000)
                                    entry.zeros(4)
                                    entry.u16(1)  // frame_count
                                    entry.zeros(32)  // compressorname
                                    entry.u16(0x0018)
                                    entry.u16(0xFFFF)
                                    entry.box(sampleEntry.codec == .h264 ? .avcC : .hvcC) { record in record.append(description.record) }
                                }
                                }
                            }
                            sampleTables(&stbl)
                        }
                    }
                }
            }
            if fragmented {
                // 8.8.1 Movie Extends Box, 8.8.3 Track Extends Box: no defaults; every trun says all.
                moov.box(.mvex) { mvex in
                    mvex.fullBox(.trex) { box in
                        box.u32(1)
                        box.u32(1)
                        box.zeros(12)
                    }
                }
            }
        }
        return builder.bytes
    }
}
