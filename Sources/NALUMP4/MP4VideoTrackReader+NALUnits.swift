public import NALU

extension MP4VideoTrackReader {
    /// Calls `body` with every NAL unit of every sample, in decoding order.
    ///
    /// A sample is a run of NAL units, each preceded by its length in the sample entry's
    /// `lengthSizeMinusOne + 1` bytes (ISO/IEC 14496-15 5.3.2, 8.3.2); zero-length ones are
    /// skipped. Each ``NALUnitView`` has its file offset and the length field as its prefix. When
    /// samples switch to another sample entry, that entry's parameter sets come first (with the
    /// sample's offset and no prefix), so a decoder fed these units sees every parameter set it
    /// needs. Samples are read through one 512 KiB window onto the file (`MP4SampleWindow`): a run
    /// of small samples costs one read, not one each.
    /// - Parameter sampleStarts: called with each sample before its NAL units.
    /// - Throws: ``NALUError`` for a sample outside the file or a NAL unit length past its sample.
    public func forEachNALUnit(sampleStarts: (MP4Sample) throws -> Void = { _ in },
                               _ body: (NALUnitView) throws -> Void) throws {
        try forEachNALUnit(sampleStarts: sampleStarts, beforeReuse: nil, body)
    }

    /// As ``forEachNALUnit(sampleStarts:_:)``; with a `beforeReuse` hook the NAL units of samples
    /// read through the window are lendable (``NALUnitView/isLendable``): the hook runs before
    /// the window is refilled or freed, also when this throws, and a sample overlapping bytes
    /// already lent is read again from the file, not from the window.
    ///
    /// With a `damagedSample` handler, a NAL unit length field that runs past the end of its
    /// sample (``NALUError/Code/lengthPastEnd`` or `.truncated`, field `NAL unit length`) does
    /// not end the walk: the NAL units before it have gone to `body`, and the handler gets a
    /// view of the rest of the sample from that length field (offset its file offset, no
    /// prefix) with the error; the walk goes on with the next sample, which the container still
    /// frames (ISO/IEC 14496-12 8.7.3, 8.8.8). Without one, the error ends the walk.
    package func forEachNALUnit(sampleStarts: (MP4Sample) throws -> Void = { _ in }, beforeReuse: (() throws -> Void)?,
                                damagedSample: ((NALUnitView, NALUError) throws -> Void)? = nil,
                                _ body: (NALUnitView) throws -> Void) throws {
        // The window lives in this scope: the hook runs here, before it is freed.
        var window = MP4SampleWindow()
        guard let beforeReuse else {
            return try walkNALUnits(window: &window, sampleStarts: sampleStarts, beforeReuse: nil, damagedSample: damagedSample, body)
        }
        do {
            try walkNALUnits(window: &window, sampleStarts: sampleStarts, beforeReuse: beforeReuse, damagedSample: damagedSample, body)
        } catch {
            try? beforeReuse()
            throw error
        }
        try beforeReuse()
    }

    private func walkNALUnits(window: inout MP4SampleWindow, sampleStarts: (MP4Sample) throws -> Void, beforeReuse: (() throws -> Void)?,
                              damagedSample: ((NALUnitView, NALUError) throws -> Void)?, _ body: (NALUnitView) throws -> Void) throws {
        let descriptions = track.sampleDescriptions
        var current = 1
        // The current entry's length size, kept as a plain value: the record (arrays of
        // parameter sets) is looked at only when the entry changes, not copied per sample.
        var lengthSize = descriptions.first?.record.lengthSize ?? 4
        try forEachSample { sample in
            try sampleStarts(sample)
            let index = sample.sampleDescriptionIndex
            // The sample table and fragment parsers reject other indices; this keeps it local.
            guard index >= 1 && index <= descriptions.count else {
                throw NALUError(.invalidValue, field: "sample_description_index", byteOffset: sample.offset,
                                detail: "sample \(sample.index + 1) names entry \(index) of \(descriptions.count)")
            }
            if index != current {
                current = index
                let record = descriptions[index - 1].record
                lengthSize = record.lengthSize
                for unit in record.parameterSets {
                    try NALUnitView.withNALUnit(unit, offset: sample.offset, body)
                }
            }
            try window.withSample(sample, from: source, beforeReuse: beforeReuse) { bytes, lendable in
                guard let damagedSample else {
                    return try LengthPrefixed.forEachNALUnit(in: bytes, lengthSize: lengthSize, baseOffset: sample.offset, within: "sample",
                                                             lendable: lendable, body)
                }
                try Self.forEachNALUnit(in: bytes, of: sample, lengthSize: lengthSize, lendable: lendable, damagedSample: damagedSample, body)
            }
        }
    }

    /// An error of the caller's `body`, passed through the framing untouched (so it is never
    /// taken for damage of the sample).
    private struct PassedOn: Error {
        var error: any Error
    }

    /// One sample's NAL units; a length field past its end goes to `damagedSample` with the
    /// rest of the sample.
    private static func forEachNALUnit(in bytes: UnsafeRawBufferPointer, of sample: MP4Sample, lengthSize: Int, lendable: Bool,
                                       damagedSample: (NALUnitView, NALUError) throws -> Void,
                                       _ body: (NALUnitView) throws -> Void) throws {
        do {
            try LengthPrefixed.forEachNALUnit(in: bytes, lengthSize: lengthSize, baseOffset: sample.offset, within: "sample",
                                              lendable: lendable) { unit in
                do { try body(unit) } catch { throw PassedOn(error: error) }
            }
        } catch let passed as PassedOn {
            throw passed.error
        } catch let error as NALUError where error.field == "NAL unit length" && (error.code == .lengthPastEnd || error.code == .truncated) {
            // The length field's position in the sample (the error names its file offset).
            let position = Int(clamping: max(0, min(Int64(bytes.count), (error.byteOffset ?? sample.offset) - sample.offset)))
            try NALUnitView.withNALUnit(UnsafeRawBufferPointer(rebasing: bytes[position...]), offset: sample.offset + Int64(position)) {
                try damagedSample($0, error)
            }
        }
    }
}

extension MP4VideoTrackReader {
    /// Calls `body` with every access unit of the track (found by ``AccessUnitSplitter``, which
    /// starts with the sample entry's parameter sets) and the sample it starts at: the sample
    /// whose first byte is the access unit's first byte, or `nil` when the access unit starts
    /// inside a sample.
    ///
    /// Memory is constant: only the sample being read and the one the current access unit
    /// started in are kept, however many samples (empty ones included) an access unit spans.
    /// - Throws: ``NALUError`` from the samples or the splitter.
    public func forEachAccessUnit(_ body: (AccessUnitSummary, MP4Sample?) throws -> Void) throws {
        var splitter = AccessUnitSplitter(codec: track.codec)
        for unit in track.decoderConfiguration.parameterSets { try splitter.addParameterSet(unit) }
        var sample: MP4Sample?
        var startSample: MP4Sample?
        try forEachNALUnit(sampleStarts: { sample = $0 }) { unit in
            let step = try splitter.push(unit)
            if let completed = step.completed { try body(completed, startSample) }
            if step.startsAccessUnit {
                let start = unit.offset - Int64(unit.prefixLength)
                startSample = sample.flatMap { $0.offset == start ? $0 : nil }
            }
        }
        if let last = splitter.finish() { try body(last, startSample) }
    }
}
