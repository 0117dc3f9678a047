import Foundation
import Testing

/// Issue 35 item 7, `nalu doctor` on a streaming package (a folder, an `.m3u8`, an `.mpd`):
/// clean on what `nalu package` writes; on damaged copies it finds each fault by its stable
/// code (Docs/doctor.md) and exits 3.
@Suite struct PackageDoctorTests {
    typealias Package = PackageCommandTests

    /// `nalu doctor --json` on `path`: exit status and the codes found.
    static func doctor(_ path: String, _ extra: [String] = []) throws -> (status: Int32, codes: [String], output: String) {
        let result = try CLIRunner.run(["doctor", path, "--json"] + extra)
        let codes = result.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object["code"] as? String
        }
        return (result.status, codes, result.stdout + result.stderr)
    }

    /// A fresh package of the phone clip (H.264 + AAC, 4 s segments) in `scratch`.
    static func package(_ scratch: Scratch) throws -> String {
        let (dir, result) = try Package.package([Package.realWorld("phone.mp4")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        return dir
    }

    static func edit(_ path: String, _ body: (String) -> String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try body(text).write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func cleanOnWhatPackageWrites() throws {
        let scratch = try Scratch()
        let dir = try Self.package(scratch)
        for path in [dir, dir + "/master.m3u8", dir + "/manifest.mpd", dir + "/v0.m3u8"] {
            let run = try Self.doctor(path, ["--target", "apple"])
            #expect(run.status == 0 && run.codes.isEmpty, "\(path): \(run.output)")
        }
        let text = try CLIRunner.run(["doctor", dir])
        #expect(text.status == 0 && text.stdout.contains("no problems found"), "\(text.stdout)")
        // MPEG-TS segments, and a transport stream input.
        let other = try Scratch()
        let (tsDir, tsRun) = try Package.package([Package.realWorld("phone.ts")], ["--hls", "--segment-type", "ts"], in: other)
        #expect(tsRun.status == 0, "\(tsRun.stderr)")
        let run = try Self.doctor(tsDir)
        #expect(run.status == 0 && run.codes.isEmpty, "\(run.output)")
    }

    @Test func missingSegmentAndWrongCodecs() throws {
        let scratch = try Scratch()
        let dir = try Self.package(scratch)
        try FileManager.default.removeItem(atPath: dir + "/v0_00002.m4s")
        try Self.edit(dir + "/master.m3u8") { $0.replacingOccurrences(of: "avc1.64000d", with: "avc1.640028") }
        let run = try Self.doctor(dir)
        #expect(run.status == 3, "\(run.output)")
        #expect(run.codes.contains("package-file-missing") && run.codes.contains("codecs-mismatch"), "\(run.codes)")
        #expect(run.output.contains("v0_00002.m4s") && run.output.contains("avc1.640028"), "\(run.output)")
        // The MPD alone: the missing segment, not the playlist's codecs.
        let mpd = try Self.doctor(dir + "/manifest.mpd")
        #expect(mpd.status == 3 && mpd.codes == ["package-file-missing"], "\(mpd.output)")
    }

    @Test func segmentOverTheTargetDuration() throws {
        let scratch = try Scratch()
        let dir = try Self.package(scratch)
        try Self.edit(dir + "/v0.m3u8") { $0.replacingOccurrences(of: "#EXT-X-TARGETDURATION:4", with: "#EXT-X-TARGETDURATION:2") }
        let run = try Self.doctor(dir + "/master.m3u8")
        #expect(run.status == 3 && run.codes == ["segment-over-target"], "\(run.output)")
    }

    /// A segment made by hand to start mid-GOP: the second segment without its first sample (the
    /// keyframe): `trun` shortened by one entry, its bytes cut from the `mdat`, `tfdt` moved on.
    @Test func segmentStartingMidGOP() throws {
        let scratch = try Scratch()
        let dir = try Self.package(scratch)
        let path = dir + "/v0_00002.m4s"
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3]) }
        func put(_ at: Int, _ value: Int) {
            for index in 0..<4 { data[at + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        }
        let styp = u32(0)
        let moof = styp
        let traf = moof + 8 + 16
        var position = traf + 8
        var tfdt = 0, trun = 0
        while position < traf + u32(traf) {
            let type = String(decoding: data[(position + 4)..<(position + 8)], as: UTF8.self)
            if type == "tfdt" { tfdt = position }
            if type == "trun" { trun = position }
            position += u32(position)
        }
        #expect(tfdt > 0 && trun > 0 && data[trun + 11] == 0x01 && data[trun + 10] == 0x0F)
        let count = u32(trun + 12)
        let firstDuration = u32(trun + 20)
        let firstSize = u32(trun + 24)
        let mdat = moof + u32(moof)
        // Shorter boxes, one trun entry (16 bytes) fewer.
        put(moof, u32(moof) - 16)
        put(traf, u32(traf) - 16)
        put(trun, u32(trun) - 16)
        put(trun + 12, count - 1)
        put(trun + 16, u32(trun + 16) - 16)
        let decode = Int(data[tfdt + 12]) << 56 | Int(data[tfdt + 13]) << 48 | Int(data[tfdt + 14]) << 40 | Int(data[tfdt + 15]) << 32 | u32(tfdt + 16)
        put(tfdt + 16, (decode + firstDuration) & 0xFFFF_FFFF)
        put(mdat, u32(mdat) - firstSize)
        data.removeSubrange((mdat + 8)..<(mdat + 8 + firstSize))
        data.removeSubrange((trun + 20)..<(trun + 36))
        try Data(data).write(to: URL(fileURLWithPath: path))
        // ffprobe reads it: the first packet is no keyframe.
        let header = try Data(contentsOf: URL(fileURLWithPath: dir + "/v0_init.mp4"))
        try scratch.write("check.mp4", header + Data(data))
        #expect(try Package.packets(scratch.file("check.mp4")).first?.key == false)
        let run = try Self.doctor(dir + "/master.m3u8")
        #expect(run.status == 3 && run.codes.contains("segment-starts-without-keyframe"), "\(run.output)")
        #expect(run.output.contains("v0_00002.m4s"))
    }

    /// `hev1` is a warning, an error for `--target apple`.
    @Test func hev1SampleEntryForApple() throws {
        let scratch = try Scratch()
        let (dir, result) = try Package.package([CLIRunner.fixture("mp4_hevc_hvc1.mp4")], ["--hls"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        // The sample entry (after stsd's header) renamed; the declared codecs follow.
        var header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/v0_init.mp4")))
        let stsd = try #require(Data(header).range(of: Data("stsd".utf8)))
        let entry = stsd.upperBound + 8 + 4
        #expect(String(decoding: header[entry..<(entry + 4)], as: UTF8.self) == "hvc1")
        header.replaceSubrange(entry..<(entry + 4), with: Array("hev1".utf8))
        try Data(header).write(to: URL(fileURLWithPath: dir + "/v0_init.mp4"))
        try Self.edit(dir + "/master.m3u8") { $0.replacingOccurrences(of: "CODECS=\"hvc1.", with: "CODECS=\"hev1.") }
        let plain = try Self.doctor(dir)
        #expect(plain.status == 0 && plain.codes == ["hev1-sample-entry"], "\(plain.output)")
        let apple = try Self.doctor(dir, ["--target", "apple"])
        #expect(apple.status == 3 && apple.codes == ["hev1-sample-entry"], "\(apple.output)")
    }

    /// Two renditions with different GOPs packaged with --no-align-check.
    @Test func misalignedRenditions() throws {
        let scratch = try Scratch()
        let ffmpeg = try #require(ffmpegPath)
        func encode(_ name: String, gop: String) throws -> String {
            let path = scratch.file(name)
            let result = try runProgram(ffmpeg, ["-nostdin", "-v", "error", "-i", Package.realWorld("phone.mp4"), "-t", "6", "-an", "-c:v", "libx264",
                                                 "-preset", "ultrafast", "-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-y", path])
            #expect(result.status == 0, "\(result.stderr)")
            return path
        }
        let a = try encode("a.mp4", gop: "60")
        let b = try encode("b.mp4", gop: "45")
        let (dir, result) = try Package.package([a, b], ["--hls", "--dash", "--segment-duration", "2", "--no-align-check"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        for path in [dir + "/master.m3u8", dir + "/manifest.mpd"] {
            let run = try Self.doctor(path)
            #expect(run.status == 3 && run.codes == ["renditions-misaligned"], "\(path): \(run.output)")
        }
    }
}
