/// What `nalu edit` does to a stream besides the pictures: ``ParameterSetEdits`` on every SPS
/// (and H.265 VPS), SEI messages removed (``SEIEdit``), filler data removed. Access unit
/// delimiters are the sinks' (``AccessUnitDelimiterPolicy``).
public struct StreamEditOptions: Hashable, Sendable {
    public var parameterSets: ParameterSetEdits
    public var sei: SEIEdit
    /// Remove filler data NAL units (H.264 type 12, H.265 type 38) and filler payload SEI
    /// messages (payload type 3).
    public var stripFiller: Bool

    public init(parameterSets: ParameterSetEdits = ParameterSetEdits(), sei: SEIEdit = .keepAll, stripFiller: Bool = false) {
        self.parameterSets = parameterSets
        self.sei = sei
        self.stripFiller = stripFiller
    }
}

/// Counts of what a ``StreamEditor`` changed.
public struct StreamEditStatistics: Hashable, Sendable {
    /// Parameter set NAL units written anew (in band and out of band).
    public var parameterSetsRewritten = 0
    /// SEI NAL units removed whole.
    public var seiNALUnitsRemoved = 0
    /// SEI NAL units rewritten without some of their messages.
    public var seiNALUnitsRewritten = 0
    /// SEI NAL units kept unedited because they hold more than
    /// ``SEIMessage/defaultMessageLimit`` messages.
    public var seiNALUnitsTooLarge = 0
    /// SEI messages removed (in removed and rewritten NAL units).
    public var seiMessagesRemoved = 0
    /// Filler data NAL units removed.
    public var fillerNALUnitsRemoved = 0

    public init() {}
}

/// Edits a stream one NAL unit at a time (``edit(_:)``): untouched NAL units are kept as they
/// are, without a copy; an SPS/VPS is parsed, edited and written back (``ParameterSetEdits``,
/// the bit writer), each distinct input set once (a small cache); SEI NAL units are split into
/// messages and written back without the removed ones.
public struct StreamEditor: Sendable {
    /// What becomes of one NAL unit.
    public enum Outcome: Sendable, Equatable {
        /// Unchanged.
        case keep
        /// Removed.
        case drop
        /// Replaced by these bytes (escaped, header included).
        case replace([UInt8])
    }

    public let codec: Codec
    public let options: StreamEditOptions
    public private(set) var statistics = StreamEditStatistics()
    /// Warnings, each once: the stream exceeds a limit of the level written (the package's `EditLevelLimits`: ITU-T H.264 Table A-1, ITU-T H.265 Tables A.8 and A.9).
    public private(set) var warnings: [String] = []
    private var cache: [[UInt8]: [UInt8]] = [:]

    public init(codec: Codec, options: StreamEditOptions) {
        self.codec = codec
        self.options = options
    }

    /// Edits one NAL unit (escaped, header included).
    /// - Throws: ``NALUError`` when an SPS/VPS to edit does not parse, or an edit cannot be
    ///   coded in it (the error names the option).
    public mutating func edit(_ unit: UnsafeRawBufferPointer) throws(NALUError) -> Outcome {
        guard let first = unit.first else { return .keep }
        switch codec {
        case .h264:
            switch AVCNALUnitType(rawValue: first) {
            case .sps where !options.parameterSets.isEmpty: return try editParameterSet(unit)
            case .sei where options.sei != .keepAll || options.stripFiller: return try editSEI(unit)
            case .fillerData where options.stripFiller:
                statistics.fillerNALUnitsRemoved += 1
                return .drop
            default: return .keep
            }
        case .hevc:
            // A header that does not parse is left for the sink to judge.
            guard let type = (try? HEVCNALUnitHeader(unit))?.nalUnitType else { return .keep }
            switch type {
            case .sps where !options.parameterSets.isEmpty: return try editParameterSet(unit)
            case .vps where options.parameterSets.editsVPS: return try editParameterSet(unit)
            case .prefixSEI, .suffixSEI:
                return options.sei != .keepAll || options.stripFiller ? try editSEI(unit) : .keep
            case .fillerData where options.stripFiller:
                statistics.fillerNALUnitsRemoved += 1
                return .drop
            default: return .keep
            }
        }
    }

