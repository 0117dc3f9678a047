#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUIO
import NALUMP4

/// `nalu doctor` on a streaming package (what `nalu package`, ffmpeg's hls/dash muxers or a
/// packager wrote): a folder, an HLS playlist (`.m3u8`, RFC 8216) or a DASH MPD (`.mpd`,
/// ISO/IEC 23009-1). It checks that
///
/// - every file the playlists and the MPD name is on disk (`package-file-missing`);
/// - every `EXTINF`, rounded to the nearest integer, is at most `EXT-X-TARGETDURATION`
///   (RFC 8216 4.3.3.1; `segment-over-target`);
/// - every video segment starts with a keyframe: an IDR, CRA or BLA picture or an H.264
///   recovery point (`segment-starts-without-keyframe`);
/// - the declared codec strings (`CODECS`, `@codecs`) are those the init segments' parameter
///   sets give (RFC 6381, ISO/IEC 14496-15 Annex E; `codecs-mismatch`);
/// - HEVC is `hvc1`, not `hev1` (`hev1-sample-entry`, an error for `--target apple`);
/// - the video renditions' segments start at the same times (`renditions-misaligned`).
///
/// Memory: one segment at a time.
public struct PackageDoctor: Sendable {
    public var target: DoctorTarget?

    public init(target: DoctorTarget? = nil) { self.target = target }

    /// Whether `path` names a package rather than a stream: a folder, or a name ending in
    /// `.m3u8` or `.mpd`.
    public static func isPackage(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".m3u8") || lower.hasSuffix(".mpd") { return true }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Examines the package at `path`: a folder's `master.m3u8` (else its one `.m3u8` that is a
    /// multivariant playlist, else each media playlist) and its `.mpd` files, or the one
    /// manifest named.
    /// - Throws: ``NALUError`` `.io` when the manifest cannot be read, `.missing` when a folder
    ///   holds none.
    public func examine(_ path: String) throws -> [DoctorFinding] {
        var log = DoctorFindingLog()
        var manifests: [String] = []
        if path.lowercased().hasSuffix(".m3u8") || path.lowercased().hasSuffix(".mpd") {
            manifests = [path]
        } else {
            let names = try Self.list(path)
            let playlists = names.filter { $0.lowercased().hasSuffix(".m3u8") }
            let multivariant = playlists.contains("master.m3u8") ? ["master.m3u8"]
                : playlists.filter { (try? Self.text(path + "/" + $0)).map(PackageManifests.isMultivariant) ?? false }
            manifests = (multivariant.isEmpty ? playlists : multivariant) + names.filter { $0.lowercased().hasSuffix(".mpd") }
            manifests = manifests.map { path + "/" + $0 }
            guard !manifests.isEmpty else {
                throw NALUError(.missing, field: path, detail: "no .m3u8 playlist and no .mpd manifest in the folder")
            }
        }
        for manifest in manifests {
            var check = PackageCheck(doctor: self, manifest: manifest)
            try check.run()
            for finding in check.log.findings { log.add(finding, key: manifest + finding.message) }
        }
        let findings = log.findings
        return findings.filter { $0.severity == .error } + findings.filter { $0.severity == .warning }
            + findings.filter { $0.severity == .information }
    }

