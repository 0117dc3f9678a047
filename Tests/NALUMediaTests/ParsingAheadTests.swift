import Foundation
import NALU
import NALUIO
import NALUMedia
import NALUMP4
import Testing

/// Annex-B → MP4 with the reading, access-unit splitting and picture order count on a second
/// thread (`ParsingAhead`, what `MP4FileSink.write` does on two free CPUs) gives exactly what
/// the one-thread path gives: the same file, or the same error at the same byte offset.
@Suite struct ParsingAheadTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Every raw Annex-B fixture.
    static let streams: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return files.filter { ($0.hasSuffix(".h264") || $0.hasSuffix(".h265")) && !$0.contains(".mp4toannexb.") }.sorted()
    }()

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nalu-ahead-\(UInt64.random(in: 0...UInt64.max)).mp4").path
    }

    enum Outcome: Equatable {
        case file([UInt8])
        case failure(String)
    }

    /// Converts `path` to MP4 on one thread or parsing ahead; the file's bytes or the error.
    static func convert(_ path: String, parsingAhead: Bool, options: MP4MuxerOptions = MP4MuxerOptions(frameRate: Rational(25, 1))) -> Outcome {
        let output = temporaryPath()
        defer { unlink(output) }
        do {
            let source = try MediaSource(path: path)
            let file = try FileSink(path: output)
            let sink = try MP4FileSink(for: source, output: file, options: options)
            if parsingAhead {
                guard try sink.writeParsingAhead(source, always: true) != nil else { return .failure("not parsed ahead") }
            } else {
                _ = try sink.writeOnOneThread(source)
            }
            try file.commit()
            return .file(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))))
        } catch let error as NALUError {
            return .failure("\(error.code) \(error.field) \(error.byteOffset.map(String.init) ?? "-") \(error.detail ?? "")")
        } catch {
            return .failure("\(error)")
        }
    }

    @Test(arguments: streams)
    func sameFileAsOneThread(file: String) {
        let path = Self.fixtures.appendingPathComponent(file).path
        let one = Self.convert(path, parsingAhead: false)
        let ahead = Self.convert(path, parsingAhead: true)
        #expect(ahead == one, "\(file)")
        if case .file(let bytes) = one { #expect(bytes.count > 1000) }
    }

    /// `avc_main.h264` with `inserted` placed at the `n`th three-byte start code prefix (found by
    /// `AnnexB.findStartCode`), and where that is.
    static func mainStream(inserting inserted: [UInt8], atStartCode n: Int) throws -> (stream: [UInt8], cut: Int) {
        let stream = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent("avc_main.h264")))
        var cut: Int?
        var from = 0
        stream.withUnsafeBytes { bytes in
            for _ in 0..<n {
                guard let found = AnnexB.findStartCode(in: bytes, from: from) else { return }
                cut = found
                from = found + 3
            }
        }
        let at = try #require(cut)
        return (Array(stream[..<at]) + inserted + Array(stream[at...]), at)
    }

    /// Converts `stream` from a file on one thread and parsing ahead.
    static func convertBothWays(_ stream: [UInt8]) throws -> (one: Outcome, ahead: Outcome) {
        let path = temporaryPath() + ".h264"
        defer { unlink(path) }
        try Data(stream).write(to: URL(fileURLWithPath: path))
        return (convert(path, parsingAhead: false), convert(path, parsingAhead: true))
    }

    /// A slice naming a picture parameter set the stream never sent, in the middle of a real
    /// stream: the splitter (on the thread) fails there, and the error reaches the caller after
    /// the NAL units before it, with the same offset as on one thread.
    @Test func threadErrorInStreamOrder() throws {
        // The start code of the 40th NAL unit, or so: past several buffers of pictures.
        // nal_ref_idc 2, type 1; first_mb_in_slice 0, slice_type 0 (P), pic_parameter_set_id 5.
        let badSlice: [UInt8] = [0, 0, 0, 1, 0x41, 0xCD, 0x80]
        let (damaged, cut) = try Self.mainStream(inserting: badSlice, atStartCode: 40)
        let (one, ahead) = try Self.convertBothWays(damaged)
        #expect(ahead == one)
        guard case .failure(let text) = one else {
            Issue.record("the damaged stream converted")
            return
        }
        // The PPS id's byte: after the 4-byte start code and the NAL header.
        #expect(text.hasPrefix("missing pic_parameter_set_id \(cut + 5) "), "\(text)")
    }

    /// 20,000 filler-data NAL units of 4 bytes after one picture: one read buffer holds more NAL
    /// units than a batch takes, so the thread hands the buffer over in parts; same file.
    @Test func tinyNALUnitsHandedOverInParts() throws {
        // filler_data_rbsp (7.3.2.7): nal_unit_type 12, 0xFF bytes, rbsp_trailing_bits.
        let filler: [UInt8] = [0, 0, 1, 0x0C, 0xFF, 0xFF, 0x80]
        var fillers: [UInt8] = []
        for _ in 0..<20_000 { fillers += filler }
        let (padded, _) = try Self.mainStream(inserting: fillers, atStartCode: 12)
        let (one, ahead) = try Self.convertBothWays(padded)
        #expect(ahead == one)
        guard case .file(let bytes) = one else {
            Issue.record("the padded stream did not convert: \(one)")
            return
        }
        // Every filler NAL unit is in a sample, with its 4-byte length.
        #expect(bytes.count > 20_000 * 7)
    }

    /// The caller's muxer fails midway (an access unit over the size limit): the thread stops,
    /// the call returns the muxer's error, as on one thread.
    @Test func callerErrorStopsTheThread() throws {
        var options = MP4MuxerOptions(frameRate: Rational(25, 1))
        options.maxAccessUnitSize = 3000
        let path = Self.fixtures.appendingPathComponent("avc_main.h264").path
        let one = Self.convert(path, parsingAhead: false, options: options)
        let ahead = Self.convert(path, parsingAhead: true, options: options)
        #expect(ahead == one)
        guard case .failure = one else {
            Issue.record("no access unit over 3000 bytes")
            return
        }
    }

    /// What does not apply: an MP4 input, a source opened without read-ahead.
    @Test func appliesOnlyToAnnexBWithReadAhead() throws {
        let mp4 = try MediaSource(path: Self.fixtures.appendingPathComponent("avc_main.mp4").path)
        #expect(!mp4.prepareToReadOnOneThread())
        var options = MediaSourceOptions()
        options.readsAhead = false
        let oneThread = try MediaSource(path: Self.fixtures.appendingPathComponent("avc_main.h264").path, options: options)
        #expect(!oneThread.prepareToReadOnOneThread())
        let annexB = try MediaSource(path: Self.fixtures.appendingPathComponent("avc_main.h264").path)
        #expect(annexB.prepareToReadOnOneThread())
    }
}
