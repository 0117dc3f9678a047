import ArgumentParser
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
        var listing = NALUnitListing(codec: source.codec, json: json)
        if let header = listing.header { try out.line(header) }
        defer { try? out.flush() }
        try source.forEachNALUnit { unit in try out.line(try listing.line(for: unit)) }
    }
}
