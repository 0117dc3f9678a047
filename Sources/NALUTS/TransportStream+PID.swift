extension TransportStream {
    /// A PID as people write it (`--pid`): decimal or `0x` hexadecimal (case-insensitive), 0…0x1FFF
    /// (13 bits, ISO/IEC 13818-1 2.4.3.3); `nil` for anything else.
    public static func pid(parsing text: String) -> UInt16? {
        let lower = text.lowercased()
        let parsed = lower.hasPrefix("0x") ? UInt16(lower.dropFirst(2), radix: 16) : UInt16(lower)
        guard let parsed, parsed <= 0x1FFF else { return nil }
        return parsed
    }
}
