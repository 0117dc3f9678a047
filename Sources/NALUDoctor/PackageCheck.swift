import NALU
import NALUMP4
import NALUMedia
import NALUPackager

/// One manifest's checks (``PackageDoctor``).
struct PackageCheck {
    let doctor: PackageDoctor
    let files: PackageFiles
    /// The manifest's resolved path.
    let manifest: String
    var log = DoctorFindingLog()

    /// A segment's duration may differ from the manifest's by this much (seconds) before it is
    /// `segment-duration-mismatch`: a packager rounds `EXTINF` to milliseconds, and a last
    /// frame's duration is a guess in MPEG-TS.
    static let durationTolerance = 0.1

    init(doctor: PackageDoctor, files: PackageFiles, manifest: String) {
        self.doctor = doctor
        self.files = files
        self.manifest = manifest
    }

    /// Adds a finding; findings of one code and `key` (a rendition: each of its segments) are
    /// one, counted, at the first.
    /// With a `key`, the message is made only for the first finding (a rendition of a million
    /// missing segments builds one).
    mutating func add(_ code: DoctorCode, _ message: @autoclosure () -> String, clause: String, severity: DoctorSeverity? = nil, key: String? = nil) {
        if let key, log.count(code, key: key) { return }
        let text = message()
        log.add(DoctorFinding(severity: severity ?? code.defaultSeverity, code: code, message: text, accessUnit: nil, byteOffset: nil,
                              clause: clause), key: key ?? text)
    }

    func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Resolves `uri` named by `what` (e.g. "v0.m3u8: segment v0_00001.m4s") against `base`;
    /// a finding unless it is a regular file inside the package. `nil` for a URL (not fetched).
    mutating func resolve(_ uri: String, base: String, what: @autoclosure () -> String, clause: String, key: String? = nil) -> (path: String, size: Int64)? {
        switch files.resolve(uri, base: base) {
        case .file(let path, let size):
            return (path, size)
        case .missing:
            add(.packageFileMissing, "\(what()) is not on disk", clause: clause, key: key)
        case .outside(let reason):
            add(.segmentOutsidePackage, "\(what()) is outside the package folder (\(reason)): not opened", clause: "RFC 8216 4.1 / RFC 3986 5.2", key: key)
        case .notAFile(let kind):
            add(.segmentNotAFile, "\(what()) is \(kind), not a file: not opened", clause: clause, key: key)
        case .remote:
            break
        }
        return nil
    }

    mutating func run() throws {
        // The manifest named or found: one that cannot be read at all is the command's error.
        let text = try PackageDoctor.text(manifest)
        var reading = PackageManifests.Reading(segmentLimit: doctor.segmentLimit)
        var renditions: [(rendition: PackageManifests.Rendition, base: String)] = []
        let isDASH = manifest.lowercased().hasSuffix(".mpd")
        let base = PackageFiles.folder(of: manifest)
        if isDASH {
            renditions = PackageManifests.mpd(text, reading: &reading).map { ($0, base) }
        } else if PackageManifests.isMultivariant(text) {
            if !PackageManifests.isPlaylist(text) {
                reading.problem("EXTM3U", "does not start with #EXTM3U: it is no playlist", clause: "RFC 8216 4.3.1.1")
            }
            var seen: Set<String> = []
            for var rendition in PackageManifests.multivariant(text, reading: &reading) {
                let what = "\(rendition.name), named by \(name(manifest)),"
                guard let file = resolve(rendition.name, base: base, what: what, clause: "RFC 8216 4.3.4.2") else { continue }
                // A playlist named twice (two variants sharing one) is checked once.
                guard seen.insert(file.path).inserted else { continue }
                let playlist: String
                do {
                    playlist = try PackageDoctor.text(file.path)
                } catch {
                    add(.manifestInvalid, "\(rendition.name) cannot be read: \(error)", clause: "RFC 8216 4.3.4.2")
                    continue
                }
                PackageManifests.media(playlist, into: &rendition, reading: &reading)
                renditions.append((rendition, PackageFiles.folder(of: file.path)))
            }
        } else {
            var single = PackageManifests.Rendition(name: name(manifest), isVideo: true, codecs: [])
            PackageManifests.media(text, into: &single, reading: &reading)
            renditions = [(single, base)]
        }
        let manifestName = name(manifest)
        for problem in reading.problems {
            let named = problem.message.hasPrefix(manifestName + ":") || problem.message.hasPrefix(manifestName + " ")
            add(.manifestInvalid, named ? problem.message : "\(manifestName): \(problem.message)", clause: problem.clause, key: problem.key)
        }
        var starts: [(name: String, times: [Double?], period: Int)] = []
        for (rendition, base) in renditions {
            let times = try check(rendition, base: base, isDASH: isDASH)
            if rendition.isVideo, !times.isEmpty { starts.append((rendition.name, times, rendition.period)) }
        }
        // Each DASH period on its own (a live package's parameter-set change starts one).
        var periods: [Int] = []
        for start in starts where !periods.contains(start.period) { periods.append(start.period) }
        for period in periods {
            checkAlignment(starts.filter { $0.period == period }.map { ($0.name, $0.times) })
        }
    }

