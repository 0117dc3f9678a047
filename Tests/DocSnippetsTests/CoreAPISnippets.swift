// Docs/core-api.md and Sources/NALU/Documentation.docc/NALU.md: the examples, compiled (the
// coverage test finds each block's text here). Compiled, not run: they name files of the reader's.
import NALU
import NALUIO
import NALUMedia

enum CoreAPISnippets {
    static func readNALUnits() throws {
        var reader = AnnexBReader(try FileSource(path: "in.h264"))       // any ByteSource
        try reader.forEachNALUnit { unit in                              // NALUnitView
            print(unit.offset, unit.count, AVCNALUnitType(rawValue: unit.firstByte))  // valid in the closure only
        }
    }

    static func splitAccessUnits(_ path: String) throws {
        var reader = AnnexBReader(try FileSource(path: path))
        var splitter = AccessUnitSplitter(codec: .hevc)
        try reader.forEachNALUnit { unit in
            if let unit = try splitter.push(unit).completed, let key = unit.keyframe { print(unit.index, key) }
        }
    }

    static func mediaSource() throws {
        let source = try MediaSource(path: "in.mp4")          // or "-", a FIFO, an .h264, a .lp + record
        print(source.codec, source.container, source.otherTracks)
        let file = try FileSink(path: "out.h264")
        let report = try AnnexBSink(for: source, output: file).write(source)
        try file.commit()

        let summary = try StreamSummary.scan(try MediaSource(path: "in.h265"))     // all of `nalu info`
        let record = try ParameterSetCollector.collect(try MediaSource(path: "in.mov")).record()
        _ = (report, summary, record)
    }

    /// NALU.docc's overview.
    static func keyframes(_ bytes: [UInt8]) throws {
        var reader = try ElementaryStreamReader(MemorySource(bytes))   // detects framing and codec
        var splitter = AccessUnitSplitter(codec: reader.codec)
        try reader.forEachNALUnit { unit in
            if let accessUnit = try splitter.push(unit).completed, let key = accessUnit.keyframe {
                print("keyframe \(accessUnit.index) (\(key)) at byte \(accessUnit.offset)")
            }
        }
    }
}
