import Foundation
import NALU
import NALUIO
import NALUMedia
import NALUMP4
import Testing

/// Lent NAL units (``NALUnitView`` with a `beforeReuse` hook): the converters rewrite each lent
/// unit's 4-byte length or start code in the reader's buffer and hand the run to ``FileSink``
/// without a copy. On the real fixtures, read in chunks of many sizes (so NAL units span reads
/// and the buffer moves and grows), the file must hold exactly what the in-memory conversion of
/// the same bytes gives (no lending there), and a second conversion of the same input must give
/// the same file again.
@Suite struct LentConversionTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static let chunkSizes = [64, 1000, 4096, 1 << 20]

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nalu-lent-\(UInt64.random(in: 0...UInt64.max)).bin").path
    }

    /// Annex-B → length-prefixed: 3- and 4-byte start codes, AUDs, several slices per picture.
    @Test(arguments: ["avc_main.h264", "avc_multislice.h264", "avc_ntsc_aud.h264", "avc_interlaced.h264", "hevc_main.h265",
                      "hevc_slices.h265", "hevc_wpp_aud.h265"])
    func annexBToLengthPrefixed(file: String) throws {
        let input = try Self.bytes(file)
        let codec: Codec = file.hasSuffix(".h265") ? .hevc : .h264
        var memory = try AnnexBToLengthPrefixed(codec: codec)
        let expected = try memory.convert(input)
        for chunkSize in Self.chunkSizes {
            let path = Self.temporaryPath()
            defer { unlink(path) }
            let sink = try FileSink(path: path, bufferSize: 4096)
            var converter = try AnnexBToLengthPrefixed(codec: codec)
            var output = sink
            var reader = AnnexBReader(MemorySource(input, chunkSize: chunkSize), chunkSize: chunkSize)
            try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.convert(unit, to: &output) }
            try sink.commit()
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(written == expected, "\(file), chunks of \(chunkSize)")
        }
    }

    /// Length-prefixed → Annex-B with the record's parameter sets before keyframes.
    @Test(arguments: ["avc_main", "avc_multislice", "avc_ntsc_aud", "avc_high_bframes", "hevc_main", "hevc_slices", "hevc_wpp_aud"])
    func lengthPrefixedToAnnexB(name: String) throws {
        let input = try Self.bytes(name + ".lp")
        let isHEVC = name.hasPrefix("hevc")
        let record = try DecoderConfigurationRecord(parsing: Self.bytes(name + (isHEVC ? ".hvcC" : ".avcC")), codec: isHEVC ? .hevc : .h264)
        let codec: Codec = isHEVC ? .hevc : .h264
        var memory = try LengthPrefixedToAnnexB(codec: codec, outOfBandParameterSets: record.parameterSets)
        let expected = try memory.convert(input, lengthSize: record.lengthSize)
        for chunkSize in Self.chunkSizes {
            let path = Self.temporaryPath()
            defer { unlink(path) }
            let sink = try FileSink(path: path, bufferSize: 4096)
            var converter = try LengthPrefixedToAnnexB(codec: codec, outOfBandParameterSets: record.parameterSets)
            var output = sink
            var reader = try LengthPrefixedReader(MemorySource(input, chunkSize: chunkSize), lengthSize: record.lengthSize, chunkSize: chunkSize)
            try reader.forEachNALUnit(beforeReuse: { try sink.returnLent() }) { unit in try converter.push(unit, to: &output) }
            try converter.finish(to: &output)
            try sink.commit()
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(written == expected, "\(name), chunks of \(chunkSize)")
        }
    }

    /// MP4 → Annex-B through `MediaSink.write` (lent samples from the MP4 window) equals the
    /// same conversion without lending (``MP4ToAnnexB``).
    @Test(arguments: ["avc_main.mp4", "avc_high_bframes.mp4", "mp4_avc_frag.mp4", "hevc_main.mp4", "mp4_hevc_hvc1.mp4"])
    func mp4ToAnnexB(file: String) throws {
        let path = Self.temporaryPath()
        defer { unlink(path) }
        let source = try MediaSource(path: Self.fixtures.appendingPathComponent(file).path)
        let output = try FileSink(path: path)
        let sink = try AnnexBSink(for: source, output: output)
        _ = try sink.write(source)
        try output.commit()
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))

        var memory = MemorySink()
        let plain = try MediaSource(path: Self.fixtures.appendingPathComponent(file).path)
        guard let reader = plain.mp4 else {
            Issue.record("\(file) is not read as MP4")
            return
        }
        try MP4ToAnnexB.convert(reader, to: &memory)
        #expect(written == memory.bytes, "\(file)")
        #expect(written.count > 1000)
    }
}
