import Foundation
import Testing

/// Issue 35 item 1, HEVC open GOP (x265 with CRA pictures and RASL pictures,
/// `Tests/Fixtures/smart/hevc_open_gop.mp4`): `--open-gop keep` leaves a segment-starting CRA
/// that has RASL pictures unsynced, in a `rap ` sample group (SAP type 3: DASH
/// `startWithSAP="3"`, no `EXT-X-INDEPENDENT-SEGMENTS`), and ffmpeg decodes every picture of the
/// source; `--open-gop bla` rewrites it as BLA and drops its RASL pictures (a note says how
/// many), and ffmpeg decodes the source's pictures less those, the kept ones identical.
@Suite struct PackageOpenGOPTests {
    typealias Package = PackageCommandTests
    static let source = CLIRunner.fixture("smart/hevc_open_gop.mp4")

    /// The boxes at the top level of an ISO BMFF file and, inside `moof`/`traf`, theirs: type and
    /// payload.
    static func boxes(_ data: [UInt8], _ range: Range<Int>) -> [(type: String, payload: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            let size = Int(data[position]) << 24 | Int(data[position + 1]) << 16 | Int(data[position + 2]) << 8 | Int(data[position + 3])
            let type = String(decoding: data[(position + 4)..<(position + 8)], as: UTF8.self)
            guard size >= 8, position + size <= range.upperBound else { break }
            result.append((type, (position + 8)..<(position + size)))
            position += size
        }
        return result
    }

    /// What starts a CMAF segment: the first sample's flags in `trun` (sync: not
    /// `sample_is_non_sync_sample`), whether a `rap ` `sbgp` and `sgpd` are in its `traf` (and
    /// the leading samples the entry gives), and the first NAL unit type of the first sample.
    static func segmentStart(_ path: String) throws -> (sync: Bool, rapLeading: Int?, nalType: Int) {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let top = boxes(data, 0..<data.count)
        let moof = try #require(top.first { $0.type == "moof" })
        let mdat = try #require(top.first { $0.type == "mdat" })
        let traf = try #require(boxes(data, moof.payload).first { $0.type == "traf" })
        let children = boxes(data, traf.payload)
        let trun = try #require(children.first { $0.type == "trun" })
        let flags = Int(data[trun.payload.lowerBound + 3]) | Int(data[trun.payload.lowerBound + 2]) << 8
        #expect(flags & 0x0400 != 0 && flags & 0x0004 == 0, "trun flags \(flags)")
        // sample_count, data_offset, then duration, size, flags of the first sample.
        let first = trun.payload.lowerBound + 4 + 4 + 4 + 4 + 4
        let sampleFlags = Int(data[first]) << 24 | Int(data[first + 1]) << 16
        var rap: Int?
        if let sgpd = children.first(where: { $0.type == "sgpd" }), children.contains(where: { $0.type == "sbgp" }) {
            let body = sgpd.payload.lowerBound
            #expect(String(decoding: data[(body + 4)..<(body + 8)], as: UTF8.self) == "rap ")
            let entry = data[body + 16]
            #expect(entry & 0x80 != 0, "num_leading_samples_known")
            rap = Int(entry & 0x7F)
        }
        // The first VCL NAL unit (4-byte lengths; type < 32) of the first sample, which starts the mdat.
        var position = mdat.payload.lowerBound
        var nalType = -1
        while position + 5 <= mdat.payload.upperBound {
            let length = Int(data[position]) << 24 | Int(data[position + 1]) << 16 | Int(data[position + 2]) << 8 | Int(data[position + 3])
            let type = Int(data[position + 4] >> 1) & 0x3F
            if type < 32 {
                nalType = type
                break
            }
            position += 4 + length
        }
        return (sampleFlags & 0x0001_0000 == 0, rap, nalType)
    }