    /// Checks one rendition; returns its video segments' start times (seconds) as the segments
    /// themselves say (fMP4) or the manifest does (MPEG-TS), `nil` where neither can.
    mutating func check(_ rendition: PackageManifests.Rendition, base: String, isDASH: Bool) throws -> [Double?] {
        if let target = rendition.targetDuration {
            for segment in rendition.segments {
                guard let duration = segment.duration, let rounded = CheckedNumber.int64(duration), rounded > target else { continue }
                add(.segmentOverTarget, "\(rendition.name): \(segment.uri) lasts \(duration) s, over EXT-X-TARGETDURATION \(target) once rounded",
                    clause: "RFC 8216 4.3.3.1", key: rendition.name)
            }
        }
        let initSegment = readInitSegment(rendition, base: base, isDASH: isDASH)
        let initBytes = initSegment.bytes
        let initReadable = initSegment.isReadable
        let isVideo = initSegment.isVideo
        for part in rendition.parts {
            _ = resolve(part, base: base, what: "\(rendition.name): part \(part)", clause: "RFC 8216bis 4.4.4.9", key: rendition.name)
        }
        var times: [Double?] = []
        for segment in rendition.segments {
            let clause = isDASH ? "ISO/IEC 23009-1 5.3.9.4" : "RFC 8216 4.3.2"
            guard let file = resolve(segment.uri, base: base, what: "\(rendition.name): segment \(segment.uri)", clause: clause,
                                     key: rendition.name) else {
                times.append(nil)
                continue
            }
            // Without its init segment an fMP4 segment cannot be read: only its existence is checked.
            guard initReadable else {
                times.append(nil)
                continue
            }
            let facts: PackageSegments.Facts?
            do {
                facts = try PackageSegments.examine(file.path, size: file.size, range: segment.range, initBytes: rendition.initSegment == nil ? nil : initBytes,
                                                    isVideo: isVideo, uri: segment.uri)
            } catch {
                add(.segmentUnreadable, "\(rendition.name): segment \(segment.uri) cannot be read: \(error)", clause: clause, key: rendition.name)
                times.append(nil)
                continue
            }
            guard let facts else {
                // Not a video fMP4 or MPEG-TS segment: only its existence is checked.
                times.append(nil)
                continue
            }
            guard facts.isReadable else {
                add(.segmentUnreadable, "\(rendition.name): segment \(segment.uri) (\(facts.size) bytes) is no \(facts.kind) segment: \(facts.reason)",
                    clause: clause, key: rendition.name)
                times.append(nil)
                continue
            }
            if let start = facts.firstPicture, !start.isKeyframe {
                add(.segmentStartsWithoutKeyframe, "\(rendition.name): \(segment.uri) starts with a picture that is no keyframe (\(start.what))",
                    clause: rendition.initSegment == nil ? "RFC 8216 3.2" : "RFC 8216 4.3.2 / ISO/IEC 23000-19 7.3.2", key: rendition.name)
            }
            if let declared = segment.duration, let actual = facts.duration, abs(declared - actual) > Self.durationTolerance {
                add(.segmentDurationMismatch, "\(rendition.name): \(segment.uri) lasts \(Self.seconds(actual)) s by its samples; "
                    + "the \(isDASH ? "MPD" : "playlist") says \(Self.seconds(declared)) s (a segment replaced after the manifest was written?)",
                    clause: isDASH ? "ISO/IEC 23009-1 5.3.9.6" : "RFC 8216 4.3.2.1", key: rendition.name)
            }
            times.append(rendition.initSegment == nil ? segment.start : facts.firstPicture?.time ?? nil)
        }
        return isVideo ? times : []
    }

