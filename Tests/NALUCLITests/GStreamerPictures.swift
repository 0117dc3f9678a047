import Foundation
import Testing

/// The pictures GStreamer shows of a file, as a player does: `playbin` (qtdemux with its edit-list
/// segments, the decoder it picks, the sink's segment clipping) into `checksumsink` with MD5,
/// which prints each picture's presentation time and the MD5 of its raw planes. For the
/// fixtures' sizes (even widths that are multiples of 4) the planes are packed as ffmpeg's
/// framemd5 hashes them, so the MD5s compare with ``TimingTests/shown(_:)`` picture for picture.
/// The audio goes to a `fakesink`; neither sink waits for the clock.
enum GStreamerPictures {
    /// Each picture GStreamer shows of `path`, in order: presentation time (s) and MD5.
    static func shown(_ path: String) throws -> [(time: Double, md5: String)] {
        let uri = URL(fileURLWithPath: path).absoluteString
        let result = try runTool("gst-launch-1.0", ["-q", "playbin", "uri=\(uri)", "video-sink=checksumsink hash=0 sync=false",
                                                    "audio-sink=fakesink sync=false"])
        #expect(result.status == 0, "gst-launch playbin \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            // "0:00:01.234566666 0123…ef"
            let fields = line.split(separator: " ")
            guard fields.count == 2, fields[1].count == 32 else { return nil }
            let clock = fields[0].split(separator: ":").compactMap { Double($0) }
            guard clock.count == 3 else { return nil }
            return (clock[0] * 3600 + clock[1] * 60 + clock[2], String(fields[1]))
        }
    }
}