    @Test func keepMarksTheCRAAsSAPType3AndDecodesEveryPicture() throws {
        let scratch = try Scratch()
        let (dir, result) = try Package.package([Self.source], ["--hls", "--dash", "--segment-duration", "1"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("SAP type 3"), "\(result.stderr)")
        let frames = try Package.md5s(Self.source, map: "0:v:0")
        #expect(frames.count == 75)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            #expect(try Package.md5s(dir + "/" + manifest, map: "0:v:0") == frames, "\(manifest): pictures differ")
        }
        let parsed = try Package.parsePlaylists(dir)
        let playlist = try #require((parsed["playlists"] as? [String: [String: Any]])?["v0.m3u8"])
        #expect(playlist["independent"] as? Bool == false)
        let master = try String(contentsOfFile: dir + "/master.m3u8", encoding: .utf8)
        #expect(!master.contains("EXT-X-INDEPENDENT-SEGMENTS"))
        let mpd = try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8)
        #expect(mpd.contains("contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" startWithSAP=\"3\""))
        // Each segment starts with a sync sample, or with a CRA in a 'rap ' group.
        var grouped = 0
        for uri in try #require(playlist["uris"] as? [String]) {
            let start = try Self.segmentStart(dir + "/" + uri)
            if start.sync {
                #expect(start.rapLeading == nil)
                #expect([19, 20, 21].contains(start.nalType), "\(uri): NAL type \(start.nalType)")
            } else {
                grouped += 1
                #expect(start.nalType == 21, "\(uri): NAL type \(start.nalType)")
                #expect((start.rapLeading ?? 0) > 0, "\(uri): no rap group")
            }
        }
        #expect(grouped > 0)
        // nalu doctor finds nothing wrong with it.
        let doctor = try CLIRunner.run(["doctor", dir])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
    }

    @Test func blaDropsTheRASLPicturesAndKeepsTheOthers() throws {
        let scratch = try Scratch()
        let (dir, result) = try Package.package([Self.source], ["--hls", "--dash", "--segment-duration", "1", "--open-gop", "bla"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        // "… rewritten as BLA, N RASL pictures dropped"
        let note = try #require(result.stderr.split(separator: "\n").first { $0.contains("RASL picture") && $0.contains("dropped") })
        let words = note.split(separator: " ")
        let index = try #require(words.firstIndex { $0.hasPrefix("RASL") })
        let dropped = try #require(Int(words[index - 1]))
        #expect(dropped > 0)
        let frames = try Package.md5s(Self.source, map: "0:v:0")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let kept = try Package.md5s(dir + "/" + manifest, map: "0:v:0")
            #expect(kept.count == frames.count - dropped, "\(manifest): \(kept.count) pictures")
            // The kept pictures are the source's, in order.
            var iterator = frames.makeIterator()
            #expect(kept.allSatisfy { picture in
                while let next = iterator.next() { if next == picture { return true } }
                return false
            }, "\(manifest): a picture is not the source's")
        }
        let parsed = try Package.parsePlaylists(dir)
        let playlist = try #require((parsed["playlists"] as? [String: [String: Any]])?["v0.m3u8"])
        #expect(playlist["independent"] as? Bool == true)
        let mpd = try String(contentsOfFile: dir + "/manifest.mpd", encoding: .utf8)
        #expect(mpd.contains("startWithSAP=\"1\""))
        var rewritten = 0
        for uri in try #require(playlist["uris"] as? [String]) {
            let start = try Self.segmentStart(dir + "/" + uri)
            #expect(start.sync && start.rapLeading == nil, "\(uri)")
            #expect([17, 18, 19, 20, 21].contains(start.nalType), "\(uri): NAL type \(start.nalType)")
            if start.nalType == 17 || start.nalType == 18 { rewritten += 1 }
        }
        #expect(rewritten > 0)
        #expect(try CLIRunner.run(["package", Self.source, "-o", scratch.file("x"), "--hls", "--open-gop", "cut"]).status == 64)
    }
}
