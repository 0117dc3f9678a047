import ArgumentParser
import NALU
import NALUMedia

/// `nalu nals`: one line per NAL unit.
struct Nals: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nals",
        abstract: "List every NAL unit: byte offset, size, type and name.",
        discussion: """
        Offsets are those of the NAL unit's first header byte in the input (after the start code or \
        length prefix); sizes exclude the start code or prefix. H.265 lines add the layer and \
        temporal id; H.264 lines add nal_ref_idc. MP4/MOV input (told by content, also on \
        standard input) lists its video track's samples' NAL units at their file offsets; when \
        samples switch to another sample entry, that entry's parameter sets are listed first, at \
        the sample's offset.
        """
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print JSON Lines: one object per NAL unit with offset, size, type, name; parameter sets add their parsed \"fields\", SEI units their \"sei\" messages.")
    var json = false

    func run() throws {
        let source = try inputOptions.openSource()
        let out = try StandardOutput()
        let codec = source.codec
        if !json {
            try out.line(codec == .hevc ? "    offset       size  type  name           layer  tid"
                                        : "    offset       size  type  name             ref")
        }
        defer { try? out.flush() }
        var fields = NalFields(codec: codec)
        try source.forEachNALUnit { unit in
            let header: NALUnitHeader
            do throws(NALUError) {
                header = try NALUnitHeader(unit.bytes, codec: codec)
            } catch {
                throw error.offset(by: unit.offset)
            }
            if json {
                var members: [(String, JSON)] = [
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
                try out.line(JSON.object(members).text)
            } else {
                var line = pad(String(unit.offset), 10) + " " + pad(String(unit.count), 10) + "  "
                    + pad(String(header.typeNumber), 4) + "  "
                switch header {
                case .avc(let avc):
                    line += header.typeName.padding(16) + " " + String(avc.nalRefIdc)
                case .hevc(let hevc):
                    line += header.typeName.padding(14) + " " + pad(String(hevc.nuhLayerId), 5) + " " + pad(String(hevc.temporalId), 4)
                }
                try out.line(line)
            }
        }
    }
}

/// Right-aligns `text` in `width` columns.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

extension String {
    /// Left-aligns in `width` columns.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
