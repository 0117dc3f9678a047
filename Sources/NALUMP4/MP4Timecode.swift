public import NALU

/// A QuickTime timecode track's sample description (`tmcd` sample entry, QuickTime File Format
/// "Timecode Sample Description"; SMPTE ST 12-1 for the counting): how the 32-bit frame number
/// each `tmcd` sample holds reads as HH:MM:SS:FF.
///
/// The sample is the frame number of the first frame its time covers; the frame at a later time
/// `t` of the sample has the number plus `t / frameDuration` (in ``timescale`` ticks). Drop-frame
/// timecode (29.97 and 59.94 fps) counts real frames: the labels ;00 and ;01 (;00 to ;03 at
/// 59.94) are skipped at the start of every minute except each tenth.
public struct MP4TimecodeEntry: Hashable, Sendable {
    /// `flags`: bit 0 drop frame, bit 1 24-hour maximum, bit 2 negative times allowed, bit 3
    /// counter.
    public var flags: UInt32
    /// Ticks per second of ``frameDuration``.
    public var timescale: UInt32
    /// Ticks of ``timescale`` per frame (1001 at 30000 for 29.97 fps).
    public var frameDuration: UInt32
    /// Frames per second as the labels count them (30 for 29.97 fps), or frames per counter tick.
    public var numberOfFrames: UInt8

    /// `flags` bit 0: drop-frame counting (29.97, 59.94 fps).
    public static let dropFrameFlag: UInt32 = 0x1
    /// `flags` bit 1: the hours wrap at 24.
    public static let twentyFourHourMaxFlag: UInt32 = 0x2
    /// `flags` bit 2: negative times allowed.
    public static let negativeTimesFlag: UInt32 = 0x4
    /// `flags` bit 3: the samples count ticks of ``numberOfFrames`` frames, not frames.
    public static let counterFlag: UInt32 = 0x8

    public init(flags: UInt32, timescale: UInt32, frameDuration: UInt32, numberOfFrames: UInt8) {
        self.flags = flags
        self.timescale = timescale
        self.frameDuration = frameDuration
        self.numberOfFrames = numberOfFrames
    }

    /// Reads a whole `tmcd` sample entry box (header included): after the 8-byte SampleEntry
    /// fields, `reserved` (32 bits), `flags`, `timescale`, `frameDuration` (32 bits each) and
    /// `numberOfFrames` (8 bits).
    /// - Throws: ``NALUError`` naming the field when the box is not a `tmcd` entry or is too short.
    public init(sampleEntry bytes: [UInt8]) throws(NALUError) {
        guard bytes.count >= 34 else {
            throw NALUError(.truncated, field: "tmcd", byteOffset: 0, detail: "\(bytes.count) bytes; a timecode sample entry has 34")
        }
        guard bytes[4] == 0x74, bytes[5] == 0x6D, bytes[6] == 0x63, bytes[7] == 0x64 else {
            throw NALUError(.invalidValue, field: "tmcd", byteOffset: 4, detail: "not a tmcd sample entry")
        }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        flags = u32(20)
        timescale = u32(24)
        frameDuration = u32(28)
        numberOfFrames = bytes[32]
        guard timescale > 0, frameDuration > 0 else {
            throw NALUError(.invalidValue, field: timescale == 0 ? "tmcd.timescale" : "tmcd.frameDuration",
                            byteOffset: timescale == 0 ? 24 : 28, detail: "0")
        }
    }

    /// Whether the labels count drop-frame (``dropFrameFlag``).
    public var isDropFrame: Bool { flags & Self.dropFrameFlag != 0 }
    /// Whether the samples are counter values (``counterFlag``).
    public var isCounter: Bool { flags & Self.counterFlag != 0 }

    /// Frames dropped from the labels at each minute but every tenth: 2 at 30, 4 at 60 (SMPTE
    /// ST 12-1), 0 when not drop-frame or the rate is not a multiple of 30.
    var droppedPerMinute: Int64 {
        let fps = Int64(numberOfFrames)
        guard isDropFrame, fps > 0, fps % 30 == 0 else { return 0 }
        return fps / 30 * 2
    }

