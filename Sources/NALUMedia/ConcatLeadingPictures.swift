public import NALU

/// Makes the CRA an H.265 input starts with a clean join: rewritten to a BLA picture (when it
/// follows another input), its RASL pictures dropped.
///
/// - A CRA that is not first in the bitstream, even after an end of sequence NAL unit, has
///   `NoOutputOfPriorPicsFlag` set to 1 (H.265 C.5.2.2): the previous input's pictures still
///   waiting for output would be discarded. A BLA picture (8.1.3: `NoRaslOutputFlag` 1) takes the
///   flag from its slice header's `no_output_of_prior_pics_flag` instead, so they are output. The
///   slice header syntax of the two is the same (7.3.6.1: both IRAP), so only the NAL unit type
///   changes (CRA_NUT → BLA_W_LP, Table 7-1).
/// - Its RASL pictures refer to pictures before it that the output does not have, and a decoder
///   discards them (8.3.3: not output). Left in, they would be samples no player shows, so the
///   timeline would have holes; dropped, the next picture follows without a gap. RADL pictures
///   decode (they refer only to the IRAP picture and other RADL pictures) and are kept.
///
/// H.264 inputs, and H.265 inputs that start with an IDR, pass untouched.
///
/// The NAL units before a picture's first slice (AUD, prefix SEI, parameter sets) are held until
/// the slice says whether the picture is dropped; only while the leading pictures last (a few
/// access units at the start of an input). Parameter sets are never dropped.
public struct LeadingPictureFilter: Sendable {
    private enum State: Sendable { case start, dropping, passing }
    private var state: State
    /// NAL units held (their bytes and their offsets in the input, which the muxer looks the
    /// source's sample times up by).
    private var held: [(bytes: [UInt8], offset: Int64)] = []
    private var currentHasVCL = false
    private var currentDropped = false
    /// Whether the current picture is the starting CRA being rewritten to BLA.
    private var currentRewritten = false
    private let rewritesCRA: Bool
    /// Pictures dropped.
    public private(set) var droppedPictures = 0
    /// Whether a starting CRA was rewritten to BLA_W_LP.
    public private(set) var rewroteCRA = false

    /// - Parameter follows: whether the input follows another (its starting CRA becomes BLA).
    public init(codec: Codec, follows: Bool) {
        state = codec == .hevc ? .start : .passing
        rewritesCRA = follows
    }

    /// Passes `unit` (with `step`, what the splitter made of it) to `sink`, or holds or drops it.
    public mutating func push(_ unit: NALUnitView, step: AccessUnitSplitter.Step, to sink: any MediaSink) throws(NALUError) {
        guard state != .passing else {
            try sink.push(unit)
            return
        }
        guard case .hevc(let header) = step.header else {
            state = .passing
            try flush(to: sink)
            try sink.push(unit)
            return
        }
        if step.startsAccessUnit {
            currentHasVCL = false
            currentDropped = false
            currentRewritten = false
        }
        let type = header.nalUnitType
        if type.isVCL && !currentHasVCL {
            currentHasVCL = true
            switch state {
            case .start:
                state = type == .cra || type.isBLA ? .dropping : .passing
                currentRewritten = type == .cra && rewritesCRA
                rewroteCRA = currentRewritten
            case .dropping where type == .raslN || type == .raslR:
                currentDropped = true
                droppedPictures += 1
                // Only the parameter sets held survive a dropped picture.
                for unit in held where try NALUnitHeader(unit.bytes, codec: .hevc).isParameterSet {
                    try NALUnitView.withNALUnit(unit.bytes, offset: unit.offset) { (unit) throws(NALUError) in try sink.push(unit) }
                }
                held.removeAll()
                return
            case .dropping where type == .radlN || type == .radlR:
                break
            case .dropping, .passing:
                state = .passing
            }
            try flush(to: sink)
            try push(unit, header: header, to: sink)
            return
        }
        if !currentHasVCL {
            held.append((unit.array, unit.offset))
            return
        }
        if currentDropped && !header.nalUnitType.isParameterSetType { return }
        try push(unit, header: header, to: sink)
    }

    /// Pushes `unit`, a slice of the starting CRA given the BLA_W_LP type when it is rewritten.
    private func push(_ unit: NALUnitView, header: HEVCNALUnitHeader, to sink: any MediaSink) throws(NALUError) {
        guard currentRewritten, header.nalUnitType == .cra else {
            try sink.push(unit)
            return
        }
        var bytes = unit.array
        let rewritten = HEVCNALUnitHeader(nalUnitType: .blaWLP, nuhLayerId: header.nuhLayerId, nuhTemporalIdPlus1: header.nuhTemporalIdPlus1).bytes
        guard bytes.count >= rewritten.count else { throw NALUError(.truncated, field: "nal_unit_header", byteOffset: unit.offset) }
        bytes.replaceSubrange(0..<rewritten.count, with: rewritten)
        // At the input's offset: sinks find the sample's source times by it.
        try NALUnitView.withNALUnit(bytes, offset: unit.offset, prefixLength: unit.prefixLength) { (unit) throws(NALUError) in try sink.push(unit) }
    }

    /// Writes what is held (NAL units after the input's last picture).
    public mutating func finish(to sink: any MediaSink) throws(NALUError) {
        try flush(to: sink)
    }

    private mutating func flush(to sink: any MediaSink) throws(NALUError) {
        for unit in held { try NALUnitView.withNALUnit(unit.bytes, offset: unit.offset) { (unit) throws(NALUError) in try sink.push(unit) } }
        held.removeAll()
    }
}

extension HEVCNALUnitType {
    /// VPS, SPS or PPS (H.265 Table 7-1: 32–34).
    var isParameterSetType: Bool { self == .vps || self == .sps || self == .pps }
}
