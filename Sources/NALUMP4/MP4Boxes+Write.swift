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
    /// Appends `count` big-endian 32-bit values, the `i`-th `value(i)`, with one size check for
    /// all of them (a sample table's: one or two per sample).
    mutating func u32s(count: Int, _ value: (Int) -> UInt32) {
        guard count > 0 else { return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count * 4))
        bytes.withUnsafeMutableBytes { raw in
            for index in 0..<count {
                raw.storeBytes(of: value(index).bigEndian, toByteOffset: start + index * 4, as: UInt32.self)
            }
        }
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

    /// 8.6.5 Edit Box holding an 8.6.6 Edit List Box with `entries`, version 1 (64-bit
    /// fields) when a duration or media time needs more than 32 bits.
    mutating func editList(_ entries: [MP4EditListEntry]) {
        let wide = entries.contains { $0.segmentDuration > UInt64(UInt32.max) || $0.mediaTime < Int64(Int32.min) || $0.mediaTime > Int64(Int32.max) }
        box(.edts) { edts in
            edts.fullBox(.elst, version: wide ? 1 : 0) { box in
                box.u32(UInt32(truncatingIfNeeded: entries.count))
                for entry in entries {
                    if wide {
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
    /// An edit list written verbatim instead of the one `editMediaTime` implies
    /// (``MP4WriterConfiguration/editList``).
    var editList: [MP4EditListEntry]? = nil
    /// Movie-timescale ticks of an empty edit before the video's (``MP4WriterConfiguration/videoStartDelay``).
    var startDelay: UInt64 = 0
    var fragmented: Bool
    /// Tracks 2, 3, … with their media durations (in their timescales).
    var passthrough: [(track: MP4PassthroughTrack, duration: UInt64)] = []
    /// Write `colr`/`pasp` after each record (``MP4WriterConfiguration/colourBoxes``).
    var colourBoxes = false
    /// Times, matrices, names and user data copied (``MP4WriterConfiguration/metadata``).
    var metadata: MP4MovieMetadata? = nil
    /// Where the video's last presentation ends (media timescale, in the written edit list's
    /// time: the `ctts` shift applied where the edit list follows it), when samples were written.
    var presentationEnd: Int64? = nil
    /// The same for each passthrough track.
    var passthroughPresentationEnds: [Int64?] = []

    /// `duration` in the movie timescale, rounded up (saturating).
    var movieDuration: UInt64 {
        MP4Timescale.convert(duration, from: timescale, to: movieTimescale) ?? .max
    }

    /// The video track's duration in the movie timescale (`tkhd.duration`): its edit list's, or its media's.
    var videoTrackDuration: UInt64 { fragmented ? 0 : videoEdits.map(Self.editDuration) ?? movieDuration }

    /// The video track's edit list: the explicit one, else the start delay's empty edit and the
    /// edit from `editMediaTime` (the whole media when there is a delay but no shift), else none.
    var videoEdits: [MP4EditListEntry]? {
        if let editList {
            return editList.isEmpty ? nil : resolvingOpenEnd(editList, presentationEnd: presentationEnd, mediaDuration: duration, timescale: timescale)
        }
        var edits: [MP4EditListEntry] = []
        if startDelay > 0 { edits.append(MP4EditListEntry(segmentDuration: startDelay, mediaTime: -1)) }
        // Fragmented movies have no duration yet: progressive ones give the media's.
        let mediaDuration = fragmented ? 0 : movieDuration
        if let editMediaTime, !fragmented || startDelay > 0 {
            edits.append(MP4EditListEntry(segmentDuration: mediaDuration, mediaTime: editMediaTime))
        } else if startDelay > 0 {
            edits.append(MP4EditListEntry(segmentDuration: mediaDuration, mediaTime: 0))
        }
        return edits.isEmpty ? nil : edits
    }

    /// Passthrough track `index`'s duration in the movie timescale: its edit list's, or its media's.
    func passthroughDuration(_ index: Int) -> UInt64 {
        guard !fragmented else { return 0 }
        let (track, duration) = passthrough[index]
        return passthroughEdits(index).map(Self.editDuration) ?? MP4Timescale.convert(duration, from: track.timescale, to: movieTimescale) ?? .max
    }

    /// Passthrough track `index`'s edit list as written (``resolvingOpenEnd(_:presentationEnd:mediaDuration:timescale:)``).
    func passthroughEdits(_ index: Int) -> [MP4EditListEntry]? {
        let (track, duration) = passthrough[index]
        let end = index < passthroughPresentationEnds.count ? passthroughPresentationEnds[index] : nil
        return track.editList.map { resolvingOpenEnd($0, presentationEnd: end, mediaDuration: duration, timescale: track.timescale) }
    }

    /// `entries` as a progressive movie must hold them. In a fragmented movie the last edit's
    /// `segment_duration` may be 0 for "to the end of the media, whose length is not known yet"
    /// (ISO/IEC 14496-12 8.6.6.3; ffmpeg's `-f dash` and CMAF output write it); in a progressive
    /// movie 0 means no time at all and players show nothing. So a progressive write gives
    /// such an edit the time from its `media_time` to where the media's last presentation ends
    /// (`presentationEnd`; else the media duration), rounded up to the movie timescale; a
    /// fragmented write keeps it.
    func resolvingOpenEnd(_ entries: [MP4EditListEntry], presentationEnd: Int64?, mediaDuration: UInt64, timescale: UInt32) -> [MP4EditListEntry] {
        guard !fragmented, var last = entries.last, last.segmentDuration == 0, last.mediaTime >= 0 else { return entries }
        let end = presentationEnd.map { UInt64(max(0, $0)) } ?? mediaDuration
        let remaining = end > UInt64(last.mediaTime) ? end - UInt64(last.mediaTime) : 0
        last.segmentDuration = MP4Timescale.convert(remaining, from: timescale, to: movieTimescale) ?? .max
        return entries.dropLast() + [last]
    }

    /// The `trak` of passthrough track `index` (track_ID `index + 2`, 8.3–8.5): its header
    /// fields, edit list, handler, media information header and sample entries as given.
    func passthroughTrack(_ index: Int, into moov: inout BoxBuilder, sampleTables: (inout BoxBuilder, Int) -> Void) {
        let (track, mediaDuration) = passthrough[index]
        let trackDuration = passthroughDuration(index)
        let media = fragmented ? 0 : mediaDuration
        let metadata = track.metadata ?? MP4TrackMetadata()
        let wide = trackDuration > UInt64(UInt32.max) || media > UInt64(UInt32.max) || BoxBuilder.needsWideTimes(track.metadata)
        moov.box(.trak) { trak in
            trak.fullBox(.tkhd, version: wide ? 1 : 0, flags: track.trackHeaderFlags & 0x00FF_FFFF) { box in
                box.times(metadata.creationTime, metadata.modificationTime, wide: wide)
                box.u32(UInt32(truncatingIfNeeded: index + 2))
                box.zeros(4)
                if wide { box.u64(trackDuration) } else { box.u32(UInt32(trackDuration)) }
                box.zeros(8)
                box.u16(UInt16(bitPattern: metadata.layer))
                box.u16(UInt16(bitPattern: track.alternateGroup))
                box.u16(track.volume)
                box.u16(0)
                box.matrix(metadata.matrix)
                box.u32(track.width)
                box.u32(track.height)
            }
            if let editList = passthroughEdits(index) { trak.editList(editList) }
            trak.box(.mdia) { mdia in
                mdia.fullBox(.mdhd, version: wide ? 1 : 0) { box in
                    box.times(metadata.mediaCreationTime, metadata.mediaModificationTime, wide: wide)
                    box.u32(track.timescale)
                    if wide { box.u64(media) } else { box.u32(UInt32(media)) }
                    box.u16(track.languageCode)
                    box.u16(0)
                }
                mdia.fullBox(.hdlr) { box in
                    box.u32(0)
                    box.fourCC(track.handler)
                    box.zeros(12)
                    box.append(metadata.handlerName ?? Array((track.handler == "soun" ? "SoundHandler" : track.handler == .vide ? "VideoHandler" : "Handler").utf8) + [0])
                }
                mdia.box(.minf) { minf in
                    if let header = track.mediaInformationHeader {
                        minf.append(header)
                    } else if track.handler == "soun" {
                        minf.fullBox("smhd") { box in box.zeros(4) }  // 12.2.2 balance 0
                    } else if track.handler == .vide {
                        minf.fullBox(.vmhd, flags: 1) { box in box.zeros(8) }
                    } else {
                        minf.fullBox("nmhd") { _ in }  // 8.4.5.2 Null Media Header
                    }
                    minf.box(.dinf) { dinf in
                        dinf.fullBox(.dref) { box in
                            box.u32(1)
                            box.fullBox("url ", flags: 1) { _ in }
                        }
                    }
                    minf.box(.stbl) { stbl in
                        stbl.fullBox(.stsd) { box in
                            box.u32(UInt32(truncatingIfNeeded: track.sampleEntries.count))
                            for entry in track.sampleEntries { box.append(entry) }
                        }
                        sampleTables(&stbl, index + 1)
                    }
                }
            }
            if let userData = metadata.userData { trak.append(userData) }
        }
    }

    /// The movie-timescale duration an edit list presents: the sum of its segment durations
    /// (saturating at 2^64 − 1).
    static func editDuration(_ entries: [MP4EditListEntry]) -> UInt64 {
        var total: UInt64 = 0
        for entry in entries {
            let (sum, overflow) = total.addingReportingOverflow(entry.segmentDuration)
            total = overflow ? .max : sum
        }
        return total
    }

    /// `ftyp` (4.3): `isom` with the brands players look for; QuickTime's `qt  ` (major brand,
    /// minor version 0x200, and the only compatible brand, as ffmpeg's `mov` muxer writes) for a
    /// QuickTime movie (``MP4MovieMetadata/quickTime``).
    func fileType() -> [UInt8] {
        var builder = BoxBuilder()
        if metadata?.quickTime == true {
            builder.box(.ftyp) { box in
                box.fourCC("qt  ")
                box.u32(0x200)
                box.fourCC("qt  ")
            }
            return builder.bytes
        }
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

    /// `moov` with `tables` (the `stbl` boxes after `stsd`) written by `sampleTables` for each
    /// track: 0 the video track, 1… the passthrough tracks.
    /// `tableBytes`: about how many bytes `sampleTables` writes, so the box is built in one
    /// allocation (a table of a few hundred thousand samples otherwise grows it by copying).
    func movie(tableBytes: Int = 0, sampleTables: (inout BoxBuilder, Int) -> Void) -> [UInt8] {
        var builder = BoxBuilder(capacity: 4096 + max(0, tableBytes))
        let movieDuration = videoTrackDuration
        var longest = movieDuration
        for index in passthrough.indices { longest = max(longest, passthroughDuration(index)) }
        let video = metadata?.video ?? MP4TrackMetadata()
        let wide = longest > UInt64(UInt32.max) || duration > UInt64(UInt32.max) || BoxBuilder.needsWideTimes(metadata?.video)
            || (metadata.map { max($0.creationTime, $0.modificationTime) > UInt64(UInt32.max) } ?? false)
        builder.box(.moov) { moov in
            // 8.2.2 Movie Header Box.
            moov.fullBox(.mvhd, version: wide ? 1 : 0) { box in
                box.times(metadata?.creationTime ?? 0, metadata?.modificationTime ?? 0, wide: wide)
                box.u32(movieTimescale)
                if wide { box.u64(longest) } else { box.u32(UInt32(longest)) }
                box.u32(0x0001_0000)  // rate 1.0
                box.u16(0x0100)       // volume 1.0
                box.zeros(10)
                box.matrix(metadata?.matrix ?? MP4TrackMetadata.unityMatrix)
                box.zeros(24)
                box.u32(UInt32(truncatingIfNeeded: passthrough.count + 2))  // next_track_ID
            }
            moov.box(.trak) { trak in
                // 8.3.2 Track Header Box: enabled, in movie.
                trak.fullBox(.tkhd, version: wide ? 1 : 0, flags: 3) { box in
                    box.times(video.creationTime, video.modificationTime, wide: wide)
                    box.u32(1)        // track_ID
                    box.zeros(4)
                    if wide { box.u64(movieDuration) } else { box.u32(UInt32(movieDuration)) }
                    box.zeros(8)
                    box.u16(UInt16(bitPattern: video.layer))
                    box.zeros(2)      // alternate_group
                    box.zeros(4)      // volume 0, reserved
                    box.matrix(video.matrix)
                    box.u32(UInt32(truncatingIfNeeded: width) << 16)
                    box.u32(UInt32(truncatingIfNeeded: height) << 16)
                }
                // 8.6.5/8.6.6 Edit Box and Edit List Box: the explicit list, or the delay and the media from editMediaTime on.
                if let videoEdits { trak.editList(videoEdits) }
                // 8.3.3 Track Reference Box: the video's timecode track (QuickTime `tmcd`
                // reference), so players show the timecode with the pictures.
                if let timecode = passthrough.firstIndex(where: { $0.track.handler == FourCC("tmcd") }) {
                    trak.box(FourCC("tref")) { tref in
                        tref.box(FourCC("tmcd")) { box in box.u32(UInt32(truncatingIfNeeded: timecode + 2)) }
                    }
                }
                trak.box(.mdia) { mdia in
                    // 8.4.2 Media Header Box.
                    mdia.fullBox(.mdhd, version: wide ? 1 : 0) { box in
                        box.times(video.mediaCreationTime, video.mediaModificationTime, wide: wide)
                        box.u32(timescale)
                        let mediaDuration = fragmented ? 0 : duration
                        if wide { box.u64(mediaDuration) } else { box.u32(UInt32(mediaDuration)) }
                        box.u16(video.languageCode)  // "und" unless copied
                        box.u16(0)
                    }
                    // 8.4.3 Handler Reference Box.
                    mdia.fullBox(.hdlr) { box in
                        box.u32(0)
                        box.fourCC(.vide)
                        box.zeros(12)
                        box.append(video.handlerName ?? Array("VideoHandler".utf8) + [0])
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
                                    if colourBoxes { entry.colourBoxes(record: description.record, codec: sampleEntry.codec) }
                                }
                                }
                            }
                            sampleTables(&stbl, 0)
                        }
                    }
                }
                if let userData = video.userData { trak.append(userData) }
            }
            for index in passthrough.indices {
                passthroughTrack(index, into: &moov, sampleTables: sampleTables)
            }
            // 8.10.1 User Data Box and 8.11.1 Meta Box of the movie, copied (location, title, keys).
            if let userData = metadata?.userData { moov.append(userData) }
            if let meta = metadata?.meta { moov.append(meta) }
            if fragmented {
                // 8.8.1 Movie Extends Box, 8.8.3 Track Extends Box: no defaults; every trun says all.
                moov.box(.mvex) { mvex in
                    for trackID in 1...(passthrough.count + 1) {
                        mvex.fullBox(.trex) { box in
                            box.u32(UInt32(truncatingIfNeeded: trackID))
                            box.u32(1)
                            box.zeros(12)
                        }
                    }
                }
            }
        }
        return builder.bytes
    }
}