    /// The rendition's init segment, if it has one: its bytes, whether it reads as one (else a
    /// finding, and its segments are only checked to be on disk), and whether the rendition is
    /// video (an audio-only variant stream, or a media playlist named alone, is audio when its
    /// init's handler says so). Checks the declared codecs against it.
    mutating func readInitSegment(_ rendition: PackageManifests.Rendition, base: String, isDASH: Bool)
        -> (bytes: [UInt8], isReadable: Bool, isVideo: Bool) {
        guard let initSegment = rendition.initSegment else { return ([], true, rendition.isVideo) }
        let clause = isDASH ? "ISO/IEC 23009-1 5.3.9.2" : "RFC 8216 4.3.2.5"
        guard let file = resolve(initSegment, base: base, what: "\(rendition.name): its init segment \(initSegment)", clause: clause) else {
            return ([], false, rendition.isVideo)
        }
        let bytes: [UInt8]
        do {
            bytes = try PackageDoctor.read(file.path, range: rendition.initRange)
        } catch {
            add(.segmentUnreadable, "\(rendition.name): its init segment \(initSegment) cannot be read: \(error)", clause: clause)
            return ([], false, rendition.isVideo)
        }
        let isVideo = rendition.isVideo && !PackageSegments.isAudio(bytes)
        var track: MP4VideoTrack?
        if isVideo {
            track = try? MP4VideoTrackReader(MemoryRandomAccessSource(bytes)).track
            if let track { checkCodecs(rendition, track: track) }
        }
        if isVideo ? track == nil : !PackageSegments.hasBox("moov", in: bytes) {
            add(.segmentUnreadable, "\(rendition.name): its init segment \(initSegment) (\(bytes.count) bytes) holds no \(isVideo ? "video track" : "movie box")",
                clause: clause)
            return (bytes, false, isVideo)
        }
        return (bytes, true, isVideo)
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

    /// The video renditions' segments must start at the same times (ISO/IEC 23009-1
    /// `segmentAlignment`; RFC 8216 6.2.4: variant streams' segments are aligned for switching).
    mutating func checkAlignment(_ starts: [(name: String, times: [Double?])]) {
        guard let reference = starts.first else { return }
        for other in starts.dropFirst() {
            for index in 0..<min(reference.times.count, other.times.count) {
                guard let mine = other.times[index], let theirs = reference.times[index], abs(mine - theirs) > 0.001 else { continue }
                add(.renditionsMisaligned, "\(other.name): segment \(index + 1) starts at \(Self.seconds(mine)) s, "
                    + "\(reference.name)'s at \(Self.seconds(theirs)) s: a player switching there skips or repeats pictures",
                    clause: "RFC 8216 6.2.4 / ISO/IEC 23009-1 7.3.3.2")
                break
            }
            if reference.times.count != other.times.count {
                add(.renditionsMisaligned, "\(other.name) has \(other.times.count) segments, \(reference.name) \(reference.times.count)",
                    clause: "RFC 8216 6.2.4 / ISO/IEC 23009-1 7.3.3.2")
            }
        }
    }

    /// Seconds with three decimals (`1.500`), as the packager writes them (``Packager/format3(_:)``,
    /// checked: a value too large for milliseconds in 64 bits is printed as it is).
    static func seconds(_ value: Double) -> String { Packager.format3(value) }
}
