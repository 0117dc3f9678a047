public import NALU

/// ffprobe's `field_order` of an H.264 stream, from its first access unit
/// (``NALU/InterlaceDetector/avcFieldOrderName``: picture timing `pic_struct`, else the order
/// counts of the first frame's two fields). A field picture gives no field order (`nil`), nor
/// does an H.265 stream (FFmpeg's parser reports none).
struct FieldOrder {
    private var detector: InterlaceDetector

    init(codec: Codec) { detector = InterlaceDetector(codec: codec) }

    /// `tt`, `bb`, `progressive`, or `nil`.
    var name: String? { detector.avcFieldOrderName }
    var isDone: Bool { detector.codec != .h264 || detector.isDone }

    /// Takes the NAL units (escaped, header included) up to the first slice, which decides.
    mutating func add(_ nalUnit: ArraySlice<UInt8>) {
        guard detector.codec == .h264 else { return }
        detector.add(nalUnit)
    }
}

extension MediaSource {
    /// Whether the video is interlaced, and how (``NALU/Interlace``), from its parameter sets,
    /// SEI and first slice (``NALU/InterlaceDetector``); `nil` when progressive.
    ///
    /// Reads only up to the first slice; a stream damaged before it reads as progressive (the
    /// damage is its decoder's to report). An MP4/MOV input is read through its sample table (the
    /// source stays readable); any other input is read from a second opening of ``path`` with
    /// `options`, so this source's single pass is left untouched (standard input other than MP4:
    /// `.unsupported`, it cannot be opened twice).
    public func interlace(options: MediaSourceOptions = MediaSourceOptions()) throws(NALUError) -> Interlace? {
        return try NALUError.typed(field: "field order") {
            let source: MediaSource
            if mp4 != nil {
                source = self
            } else {
                guard path != "-" else {
                    throw NALUError(.unsupported, field: "standard input", detail: "the interlacing of a stream read once cannot be probed first; save it to a file")
                }
                source = try MediaSource(path: path, options: options)
            }
            var detector = InterlaceDetector(codec: codec)
            for unit in outOfBandParameterSets { detector.add(unit[...]) }
            do {
                try source.forEachNALUnit { unit in
                    detector.add(unit.array[...])
                    if detector.isDone { throw FirstSliceSeen() }
                }
            } catch is FirstSliceSeen {
            } catch {
                // Damage before the first slice decides nothing here: whoever decodes the stream
                // reports it (this probe is no second, earlier verdict on the input).
            }
            return detector.interlace
        }
    }
}

/// Ends ``MediaSource/interlace(options:)``'s read at the first slice.
private struct FirstSliceSeen: Error {}
