import Foundation
import Testing
import NALU
@testable import NALUMP4

/// Which parameter sets reach the `avcC`/`hvcC` record when the stream replaces one before its
/// first picture, and what happens when the record would not parse.
@Suite struct MP4MuxerParameterSetTests {
    /// Annex-B bytes of NAL units.
    func annexB(_ units: [[UInt8]]) -> [UInt8] { units.flatMap { [0, 0, 0, 1] + $0 } }

    /// An SPS with the same id but other bytes ahead of a stream's own (a dead version: no
    /// picture uses it) does not reach the record: the record holds the stream's own parameter
    /// sets, the samples none, and ffmpeg decodes the file to the frames of the untouched stream.
    @Test(arguments: ["avc_main", "hevc_main"])
    func replacedBeforeTheFirstPicture(name: String) throws {
        let fixture = RemuxFixture(name: name)
        let codec = fixture.codec
        let original = try fixture.bytes(fixture.streamExtension)
        let units = annexBNALUnits(original)
        // The SPS of another fixture of the same codec (id 0 too, other profile and size).
        let other = annexBNALUnits(try RemuxFixture(name: codec == .h264 ? "avc_high444" : "hevc_rext444").bytes(fixture.streamExtension))
        let spsType: UInt8 = codec == .h264 ? 7 : 33
        let isSPS = { (unit: [UInt8]) in (codec == .h264 ? unit[0] & 0x1F : (unit[0] >> 1) & 0x3F) == spsType }
        let deadSPS = try #require(other.first(where: isSPS))
        let ownSPS = try #require(units.first(where: isSPS))
        #expect(deadSPS != ownSPS)
        let (bytes, summary) = try mux(annexB([deadSPS] + units), codec: codec)

        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        var firstSeen: [[UInt8]] = []
        for unit in units where isParameterSet(unit, codec) && !firstSeen.contains(unit) { firstSeen.append(unit) }
        #expect(reader.track.decoderConfiguration.parameterSets == firstSeen)
        #expect(summary.parameterSetsKeptInBand == 0)
        #expect(try sampleNALUnits(reader) == units.filter { !isParameterSet($0, codec) })
        let facts = try fixture.facts()
        try checkWithFFmpeg(bytes, source: fixture.url(fixture.streamExtension).path, codec: codec, frames: facts.frames,
                            frameRate: facts.r_frame_rate ?? "", keyframes: try keyframeIndices(original, codec: codec))
    }

    /// An H.265 PPS of layer 1 with the id of the stream's own PPS 0 (the PPS of `hevc_wpp_aud`,
    /// with wavefront entry points, its header's `nuh_layer_id` set to 1) ahead of the first
    /// picture: a base-layer decoder ignores it (7.4.2.2), so the record keeps the base layer's
    /// sets, the slices are read with them, and the layer-1 PPS stays in the sample where it
    /// was. The file converts back to the input less the record's sets, and ffmpeg decodes it to
    /// the frames of the untouched stream. (The mp4 fuzz target's find: the layer-1 PPS replaced
    /// PPS 0 in the muxer's store, and the file it wrote did not convert back.)
    @Test func parameterSetOfAnotherLayerStaysInBand() throws {
        let fixture = RemuxFixture(name: "hevc_main")
        let original = try fixture.bytes(fixture.streamExtension)
        let units = annexBNALUnits(original)
        let wppPPS = try #require(annexBNALUnits(try RemuxFixture(name: "hevc_wpp_aud").bytes("h265")).first { $0[0] >> 1 == 34 })
        let layerOnePPS = HEVCNALUnitHeader(nalUnitType: .pps, nuhLayerId: 1).bytes + wppPPS.dropFirst(2)
        #expect(!Codec.hevc.isParameterSet(layerOnePPS))
        #expect(Codec.hevc.isParameterSet(firstByte: layerOnePPS[0]))
        var store = ParameterSetStore(codec: .hevc)
        #expect(try store.add(layerOnePPS) == .otherLayer)
        #expect(store.isEmpty)

        let firstSlice = try #require(units.firstIndex { $0[0] >> 1 < 32 })
        let input = Array(units[..<firstSlice]) + [layerOnePPS] + Array(units[firstSlice...])
        let (bytes, summary) = try mux(annexB(input), codec: .hevc)
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        var baseSets: [[UInt8]] = []
        for unit in units where isParameterSet(unit, .hevc) && !baseSets.contains(unit) { baseSets.append(unit) }
        #expect(reader.track.decoderConfiguration.parameterSets == baseSets)
        #expect(summary.parameterSetsKeptInBand == 0)
        let samples = try sampleNALUnits(reader)
        #expect(samples == input.filter { !isParameterSet($0, .hevc) })
        #expect(samples.filter { $0 == layerOnePPS }.count == 1)
        var sink = MemorySink()
        try MP4ToAnnexB.convert(reader, to: &sink)
        #expect(annexBNALUnits(sink.bytes).filter { $0 == layerOnePPS }.count == 1)
        let facts = try fixture.facts()
        try checkWithFFmpeg(bytes, source: fixture.url(fixture.streamExtension).path, codec: .hevc, frames: facts.frames,
                            frameRate: facts.r_frame_rate ?? "", keyframes: try keyframeIndices(original, codec: .hevc))
    }

    /// The mp4 fuzz target's find: a 4:4:4 SPS replaced by a 4:2:0 one (same id) before the PPS.
    /// The record holds the 4:2:0 SPS the PPS was parsed with, so the file converts back; with
    /// the 4:4:4 SPS last instead, the PPS (8x8 scaling lists for two chroma components, not
    /// six) no longer parses under its SPS: the store drops it, and the picture that refers to it
    /// is refused for a missing PPS rather than written into a file that cannot be read.
    @Test func recordThatWouldNotParse() throws {
        let input = Array(try Data(contentsOf: fixtureDirectory.appendingPathComponent("fuzz-regressions/mp4/record-keeps-a-replaced-sps")))
        let units = annexBNALUnits(Array(input.dropFirst()))
        #expect(units.map { $0[0] & 0x1F } == [7, 7, 8, 5, 1])
        let (bytes, _) = try mux(annexB(units), codec: .h264, options: MP4MuxerOptions(frameRate: Rational(25, 1)))
        let reader = try MP4VideoTrackReader(MemoryRandomAccessSource(bytes))
        #expect(reader.track.decoderConfiguration.parameterSets == [units[1], units[2]])
        var sink = MemorySink()
        try MP4ToAnnexB.convert(reader, to: &sink)
        #expect(annexBNALUnits(sink.bytes) == Array(units[1...]))

        let reordered = [units[1], units[2], units[0], units[3], units[4]]
        let failure = try #require(throws: NALUError.self) {
            _ = try mux(annexB(reordered), codec: .h264, options: MP4MuxerOptions(frameRate: Rational(25, 1)))
        }
        #expect(failure.code == .missing)
        #expect(failure.field == "pic_parameter_set_id")
    }
}
