public import NALU

extension MediaSource {
    /// Calls `body` with every access unit in decoding order as a decoder takes it
    /// (``NALU/CodedAccessUnit``): its NAL units copied (escaped, no start codes or length
    /// prefixes), index and byte offset, keyframe class and picture type, times in the track's
    /// timescale where the container has them (``AccessUnit/timing``; `pts` is its
    /// presentation time), and the parameter sets in force. This is the library's one grouping
    /// of NAL units into access units: that of ``forEachAccessUnit(nalUnit:damaged:_:)``.
    ///
    /// Damaged NAL units (``DamagedNALUnit``: rejected by the splitter, or the rest of an MP4
    /// sample after a length field past its end) go to `damaged` and are left out; reading
    /// goes on. A `damaged` handler that throws ends the walk with its error.
    ///
    /// Memory holds one access unit's NAL units: more than `maxAccessUnitBytes` of them throw
    /// ``NALUError/Code/tooLarge`` (field `access unit`) at the NAL unit that crosses it.
    /// - Returns: the parameter sets in force at the end.
    @discardableResult
    public func forEachCodedAccessUnit(maxAccessUnitBytes: Int = AccessUnitAssembler.defaultMaxAccessUnitBytes,
                                       damaged: (DamagedNALUnit) throws -> Void,
                                       _ body: (CodedAccessUnit) throws -> Void) throws -> ParameterSetStore {
        var units: [[UInt8]] = []
        var unitBytes = 0
        let limit = max(1, maxAccessUnitBytes)
        // The parameter sets as the splitter stores them, kept beside it (the splitter is
        // inside forEachAccessUnit): `body` runs before the next access unit's first NAL unit
        // reaches `nalUnit`, so at each call the store holds exactly the sets read so far.
        var store = ParameterSetStore(codec: codec)
        for unit in outOfBandParameterSets { _ = try? store.add(unit) }
        var parameterSets = store.nalUnits
        return try forEachAccessUnit(nalUnit: { view, header in
            guard view.count <= limit - unitBytes else {
                throw NALUError(.tooLarge, field: "access unit", byteOffset: view.offset, detail: "more than \(limit) bytes of NAL units")
            }
            let bytes = view.array
            units.append(bytes)
            unitBytes += bytes.count
            if header.isParameterSet, let update = try? store.add(bytes), update == .new || update == .changed {
                parameterSets = store.nalUnits
            }
        }, damaged: { view, error, index in
            try damaged(DamagedNALUnit(accessUnitIndex: index, byteOffset: view.offset, byteCount: view.count, error: error))
        }) { unit in
            let timing = unit.timing
            let coded = CodedAccessUnit(nalUnits: units, index: unit.summary.index, byteOffset: unit.summary.offset,
                                        pts: timing?.presentation ?? unit.sample?.pts ?? unit.timestamps?.presentation,
                                        keyframe: unit.summary.keyframe, pictureType: unit.summary.pictureType,
                                        timing: timing, parameterSets: parameterSets)
            units = []
            unitBytes = 0
            try body(coded)
        }
    }
}
