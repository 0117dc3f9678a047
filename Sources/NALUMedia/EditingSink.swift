public import NALU

/// A ``MediaSink`` in front of another that edits the stream on the way (`nalu edit`): each NAL
/// unit goes through a ``StreamEditor`` and is passed on unchanged (the same view, no copy),
/// replaced by its edited bytes, or dropped.
///
/// Parameter sets held outside the stream (an MP4 sample entry's or `--extradata` record) are
/// edited with ``edit(outOfBand:)`` before the next sink is made from them, so the output's
/// record carries the edit as well as every in-band copy.
public final class EditingSink: MediaSink {
    /// The editor, with its statistics and warnings.
    public private(set) var editor: StreamEditor
    private let next: any MediaSink

    public init(editor: StreamEditor, next: any MediaSink) {
        self.editor = editor
        self.next = next
    }

    /// Edits NAL units held outside the stream (a record's parameter sets, an hvcC's SEI)
    /// with `editor`, returning the ones kept.
    public static func edit(outOfBand units: [[UInt8]], with editor: inout StreamEditor) throws(NALUError) -> [[UInt8]] {
        return try NALUError.typed(field: "parameter sets") {
            try editor.edit(nalUnits: units)
        }
    }

    /// Edits `unit` and passes the result on. Errors from the edit carry the stream offset (an
    /// option's error, naming `--crop` or `--level`, has none).
    public func push(_ unit: NALUnitView) throws(NALUError) {
        let outcome: StreamEditor.Outcome
        do {
            outcome = try editor.edit(unit.bytes)
        } catch {
            throw error.field.hasPrefix("--") ? error : error.offset(by: unit.offset)
        }
        switch outcome {
        case .keep:
            try next.push(unit)
        case .drop:
            break
        case .replace(let bytes):
            try NALUnitView.withNALUnit(bytes, offset: unit.offset, prefixLength: unit.prefixLength) { (unit) throws(NALUError) in try next.push(unit) }
        }
    }

    public func finish() throws(NALUError) -> MediaSinkReport { try next.finish() }

    /// The next sink's clock: edited NAL units keep their offsets, so the times still match.
    public var sampleClock: SampleClock? { next.sampleClock }

    /// Units kept unchanged reach the next sink as lent: it returns them.
    public func returnLent() throws(NALUError) { try next.returnLent() }
}
