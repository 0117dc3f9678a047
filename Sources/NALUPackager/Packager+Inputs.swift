public import NALU
import NALUMP4
public import NALUMedia

extension Packager {
    /// Each sample description's parameter sets when the track has more than one (its parameter
    /// sets change mid-stream: a new resolution, profile or level): CMAF segments of one init
    /// segment carry them in band, under an `avc3`/`hev1` sample entry (ISO/IEC 14496-15 5.4.2,
    /// 8.4.1), said in a note. `nil` when there is one description (the sets stay in the
    /// `avc1`/`hvc1` record).
    /// `entries`: the segments have sample entries (CMAF; MPEG-TS segments have none), which the
    /// note names.
    /// - Throws: ``NALUError`` `.unsupported` when the descriptions differ in codec or NAL
    ///   unit length size (the samples could not share one sample entry).
    func inBandParameterSets(_ track: MP4VideoTrack, path: String, entries: Bool = true) throws -> [[[UInt8]]]? {
        guard !track.additionalSampleDescriptions.isEmpty else { return nil }
        for description in track.additionalSampleDescriptions
        where description.type.codec != track.codec || description.record.lengthSize != track.lengthSize {
            throw NALUError(.unsupported, field: path,
                            detail: "the video's sample descriptions differ in codec or NAL unit length size (\(track.sampleEntryType), \(description.type)): one track cannot carry them")
        }
        let entry = track.codec == .h264 ? "avc3" : "hev1"
        notes.append("\(path): the parameter sets change mid-stream (\(track.sampleDescriptions.count) sample descriptions, "
                     + track.sampleDescriptions.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
                     + "): the segments carry them in band, at each segment start and each change" + (entries ? ", with \(entry) sample entries" : ""))
        return track.sampleDescriptions.map(\.record.parameterSets)
    }

    /// The notes of what ``OpenGOPPolicy`` did to segments that start with an open-GOP CRA.
    /// `transportStream`: MPEG-TS segments, which have no sample groups.
    static func openGOPNotes(_ filter: VideoSampleFilter, path: String, name: String, transportStream: Bool = false) -> [String] {
        var notes: [String] = []
        if filter.openGOPStarts > 0 {
            notes.append("\(path) (\(name)): \(filter.openGOPStarts) segment\(filter.openGOPStarts == 1 ? "" : "s") start with a CRA picture whose RASL pictures need the previous segment: "
                         + (transportStream ? "no EXT-X-INDEPENDENT-SEGMENTS; "
                            : "marked as random access points of SAP type 3 (a 'rap ' sample group), no EXT-X-INDEPENDENT-SEGMENTS; ")
                         + "--open-gop bla makes them independent by dropping those RASL pictures")
        }
        if filter.rewrittenCRA > 0 {
            notes.append("\(path) (\(name)): --open-gop bla: \(filter.rewrittenCRA) CRA picture\(filter.rewrittenCRA == 1 ? "" : "s") starting a segment rewritten as BLA, "
                         + "\(filter.droppedRASL) RASL picture\(filter.droppedRASL == 1 ? "" : "s") dropped")
        }
        return notes
    }
}

extension Packager {
    /// Packages `inputs` (paths; `"-"` is standard input): MP4/MOV, MPEG-TS (its first AAC
    /// stream as the audio), Annex-B or length-prefixed streams (``PackageInput``).
    /// - Throws: ``NALUError``: the inputs' errors; `.unsupported` for what cannot be packaged
    ///   yet; `.invalidValue` naming the rendition and time when keyframes do not align.
    public func package(_ inputs: [String], sourceOptions: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) -> PackageSummary {
        do {
            var summary = try packageInputs(inputs, sourceOptions: sourceOptions)
            summary.notes = summary.notes.map(restoringInputNames)
            return summary
        } catch {
            let error = NALUError.converting(error, field: inputs.first ?? directory)
            throw NALUError(error.code, field: restoringInputNames(error.field), byteOffset: error.byteOffset, bitOffset: error.bitOffset,
                            detail: error.detail.map(restoringInputNames))
        }
    }

    /// `text` with each temporary MP4's path replaced by its input's.
    func restoringInputNames(_ text: String) -> String {
        var text = text
        for (temporary, original) in inputNames where text.contains(temporary) {
            var result = ""
            var rest = Substring(text)
            while let range = rest.firstRange(of: temporary) {
                result += rest[..<range.lowerBound] + original
                rest = rest[range.upperBound...]
            }
            text = result + rest
        }
        return text
    }
}
