import ArgumentParser
import NALUMedia

/// `nalu keyframes`: where decoding can start.
struct Keyframes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyframes",
        abstract: "List keyframe access units: index, byte offset, class (idr, cra, bla, recovery) and picture type.",
        discussion: """
        Access units are found by the specs' rules (H.264 7.4.1.2.3, H.265 7.4.2.4.4); their index \
        is in decoding order. Offsets are those of the first byte of the access unit's first start \
        code or length prefix. recovery is an access unit with a recovery point SEI message: an \
        open-GOP I picture (count 0) or the start of gradual decoding refresh (count > 0).
        """
    )

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print JSON Lines: one object per keyframe with index, offset, class, picture_type.")
    var json = false

    func run() throws {
        let source = try inputOptions.openSource()
        let listing = KeyframeListing(container: source.container, json: json)
        let out = try StandardOutput()
        defer { try? out.flush() }
        if let header = listing.header { try out.line(header) }
        try source.forEachAccessUnit { access in
            if let line = listing.line(for: access) { try out.line(line) }
        }
    }
}