    /// The names in a folder, sorted.
    static func list(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw NALUError(.io, field: path, detail: InputFile.errnoText()) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// A manifest's text (at most 16 MiB).
    static func text(_ path: String) throws -> String {
        let file = try InputFile(path: path)
        var bytes = [UInt8](repeating: 0, count: 16 << 20)
        let count = try bytes.withUnsafeMutableBytes { try file.readFully(into: $0) }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

/// One manifest's checks.
struct PackageCheck {
    let doctor: PackageDoctor
    let manifest: String
    var log = DoctorFindingLog()
    /// The folder the manifest's relative URIs resolve against.
    var base: String {
        guard let slash = manifest.lastIndex(of: "/") else { return "." }
        return String(manifest[..<slash])
    }

    init(doctor: PackageDoctor, manifest: String) {
        self.doctor = doctor
        self.manifest = manifest
    }

    /// Adds a finding; findings of one code and `key` (a rendition: each of its segments) are
    /// one, counted, at the first.
    mutating func add(_ code: DoctorCode, _ message: String, clause: String, severity: DoctorSeverity? = nil, key: String? = nil) {
        log.add(DoctorFinding(severity: severity ?? code.defaultSeverity, code: code, message: message, accessUnit: nil, byteOffset: nil,
                              clause: clause), key: key ?? message)
    }

    /// `uri` relative to the manifest's folder (absolute paths kept; URLs are not fetched).
    func resolve(_ uri: String) -> String? {
        if uri.contains("://") { return nil }
        let path = uri.split(separator: "?").first.map(String.init) ?? uri
        return path.hasPrefix("/") ? path : base + "/" + path
    }

    mutating func run() throws {
        let text = try PackageDoctor.text(manifest)
        var renditions: [PackageManifests.Rendition]
        let isDASH = manifest.lowercased().hasSuffix(".mpd")
        if isDASH {
            renditions = PackageManifests.mpd(text)
        } else if PackageManifests.isMultivariant(text) {
            renditions = PackageManifests.multivariant(text)
            for index in renditions.indices {
                guard let path = resolve(renditions[index].name) else { continue }
                guard PackageDoctor.exists(path) else {
                    add(.packageFileMissing, "\(renditions[index].name), named by \(name(manifest)), is not on disk", clause: "RFC 8216 4.3.4.2")
                    continue
                }
                PackageManifests.media(try PackageDoctor.text(path), into: &renditions[index])
            }
        } else {
            var single = PackageManifests.Rendition(name: name(manifest), isVideo: true, codecs: [])
            PackageManifests.media(text, into: &single)
            renditions = [single]
        }
        var starts: [(name: String, times: [Double])] = []
        for rendition in renditions {
            let times = try check(rendition, isDASH: isDASH)
            if rendition.isVideo, !times.isEmpty { starts.append((rendition.name, times)) }
        }
        checkAlignment(starts)
    }

    func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Checks one rendition; returns its video segments' start times (seconds) as the segments
    /// themselves say, when they could be read.
    mutating func check(_ rendition: PackageManifests.Rendition, isDASH: Bool) throws -> [Double] {
        if let target = rendition.targetDuration {
            for segment in rendition.segments where Int(segment.duration.rounded(.toNearestOrAwayFromZero)) > target {
                add(.segmentOverTarget, "\(rendition.name): \(segment.uri) lasts \(segment.duration) s, over EXT-X-TARGETDURATION \(target) once rounded",
                    clause: "RFC 8216 4.3.3.1", key: rendition.name)
            }
        }
        var initBytes: [UInt8] = []
        var track: MP4VideoTrack?
        if let initSegment = rendition.initSegment, let path = resolve(initSegment) {
            if !PackageDoctor.exists(path) {
                add(.packageFileMissing, "\(rendition.name): its init segment \(initSegment) is not on disk", clause: isDASH ? "ISO/IEC 23009-1 5.3.9.2" : "RFC 8216 4.3.2.5")
            } else {
                initBytes = try PackageDoctor.read(path)
                track = try? MP4VideoTrackReader(MemoryRandomAccessSource(initBytes)).track
                if let track { checkCodecs(rendition, track: track) }
            }
        }
        var times: [Double] = []
        for segment in rendition.segments {
            guard let path = resolve(segment.uri) else { continue }
            guard PackageDoctor.exists(path) else {
                add(.packageFileMissing, "\(rendition.name): segment \(segment.uri) is not on disk", clause: isDASH ? "ISO/IEC 23009-1 5.3.9.4" : "RFC 8216 4.3.2",
                    key: rendition.name)
                continue
            }
            guard rendition.isVideo else { continue }
            if rendition.initSegment != nil {
                guard track != nil else { continue }
                let start = try firstPictureOfFragment(initBytes + PackageDoctor.read(path))
                if let start {
                    if !start.isKeyframe {
                        add(.segmentStartsWithoutKeyframe, "\(rendition.name): \(segment.uri) starts with a picture that is no keyframe (\(start.what))",
                            clause: "RFC 8216 4.3.2 / ISO/IEC 23000-19 7.3.2", key: rendition.name)
                    }
                    times.append(start.time)
                }
            } else if let start = try firstPictureOfTransportStream(path) {
                if !start.isKeyframe {
                    add(.segmentStartsWithoutKeyframe, "\(rendition.name): \(segment.uri) starts with a picture that is no keyframe (\(start.what))",
                        clause: "RFC 8216 3.2", key: rendition.name)
                }
                times.append(segment.start)
            }
        }
        return times
    }

    /// The declared codec strings against the init segment's sample entry and parameter sets.
    mutating func checkCodecs(_ rendition: PackageManifests.Rendition, track: MP4VideoTrack) {
        let entry = track.sampleEntryType
        if entry == .hev1 {
            add(.hev1SampleEntry, "\(rendition.name): the HEVC sample entry is hev1; Apple players (Safari, AVFoundation) play only hvc1",
                clause: "ISO/IEC 14496-15 8.4.1", severity: doctor.target == .apple ? .error : .warning)
        }
        guard let computed = try? CodecString.video(codec: track.codec, parameterSets: track.decoderConfiguration.parameterSets,
                                                    entry: entry.rawValue) else { return }
        let declared = rendition.codecs.filter { ["avc1", "avc3", "hvc1", "hev1"].contains(String($0.prefix(4))) }
        guard !rendition.codecs.isEmpty else { return }
        if !declared.contains(computed) {
            add(.codecsMismatch, "\(rendition.name): declares \(declared.isEmpty ? "no video codec" : declared.joined(separator: ",")); its init segment's \(entry) parameter sets give \(computed)",
                clause: "RFC 6381 3.3 / ISO/IEC 14496-15 Annex E")
        }
    }

    /// The first picture of a CMAF segment read with its init segment (`bytes`: the two joined,
    /// a fragmented MP4): whether it is a keyframe (IDR, CRA, BLA, H.264 recovery point; the
    /// NAL units say, not the sample flags) and its presentation time after the edit, seconds.
    func firstPictureOfFragment(_ bytes: [UInt8]) throws -> (isKeyframe: Bool, what: String, time: Double)? {
        guard let reader = try? MP4VideoTrackReader(MemoryRandomAccessSource(bytes)) else { return nil }
        var iterator = reader.samples()
        guard let first = try? iterator.next() else { return nil }
        var earliest = first.pts
        while let sample = try? iterator.next() { earliest = min(earliest, sample.pts) }
        let offset = reader.track.editList.first(where: { $0.mediaTime >= 0 })?.mediaTime ?? 0
        let time = Double(earliest - offset) / Double(max(1, reader.track.timescale))
        var splitter = AccessUnitSplitter(codec: reader.track.codec)
        let descriptions = reader.track.sampleDescriptions
        let description = descriptions[max(0, min(descriptions.count - 1, first.sampleDescriptionIndex - 1))]
        for unit in description.record.parameterSets { try? splitter.addParameterSet(unit) }
        var buffer: [UInt8] = []
        try reader.read(first, into: &buffer)
        var summary: AccessUnitSummary?
        let lengthSize = description.record.lengthSize
        var position = 0
        try buffer.withUnsafeBytes { raw in
            while position + lengthSize <= raw.count {
                var length = 0
                for index in 0..<lengthSize { length = length << 8 | Int(raw[position + index]) }
                let start = position + lengthSize
                guard length > 0, start + length <= raw.count else { break }
                try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]), offset: Int64(start),
                                            prefixLength: lengthSize) { unit in
                    if let completed = try splitter.push(unit).completed, summary == nil { summary = completed }
                }
                position = start + length
            }
        }
        if summary == nil { summary = splitter.finish() }
        let keyframe = summary?.keyframe
        return (keyframe != nil, keyframe.map(\.name) ?? "\(summary?.pictureType.map { "\($0)" } ?? "a") picture", time)
    }

