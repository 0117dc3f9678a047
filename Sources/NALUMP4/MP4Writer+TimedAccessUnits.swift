public import NALU

extension MP4WriterConfiguration {
    /// A configuration for access units from an encoder (for example an `EncoderSession`'s
    /// packets and its `decoderConfigurationRecord()`), timed in `timeBase` units.
    ///
    /// - The timescale is `timeBase`'s denominator (reduced), so every timestamp converts to a
    ///   whole number of ticks: 1/30 gives a timescale of 30, 1001/30000 one of 30000.
    /// - The sample entry is `avc1`/`hvc1` when `parameterSetCarriage` is out of band and
    ///   `avc3`/`hev1` when in band, and an hvcC's `array_completeness` is set to match
    ///   (``NALU/ParameterSetCarriage``), whatever the record said.
    public init(decoderConfigurationRecord record: DecoderConfigurationRecord, parameterSetCarriage: ParameterSetCarriage,
                width: Int, height: Int, timeBase: Rational, layout: MP4Layout = .moovAtEnd) throws(NALUError) {
        let reduced = timeBase.reduced
        guard reduced.numerator > 0, reduced.denominator > 0, reduced.denominator <= Int64(UInt32.max) else {
            throw NALUError(.invalidValue, field: "time base", detail: "\(timeBase); needs a positive numerator and a denominator up to \(UInt32.max)")
        }
        var record = record
        if case .hevc(var hevc) = record {
            for index in hevc.arrays.indices where (32...34).contains(hevc.arrays[index].nalUnitType) {
                hevc.arrays[index].arrayCompleteness = parameterSetCarriage.arrayCompleteness
            }
            record = .hevc(hevc)
        }
        self.init(sampleEntry: MP4SampleEntryType(codec: record.codec, inBandParameterSets: parameterSetCarriage == .inBand),
                  decoderConfigurationRecord: record.bytes, width: width, height: height,
                  timescale: UInt32(reduced.denominator), layout: layout)
    }
}

/// What ``MP4Writer/append(_:)`` keeps between access units.
struct TimedAppendState {
    /// The previous access unit, written when the next one gives its duration.
    var held: (sample: [UInt8], dts: Int64, pts: Int64, sync: Bool)?
    var lastDuration: UInt32?
    /// The record's parameter sets and length size, parsed once.
    var record: (sets: [[UInt8]], lengthSize: Int)?
}

extension MP4Writer {
    /// Appends an encoder's access unit (an `EncodedPacket`): timestamps converted from its time
    /// base to ticks of the timescale, Annex-B or 4-byte length-prefixed framing converted to the
    /// record's length size, and parameter sets the record holds removed for `avc1`/`hvc1`
    /// (``NALU/ParameterSetCarriage``).
    ///
    /// A sample's duration is the distance to the next access unit's dts, so each access unit is
    /// written when the next arrives; ``finish()`` writes the last with the duration before it.
    /// Access units must come in decoding order (dts strictly increasing), and do not mix with
    /// the byte-level ``append(_:duration:compositionOffset:isSync:)`` in one file.
    public func append(_ unit: some TimedAccessUnit) throws(NALUError) {
        do {
            try appendTimed(unit)
        } catch {
            throw NALUError.converting(error, field: "access unit")
        }
    }

    /// ``append(_:)``'s work.
    private func appendTimed(_ unit: some TimedAccessUnit) throws(NALUError) {
        let dts = try ticks(unit.dts, timeBase: unit.timeBase, field: "dts")
        let pts = try ticks(unit.pts, timeBase: unit.timeBase, field: "pts")
        let sample = try sampleBytes(unit)
        if let held = timedState.held {
            guard dts > held.dts, dts - held.dts <= Int64(UInt32.max) else {
                throw NALUError(.invalidValue, field: "dts", detail: "\(unit.dts) does not follow the previous access unit's")
            }
            let duration = UInt32(dts - held.dts)
            try append(held.sample, duration: duration, compositionOffset: held.pts - held.dts, isSync: held.sync)
            timedState.lastDuration = duration
        }
        timedState.held = (sample, dts, pts, unit.isSync)
    }

    /// Writes the access unit ``append(_:)`` holds back (called by ``finish()``).
    func flushHeldAccessUnit() throws(NALUError) {
        guard let held = timedState.held else { return }
        timedState.held = nil
        try append(held.sample, duration: timedState.lastDuration ?? 1, compositionOffset: held.pts - held.dts, isSync: held.sync)
    }

    private func ticks(_ value: Int64, timeBase: Rational, field: String) throws(NALUError) -> Int64 {
        // value · num / den seconds = value · num · timescale / den ticks.
        let (scaled, overflow1) = value.multipliedReportingOverflow(by: timeBase.numerator)
        let (product, overflow2) = scaled.multipliedReportingOverflow(by: Int64(configuration.timescale))
        guard !overflow1, !overflow2, timeBase.denominator > 0 else {
            throw NALUError(.doesNotFit, field: field, detail: "\(value) × \(timeBase) in timescale \(configuration.timescale)")
        }
        return product / timeBase.denominator
    }

    /// The access unit as a sample: NAL units with the record's length size, without the
    /// record's parameter sets when they travel out of band.
    private func sampleBytes(_ unit: some TimedAccessUnit) throws(NALUError) -> [UInt8] {
        if timedState.record == nil {
            let record = try DecoderConfigurationRecord(parsing: configuration.decoderConfigurationRecord)
            timedState.record = (record.parameterSets, record.lengthSize)
        }
        let record = timedState.record ?? ([], 4)
        let carriage = ParameterSetCarriage(inBand: configuration.sampleEntry.allowsInBandParameterSets)
        let codec = configuration.sampleEntry.codec
        var sample: [UInt8] = []
        sample.reserveCapacity(unit.bytes.count + 16)
        func add(_ nal: UnsafeRawBufferPointer) throws(NALUError) {
            guard !nal.isEmpty else { return }
            if codec.isParameterSet(nal), !carriage.keepsInAccessUnit(nal, record: record.sets) { return }
            guard record.lengthSize == 4 || nal.count < 1 << (8 * record.lengthSize) else {
                throw NALUError(.doesNotFit, field: "NAL unit length", detail: "\(nal.count) bytes in \(record.lengthSize) bytes")
            }
            for shift in stride(from: 8 * (record.lengthSize - 1), through: 0, by: -8) {
                sample.append(UInt8(truncatingIfNeeded: nal.count >> shift))
            }
            sample.append(contentsOf: nal)
        }
        try NALUError.typed(field: "access unit") { try unit.bytes.withUnsafeBytes { raw in
            switch unit.format {
            case .annexB:
                try AnnexB.forEachNALUnit(in: raw) { try add(UnsafeRawBufferPointer(rebasing: raw[$0])) }
            case .lengthPrefixed:
                try LengthPrefixed.forEachNALUnit(in: raw, lengthSize: 4) { try add(UnsafeRawBufferPointer(rebasing: raw[$0])) }
            }
        } }
        return sample
    }
}
