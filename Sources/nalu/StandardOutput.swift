import NALUIO

/// Buffered standard output for text (`info`, `nals`, `keyframes`). Every write is checked: a
/// full disk or an I/O error ends the run with `nalu: error: standard output: …` (exit 74), also
/// for the last buffer flushed when the object goes away; a closed pipe ends it quietly.
final class StandardOutput {
    private let sink: FileSink

    init() throws { sink = try FileSink(path: "-", bufferSize: 1 << 16) }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
    }

    func line(_ text: String) throws { try write(text + "\n") }

    func flush() throws { try sink.drain() }

    deinit {
        do { try sink.drain() } catch { Failure.exit(error) }
    }
}