    /// The first access unit of an MPEG-TS segment: whether it is a keyframe.
    func firstPictureOfTransportStream(_ path: String) throws -> (isKeyframe: Bool, what: String)? {
        var options = MediaSourceOptions()
        options.readsAhead = false
        guard let source = try? MediaSource(path: path, options: options) else { return nil }
        var first: AccessUnitSummary?
        do {
            try source.forEachAccessUnit { unit in
                first = unit.summary
                throw StopReading()
            }
        } catch is StopReading {
        } catch {
            return nil
        }
        guard let first else { return nil }
        return (first.keyframe != nil, first.keyframe.map(\.name) ?? "\(first.pictureType.map { "\($0)" } ?? "a") picture")
    }

    struct StopReading: Error {}

    /// The video renditions' segments must start at the same times (ISO/IEC 23009-1
    /// `segmentAlignment`; RFC 8216 6.2.4: variant streams' segments are aligned for switching).
    mutating func checkAlignment(_ starts: [(name: String, times: [Double])]) {
        guard let reference = starts.first else { return }
        for other in starts.dropFirst() {
            for index in 0..<min(reference.times.count, other.times.count) where abs(reference.times[index] - other.times[index]) > 0.001 {
                add(.renditionsMisaligned, "\(other.name): segment \(index + 1) starts at \(Packager.format3(other.times[index])) s, "
                    + "\(reference.name)'s at \(Packager.format3(reference.times[index])) s: a player switching there skips or repeats pictures",
                    clause: "RFC 8216 6.2.4 / ISO/IEC 23009-1 7.3.3.2")
                break
            }
            if reference.times.count != other.times.count {
                add(.renditionsMisaligned, "\(other.name) has \(other.times.count) segments, \(reference.name) \(reference.times.count)",
                    clause: "RFC 8216 6.2.4 / ISO/IEC 23009-1 7.3.3.2")
            }
        }
    }
}

extension PackageDoctor {
    /// A whole file (a segment: at most 1 GiB).
    static func read(_ path: String) throws -> [UInt8] {
        let file = try InputFile(path: path)
        guard file.size <= 1 << 30 else { throw NALUError(.tooLarge, field: path, detail: "\(file.size) bytes; a segment is at most 1 GiB here") }
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        let count = try bytes.withUnsafeMutableBytes { try file.readFully(into: $0) }
        bytes.removeSubrange(count...)
        return bytes
    }
}
