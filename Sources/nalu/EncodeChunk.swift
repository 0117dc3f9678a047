import ArgumentParser

/// `--chunk I/N`: chunk `I` (0-based) of `N`.
struct ChunkSpec: ExpressibleByArgument, Hashable {
    var index: Int
    var count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              index >= 0, count >= 1, count <= 1_000_000 else { return nil }
        self.index = index
        self.count = count
    }

    var text: String { "\(index)/\(count)" }
}

/// The frame range options of `nalu encode` (issue 17): a chunk of a distributed encode, or an
/// explicit range with x264's `--seek` (and `--frames`). Both seek in a regular file, checked
/// against its size; the first frame of the range is coded as an IDR picture.
struct FrameRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Encode chunk I (0-based) of N contiguous frame ranges of an input file (frames ⌊I·F/N⌋ to ⌊(I+1)·F/N⌋ − 1 of F): it starts with an IDR, with the same parameter sets in every chunk, so the parts join (nalu concat). Without -o: <input>.part-IIII.h264.", valueName: "I/N"))
    var chunk: ChunkSpec?
    @Option(help: ArgumentHelp("First frame to encode (0-based), found by a seek in the input file, as x264's --seek; with --frames for a range. The frame is coded as an IDR.", valueName: "frame"))
    var seek: Int64?

    /// Whether a range was asked for.
    var isSet: Bool { chunk != nil || seek != nil }

    /// The part of the default output name that tells chunks apart (`.part-0003`), zero-padded
    /// so that a shell glob (`part-*.h264`) lists the chunks in order.
    var partSuffix: String {
        guard let chunk else { return "" }
        let digits = max(4, String(chunk.count - 1).count)
        let number = String(chunk.index)
        return ".part-" + String(repeating: "0", count: digits - number.count) + number
    }
}
