// Docs/mp4.md: the examples, compiled.
import NALU
import NALUIO
import NALUMP4

enum MP4Snippets {
    static func readSamples() throws {
        let reader = try MP4VideoTrackReader(RandomAccessFile(path: "in.mp4"))
        print(reader.track.sampleEntryType, reader.track.timescale, reader.track.editList)
        var buffer: [UInt8] = []
        try reader.forEachSample { sample in
            try reader.read(sample, into: &buffer)      // length-prefixed NAL units
            print(sample.index, sample.pts, sample.isSync)
        }

        var sink = try FileSink(path: "out.h264")
        try MP4ToAnnexB.convert(reader, to: &sink)      // ffmpeg's mp4toannexb, NAL for NAL
        try sink.commit()
    }

    static func mux() throws {
        let sink = try FileSink(path: "out.mp4")
        let muxer = try MP4Muxer(codec: .h264, sink: sink,
                                 options: MP4MuxerOptions(layout: .faststart, frameRate: Rational(30000, 1001)),
                                 spool: try SpoolFile())
        var reader = AnnexBReader(try FileSource(path: "in.h264"))
        try reader.forEachNALUnit { try muxer.push($0) }
        let summary = try muxer.finish()   // samples, sync samples, timescale, edit list …
        try sink.commit()
        _ = summary
    }
}
