/// Damage the demultiplexer met and stepped over (it never stops on it): what a
/// transport stream from a lossy channel or a cut file carries.
public struct TransportStreamWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of damage.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `continuity_counter` skipped (ISO/IEC 13818-1 2.4.3.3): packets of the PID were lost.
        case continuity = "continuity_counter"
        /// `transport_error_indicator` set: the packet was dropped.
        case transportError = "transport_error_indicator"
        /// No `sync_byte` where a packet should start: bytes were skipped to the next run of sync bytes.
        case syncLost = "sync_byte"
        /// Payload of the video PID with no PES packet started (the stream was cut mid-PES, or a start was lost).
        case pesWithoutStart = "payload_unit_start_indicator"
        /// A PES header that does not parse: the PES packet was dropped.
        case malformedPES = "PES_packet"
        /// A PES packet whose payload differs from its `PES_packet_length`.
        case pesLength = "PES_packet_length"
        /// An adaptation field longer than the packet: the packet was dropped.
        case adaptationField = "adaptation_field_length"
        /// A PAT/PMT section that does not parse or fails its `CRC_32`.
        case section = "section"
        /// A new PMT of the program read moved the video to another PID (followed), or dropped
        /// it or changed its codec (not followed).
        case programMap = "program_map_section"
        /// A scrambled packet (`transport_scrambling_control` ≠ 0) of the video PID: dropped.
        case scrambled = "transport_scrambling_control"
        /// The input ended inside a packet.
        case truncatedPacket = "truncated packet"
    }

    public var kind: Kind
    /// The PID concerned, if one.
    public var pid: UInt16?
    /// Offset in the input of the packet (or bytes) concerned.
    public var byteOffset: Int64
    /// Particulars.
    public var detail: String

    public init(kind: Kind, pid: UInt16?, byteOffset: Int64, detail: String) {
        self.kind = kind
        self.pid = pid
        self.byteOffset = byteOffset
        self.detail = detail
    }

    /// "PID 0x100: continuity_counter 7, expected 5 (packets lost) at byte 1880".
    public var description: String {
        (pid.map { "PID 0x" + String($0, radix: 16) + ": " } ?? "") + detail + " at byte \(byteOffset)"
    }
}

/// What the demultiplexer counted.
public struct TransportStreamCounts: Sendable, Hashable {
    /// Transport packets read (all PIDs).
    public var packets = 0
    /// PES packets of the video PID started.
    public var pesPackets = 0
    /// Payload bytes of the video PID handed on.
    public var elementaryBytes: Int64 = 0
    /// Warnings by kind.
    public var warnings: [TransportStreamWarning.Kind: Int] = [:]
    /// Input bytes skipped to regain sync.
    public var skippedBytes: Int64 = 0
    /// Duplicate packets dropped: repeats of the previous packet of their PID, byte for byte
    /// (ISO/IEC 13818-1 2.4.3.3).
    public var duplicatePackets = 0

    public init() {}

    /// `continuity_counter` discontinuities.
    public var continuityErrors: Int { warnings[.continuity] ?? 0 }
    /// All warnings.
    public var totalWarnings: Int { warnings.values.reduce(0, +) }
}

/// The presentation and decoding time of a PES packet's first access unit, in 90 kHz ticks.
///
/// From ``TransportStreamDemuxer`` they are unwrapped: 64-bit values that go on past 2^33 where
/// the stream's 33-bit clock wraps (ISO/IEC 13818-1 2.4.3.7), so decoding times increase. The
/// first is the stream's own value; a later one may be negative when it comes before a first
/// value near 0.
public struct PESTimestamps: Sendable, Hashable {
    /// `PTS`.
    public var presentation: Int64?
    /// `DTS`; when absent it equals the PTS (2.4.3.7).
    public var decoding: Int64?

    public init(presentation: Int64?, decoding: Int64?) {
        self.presentation = presentation
        self.decoding = decoding
    }

    /// The DTS, or the PTS when the DTS is absent.
    public var effectiveDecoding: Int64? { decoding ?? presentation }
}
