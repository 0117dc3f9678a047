public import NALU

/// What `nalu nals` prints: one line per NAL unit (byte offset, size, type, name; H.264
/// `nal_ref_idc`, H.265 layer and temporal id), as a text table or as JSON Lines where parameter
/// sets add their parsed `fields` and SEI units their `sei` messages (spec syntax element names).
///
/// ```swift
/// var listing = NALUnitListing(codec: source.codec, json: false)
/// if let header = listing.header { print(header) }
/// try source.forEachNALUnit { unit in print(try listing.line(for: unit)) }
/// ```
public struct NALUnitListing {
    /// The stream's codec.
    public let codec: Codec
    /// Whether lines are JSON objects.
    public let json: Bool
    private var fields: NalFields

    /// A listing of `codec` NAL units, as text or as JSON Lines.
    public init(codec: Codec, json: Bool) {
        self.codec = codec
        self.json = json
        fields = NalFields(codec: codec)
    }

    /// The text table's column header; `nil` for JSON Lines.
    public var header: String? {
        if json { return nil }
        return codec == .hevc ? "    offset       size  type  name           layer  tid"
                              : "    offset       size  type  name             ref"
    }

    /// The line for `unit` (its header parsed; parameter sets and SEI parsed for JSON, a unit
    /// that does not parse getting `parse_error` instead).
    /// - Throws: ``NALUError`` when the NAL unit header is invalid, at the unit's offset.
    public mutating func line(for unit: NALUnitView) throws(NALUError) -> String {
        let header: NALUnitHeader
        do throws(NALUError) {
            header = try NALUnitHeader(unit.bytes, codec: codec)
        } catch {
            throw error.offset(by: unit.offset)
        }
        if json {
            var members: [(String, JSONValue)] = [
                ("offset", .number(unit.offset)), ("size", .number(unit.count)),
                ("type", .number(header.typeNumber)), ("name", .string(header.typeName)),
            ]
            switch header {
            case .avc(let avc): members.append(("nal_ref_idc", .number(avc.nalRefIdc)))
            case .hevc(let hevc):
                members.append(("layer_id", .number(hevc.nuhLayerId)))
                members.append(("temporal_id", .number(hevc.temporalId)))
            }
            if fields.describes(type: header.typeNumber) { members += fields.members(unit.array[...], type: header.typeNumber) }
            return JSONValue.object(members).text
        }
        var line = pad(String(unit.offset), 10) + " " + pad(String(unit.count), 10) + "  "
            + pad(String(header.typeNumber), 4) + "  "
        switch header {
        case .avc(let avc):
            line += header.typeName.padding(16) + " " + String(avc.nalRefIdc)
        case .hevc(let hevc):
            line += header.typeName.padding(14) + " " + pad(String(hevc.nuhLayerId), 5) + " " + pad(String(hevc.temporalId), 4)
        }
        return line
    }
}
