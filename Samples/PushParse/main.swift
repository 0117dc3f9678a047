// Access units from bytes that arrive in pieces (a socket, a pipe): push them in as they come.
import Foundation
import NALU

/// Splits `stream` into uneven chunks, as a network would.
func chunks(of stream: [UInt8]) -> [[UInt8]] {
    stride(from: 0, to: stream.count, by: 1000).map { Array(stream[$0..<min($0 + 1000, stream.count)]) }
}

func accessUnits(in stream: [UInt8], codec: Codec) throws -> [AccessUnit] {
    var assembler = try AccessUnitAssembler(codec: codec)     // Annex-B; .lengthPrefixed(lengthSize:) too
    var units: [AccessUnit] = []
    for chunk in chunks(of: stream) {
        units += try assembler.append(chunk)                  // the access units this chunk completes
    }
    return units + (try assembler.finish())                   // the last one ends with the stream
}

func nalUnits(in stream: [UInt8]) throws -> Int {
    var framer = AnnexBFramer()                               // bounded: AnnexBFramer.defaultMaxBufferedBytes
    var count = 0
    for chunk in chunks(of: stream) {
        try chunk.withUnsafeBytes { bytes in
            try framer.append(bytes) { unit in count += 1; _ = unit.firstByte }  // zero-copy views
        }
    }
    framer.finish { _ in count += 1 }
    return count
}

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "Tests/Fixtures/avc_main.h264"
let stream = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
let units = try accessUnits(in: stream, codec: path.hasSuffix(".h265") ? .hevc : .h264)
print("\(units.count) access units, \(units.filter { $0.summary.keyframe != nil }.count) keyframes, \(try nalUnits(in: stream)) NAL units")
