import NALU

/// A source description, SDES (RFC 3550 6.5, packet type 202): items describing sources, the
/// canonical name `CNAME` (6.5.1) first of all.
public struct RTCPSourceDescription: Sendable, Hashable {
    /// The RTCP packet type `PT` of an SDES.
    public static let packetType: UInt8 = 202

    /// One SDES item: its type (1 `CNAME`, 2 `NAME`, … 8 `PRIV`) and its text (at most 255
    /// octets, UTF-8 for the text items).
    public struct Item: Sendable, Hashable {
        /// The item type of `CNAME`.
        public static let canonicalName: UInt8 = 1
        public var type: UInt8
        public var value: [UInt8]

        /// An item (a value longer than 255 octets is cut at 255; type 0 ends a list and is not
        /// an item: it becomes 8, `PRIV`).
        public init(type: UInt8, value: [UInt8]) {
            self.type = type == 0 ? 8 : type
            self.value = Array(value.prefix(255))
        }
    }

    /// The items of one source (`SSRC/CSRC_n` and its list).
    public struct Chunk: Sendable, Hashable {
        public var ssrc: UInt32
        public var items: [Item]

        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }
    }

    /// The chunks (at most 31 are written).
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// One source's `CNAME`.
    public init(ssrc: UInt32, canonicalName: String) {
        chunks = [Chunk(ssrc: ssrc, items: [Item(type: Item.canonicalName, value: Array(canonicalName.utf8))])]
    }

    /// The `CNAME` of `ssrc`, if described.
    public func canonicalName(of ssrc: UInt32) -> String? {
        guard let item = chunks.first(where: { $0.ssrc == ssrc })?.items.first(where: { $0.type == Item.canonicalName }) else { return nil }
        return String(decoding: item.value, as: UTF8.self)
    }

    init(reading reader: inout RTCPReader, count: Int) throws(NALUError) {
        var chunks: [Chunk] = []
        chunks.reserveCapacity(count)
        for _ in 0..<count {
            let start = reader.offset
            let ssrc = try reader.u32("SDES SSRC/CSRC")
            var items: [Item] = []
            while true {
                let type = try reader.u8("SDES item type")
                if type == 0 {
                    // The null octet ends the list; null octets pad the chunk to 32 bits.
                    let padding = (4 - (reader.offset - start) % 4) % 4
                    _ = try reader.take(padding, "SDES chunk padding")
                    break
                }
                let length = try reader.u8("SDES item length")
                items.append(Item(type: type, value: try reader.take(Int(length), "SDES item \(type)")))
            }
            chunks.append(Chunk(ssrc: ssrc, items: items))
        }
        guard reader.remaining == 0 else {
            throw NALUError(.invalidValue, field: "SDES source count", byteOffset: Int64(reader.offset),
                            detail: "\(reader.remaining) bytes after its \(count) chunks")
        }
        self.chunks = chunks
    }

    func write(into out: inout [UInt8]) {
        for chunk in chunks.prefix(RTCPPacket.maxCount) {
            let start = out.count
            out.appendRTCP(chunk.ssrc)
            for item in chunk.items {
                out.append(item.type == 0 ? 8 : item.type)
                let value = item.value.prefix(255)
                out.append(UInt8(value.count))
                out.append(contentsOf: value)
            }
            out.append(0)
            while (out.count - start) % 4 != 0 { out.append(0) }
        }
    }
}

/// A goodbye, BYE (RFC 3550 6.6, packet type 203): sources leaving the session, with an
/// optional reason.
public struct RTCPGoodbye: Sendable, Hashable {
    /// The RTCP packet type `PT` of a BYE.
    public static let packetType: UInt8 = 203

    /// The sources leaving (at most 31 are written).
    public var sources: [UInt32]
    /// `reason for leaving` (at most 255 octets, UTF-8), if given.
    public var reason: [UInt8]?

    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason.map { Array($0.utf8.prefix(255)) }
    }

    init(reading reader: inout RTCPReader, count: Int) throws(NALUError) {
        var sources: [UInt32] = []
        sources.reserveCapacity(count)
        for _ in 0..<count { sources.append(try reader.u32("BYE SSRC/CSRC")) }
        self.sources = sources
        if reader.remaining > 0 {
            let start = reader.offset
            let length = try reader.u8("BYE length")
            reason = try reader.take(Int(length), "BYE reason for leaving")
            let padding = (4 - (reader.offset - start) % 4) % 4
            _ = try reader.take(min(padding, reader.remaining), "BYE padding")
            guard reader.remaining == 0 else {
                throw NALUError(.invalidValue, field: "BYE length", byteOffset: Int64(start),
                                detail: "\(reader.remaining) bytes after the reason for leaving")
            }
        } else {
            reason = nil
        }
    }

    func write(into out: inout [UInt8]) {
        for source in sources.prefix(RTCPPacket.maxCount) { out.appendRTCP(source) }
        if let reason {
            let start = out.count
            let text = reason.prefix(255)
            out.append(UInt8(text.count))
            out.append(contentsOf: text)
            while (out.count - start) % 4 != 0 { out.append(0) }
        }
    }
}