    /// Real frames in 24 hours of labels.
    var framesPerDay: Int64 {
        let fps = Int64(numberOfFrames)
        let perTenMinutes = fps * 600 - droppedPerMinute * 9
        return perTenMinutes * 6 * 24
    }

    /// The label of frame number `frame` as `HH:MM:SS;FF` (`;` for drop frame, else `:`), as
    /// ffmpeg's `timecode` tag reads a `tmcd` sample; `nil` when ``numberOfFrames`` is 0.
    public func label(frame: Int64) -> String? {
        let fps = Int64(numberOfFrames)
        guard fps > 0, frame > Int64.min / 2, frame < Int64.max / 2 else { return nil }
        var number = frame
        let negative = number < 0
        if negative { number = -number }
        let drop = droppedPerMinute
        if drop > 0 {
            // Real frames → labels: add the labels skipped so far.
            let perTenMinutes = fps * 600 - drop * 9
            let tens = number / perTenMinutes
            let rest = number % perTenMinutes
            number += 9 * drop * tens + drop * ((rest - drop) / ((perTenMinutes) / 10))
        }
        let ff = number % fps
        let ss = number / fps % 60
        let mm = number / (fps * 60) % 60
        var hh = number / (fps * 3600)
        if flags & Self.twentyFourHourMaxFlag != 0 { hh %= 24 }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (negative ? "-" : "") + "\(two(hh)):\(two(mm)):\(two(ss))\(drop > 0 ? ";" : ":")\(two(ff))"
    }

    /// The frame number of the frame `ticks` of the media timescale `mediaTimescale` after the
    /// start of a sample holding `frame`: `frame` plus the whole frames in between (rounded to
    /// the nearest: a cut starts on a picture), counter ticks for a counter track, wrapped to
    /// 24 hours when the flag says so. `nil` when the arithmetic does not fit 64 bits.
    public func advance(_ frame: Int64, by ticks: Int64, mediaTimescale: UInt32) -> Int64? {
        guard mediaTimescale > 0, ticks >= 0 else { return nil }
        // ticks / mediaTimescale s · timescale / frameDuration frames, rounded.
        guard let scaled = CheckedNumber.rescale(ticks, from: Int64(mediaTimescale), to: Int64(timescale) * 2) else { return nil }
        let twice = scaled / Int64(frameDuration)
        var frames = (twice + 1) / 2
        if isCounter { frames /= max(1, Int64(numberOfFrames)) }
        guard var value = CheckedNumber.sum(frame, frames) else { return nil }
        if flags & Self.twentyFourHourMaxFlag != 0, !isCounter, numberOfFrames > 0 {
            let day = framesPerDay
            value = (value % day + day) % day
        }
        return value
    }
}

/// A `tmcd` sample's frame number: a 32-bit big-endian signed integer.
public enum MP4TimecodeSample {
    /// The frame number in `bytes`, or `nil` when it is shorter than 4 bytes.
    public static func frame(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 4 else { return nil }
        let raw = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        return Int64(Int32(bitPattern: raw))
    }

    /// `bytes` with its frame number replaced by `frame` (the 4 bytes; the rest kept), or `nil`
    /// when `frame` does not fit 32 bits or `bytes` is short.
    public static func replacing(_ bytes: [UInt8], frame: Int64) -> [UInt8]? {
        guard bytes.count >= 4, let value = Int32(exactly: frame) else { return nil }
        let raw = UInt32(bitPattern: value)
        var copy = bytes
        copy[0] = UInt8(raw >> 24)
        copy[1] = UInt8(raw >> 16 & 0xFF)
        copy[2] = UInt8(raw >> 8 & 0xFF)
        copy[3] = UInt8(raw & 0xFF)
        return copy
    }
}