    /// Edits NAL units held in arrays (a record's parameter sets, an hvcC's SEI): the result
    /// without the dropped ones.
    public mutating func edit(nalUnits: [[UInt8]]) throws(NALUError) -> [[UInt8]] {
        var edited: [[UInt8]] = []
        for unit in nalUnits {
            let result = unit.withUnsafeBytes { raw in Result { () throws(NALUError) -> Outcome in try edit(raw) } }
            switch try result.get() {
            case .keep: edited.append(unit)
            case .drop: break
            case .replace(let bytes): edited.append(bytes)
            }
        }
        return edited
    }

    // MARK: Parameter sets

    private mutating func editParameterSet(_ unit: UnsafeRawBufferPointer) throws(NALUError) -> Outcome {
        let input = [UInt8](unit)
        let output: [UInt8]
        if let cached = cache[input] {
            output = cached
        } else {
            output = try rewrite(input)
            if cache.count >= 64 { cache.removeAll(keepingCapacity: true) }
            cache[input] = output
        }
        if output == input { return .keep }
        statistics.parameterSetsRewritten += 1
        return .replace(output)
    }

    private mutating func rewrite(_ unit: [UInt8]) throws(NALUError) -> [UInt8] {
        let edits = options.parameterSets
        switch codec {
        case .h264:
            let sps = try edits.apply(to: AVCSequenceParameterSet(nalUnit: unit))
            let written = sps.nalUnit(header: unit[0])
            if edits.level != nil { note(EditLevelLimits.warnings(for: try AVCSequenceParameterSet(nalUnit: written))) }
            return written
        case .hevc:
            let header = (unit[0], unit.count > 1 ? unit[1] : 1)
            if try HEVCNALUnitHeader(unit).nalUnitType == .vps {
                return try edits.apply(to: HEVCVideoParameterSet(nalUnit: unit)).nalUnit(header: header)
            }
            let sps = try edits.apply(to: HEVCSequenceParameterSet(nalUnit: unit))
            let written = sps.nalUnit(header: header)
            if edits.level != nil { note(EditLevelLimits.warnings(for: try HEVCSequenceParameterSet(nalUnit: written))) }
            return written
        }
    }

    private mutating func note(_ found: [String]) {
        for warning in found where !warnings.contains(warning) { warnings.append(warning) }
    }

    // MARK: SEI

    private mutating func editSEI(_ unit: UnsafeRawBufferPointer) throws(NALUError) -> Outcome {
        if options.sei == .stripAll {
            statistics.seiNALUnitsRemoved += 1
            statistics.seiMessagesRemoved += (try? SEIMessage.messages(inNALUnit: ArraySlice(unit), codec: codec).count) ?? 0
            return .drop
        }
        let bytes = ArraySlice(unit)
        let messages: [SEIMessage]
        do {
            messages = try SEIMessage.messages(inNALUnit: bytes, codec: codec)
        } catch where error.code == .tooLarge {
            // Too many messages to split (SEIMessage.defaultMessageLimit): kept as it is, with a
            // warning, rather than rejecting the stream (issue 32 item 12).
            statistics.seiNALUnitsTooLarge += 1
            return .keep
        }
        let kept = messages.filter { options.sei.keeps($0.payloadType, stripFiller: options.stripFiller) }
        if kept.count == messages.count { return .keep }
        statistics.seiMessagesRemoved += messages.count - kept.count
        if kept.isEmpty {
            statistics.seiNALUnitsRemoved += 1
            return .drop
        }
        statistics.seiNALUnitsRewritten += 1
        let headerLength = codec == .h264 ? 1 : 2
        return .replace(SEIMessage.nalUnit(header: bytes.prefix(headerLength), messages: kept))
    }
}
