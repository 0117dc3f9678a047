#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// One uncompressed picture handed to an encoder: plane pointers, strides and a timestamp.
///
/// A `Frame` borrows its pixels: the memory must stay valid and unchanged for the duration of the
/// ``EncoderSession/encode(_:_:)`` call it is passed to. Backends copy what they need before
/// returning (x264 and x265 copy input pictures into their own lookahead buffers), so the caller
/// may reuse the memory for the next frame. Use ``FrameBuffer`` to own the memory.
///
/// `Sendable` (issue 32 item 14): a frame that owns its memory (made from arrays, or by
/// ``copy()``) holds it immutably and can be passed between tasks, through an
/// `AsyncStream<Frame>`, to ``AsyncEncoderSession``. A frame that borrows memory is as safe to
/// send as that memory: it must stay valid and unchanged until the frame is encoded.
public struct Frame: @unchecked Sendable {
    /// One plane: where its first row starts and the distance between rows in bytes.
    public struct Plane {
        public var baseAddress: UnsafeRawPointer
        public var bytesPerRow: Int
        public init(baseAddress: UnsafeRawPointer, bytesPerRow: Int) {
            self.baseAddress = baseAddress
            self.bytesPerRow = bytesPerRow
        }
    }

    public var pixelFormat: PixelFormat
    public var width: Int
    public var height: Int
    /// Presentation timestamp in the session's time base (by default one tick per frame).
    public var pts: Int64
    /// Y.
    public var plane0: Plane
    /// U (planar formats) or interleaved UV (NV12).
    public var plane1: Plane
    /// V (planar formats); `nil` for NV12.
    public var plane2: Plane?
    /// The memory the planes point into when the frame owns it (frames made from arrays).
    var owner: FrameBuffer?

    /// A frame in any format; the plane count must match `pixelFormat`.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, pts: Int64, plane0: Plane, plane1: Plane, plane2: Plane?) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.pts = pts
        self.plane0 = plane0
        self.plane1 = plane1
        self.plane2 = plane2
    }

    /// An 8-bit planar 4:2:0 frame.
    public static func i420(width: Int, height: Int, pts: Int64, y: Plane, u: Plane, v: Plane) -> Frame {
        Frame(pixelFormat: .i420, width: width, height: height, pts: pts, plane0: y, plane1: u, plane2: v)
    }

    /// An 8-bit semi-planar 4:2:0 frame.
    public static func nv12(width: Int, height: Int, pts: Int64, y: Plane, uv: Plane) -> Frame {
        Frame(pixelFormat: .nv12, width: width, height: height, pts: pts, plane0: y, plane1: uv, plane2: nil)
    }

    /// A 10-bit planar 4:2:0 frame (16-bit little-endian samples).
    public static func yuv420p10le(width: Int, height: Int, pts: Int64, y: Plane, u: Plane, v: Plane) -> Frame {
        Frame(pixelFormat: .yuv420p10le, width: width, height: height, pts: pts, plane0: y, plane1: u, plane2: v)
    }

    /// A 10-bit semi-planar 4:2:0 frame: Y, then interleaved U/V, 16-bit little-endian words
    /// with the sample in the high 10 bits (``PixelFormat/p010le``).
    public static func p010(width: Int, height: Int, pts: Int64, y: Plane, uv: Plane) -> Frame {
        Frame(pixelFormat: .p010le, width: width, height: height, pts: pts, plane0: y, plane1: uv, plane2: nil)
    }

    /// A planar frame in `format` (any format but the semi-planar ``PixelFormat/nv12`` and
    /// ``PixelFormat/p010le``): Y, U and V planes laid
    /// out as ``PixelFormat/rowBytes(plane:width:)`` and ``PixelFormat/rows(plane:height:)`` say,
    /// for example `.yuv422p` (chroma half width, full height) or `.yuv444p10le`.
    public static func planar(_ format: PixelFormat, width: Int, height: Int, pts: Int64, y: Plane, u: Plane, v: Plane) -> Frame {
        Frame(pixelFormat: format, width: width, height: height, pts: pts, plane0: y, plane1: u, plane2: v)
    }

    /// The plane at `index` (0…2), or `nil` when the format has no such plane.
    public func plane(_ index: Int) -> Plane? {
        switch index {
        case 0: plane0
        case 1: plane1
        case 2: pixelFormat.planeCount == 3 ? plane2 : nil
        default: nil
        }
    }

    /// Checks that the frame matches `configuration` (format, size) and that every plane has
    /// as many bytes per row as its width needs.
    public func validate(against configuration: EncoderConfiguration) throws(EncoderError) {
        guard pixelFormat == configuration.pixelFormat else {
            throw EncoderError(.frameMismatch, field: "pixelFormat", detail: "frame is \(pixelFormat), session expects \(configuration.pixelFormat)")
        }
        guard width == configuration.width, height == configuration.height else {
            throw EncoderError(.frameMismatch, field: "size", detail: "frame is \(width)x\(height), session expects \(configuration.width)x\(configuration.height)")
        }
        for index in 0..<pixelFormat.planeCount {
            guard let plane = plane(index) else {
                throw EncoderError(.frameMismatch, field: "plane\(index)", detail: "missing")
            }
            let needed = pixelFormat.rowBytes(plane: index, width: width)
            guard plane.bytesPerRow >= needed, plane.bytesPerRow <= Int(Int32.max) else {
                throw EncoderError(.frameMismatch, field: "plane\(index)", detail: "\(plane.bytesPerRow) bytes per row, needs \(needed) to \(Int32.max)")
            }
        }
    }
}

/// Memory for one tightly packed frame, owned and reused: readers and the test pattern fill it,
/// and ``frame(pts:)`` hands out a ``Frame`` that borrows it.
public final class FrameBuffer {
    public let pixelFormat: PixelFormat
    public let width: Int
    public let height: Int
    /// The size of one frame in bytes (``bytes``' count).
    public let byteCount: Int
    /// The memory so far: all of ``byteCount`` bytes, or (for a reader's buffer before its first
    /// frame has arrived) the part that arrived. 64-byte aligned.
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Byte offset of each plane in ``bytes``.
    public let planeOffsets: [Int]

    /// Allocates a frame; throws when the size is odd, not positive, or overflows.
    public convenience init(pixelFormat: PixelFormat, width: Int, height: Int) throws(EncoderError) {
        try self.init(pixelFormat: pixelFormat, width: width, height: height, allocate: true)
    }

    /// A frame whose memory is allocated as its bytes arrive (``grow(to:)``), so a header that
    /// claims a huge size costs nothing until the data is there (issue 32 item 8).
    init(pixelFormat: PixelFormat, width: Int, height: Int, allocate: Bool) throws(EncoderError) {
        guard width <= 16384, height <= 16384, let size = pixelFormat.frameSize(width: width, height: height) else {
            throw EncoderError(.invalidConfiguration, field: "size", detail: "\(width)x\(height) is not \(pixelFormat.sizeRequirement) up to 16384x16384")
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        byteCount = size
        capacity = allocate ? size : 0
        guard let memory = Self.allocate(max(1, capacity)) else {
            throw EncoderError(.invalidInput, field: "frame", detail: "cannot allocate \(capacity) bytes for a \(width)x\(height) \(pixelFormat) frame")
        }
        base = memory
        base.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        var offsets: [Int] = []
        var offset = 0
        for plane in 0..<pixelFormat.planeCount {
            offsets.append(offset)
            offset += pixelFormat.rowBytes(plane: plane, width: width) * pixelFormat.rows(plane: plane, height: height)
        }
        planeOffsets = offsets
    }

    /// Whether all ``byteCount`` bytes are allocated.
    var isAllocated: Bool { capacity == byteCount }

    /// Enlarges the memory to `count` bytes (at most ``byteCount``), keeping what it holds.
    /// Throws ``EncoderError/Code/invalidInput`` when the system has no memory for it.
    func grow(to count: Int) throws(EncoderError) {
        let count = min(count, byteCount)
        guard count > capacity else { return }
        guard let larger = Self.allocate(count) else {
            throw EncoderError(.invalidInput, field: "frame", detail: "cannot allocate \(count) bytes for a \(width)x\(height) \(pixelFormat) frame")
        }
        // The new part is left as it is: the reader fills it before a frame is handed out.
        larger.copyMemory(from: base, byteCount: capacity)
        free(base)
        base = larger
        capacity = count
    }

    /// 64-byte aligned memory with 64 bytes of padding after `count`, or `nil` when `malloc`
    /// has none (an address-space limit). The encoders read whole SIMD vectors: libx265 reads
    /// 32 bytes at the end of the last row of a picture whose row is not a multiple of 32
    /// bytes (valgrind, issue 40 item 1).
    private static func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, 64, count + 64) == 0 else { return nil }
        return pointer
    }

    /// Bytes `range` of the memory allocated so far (within ``grow(to:)``'s count).
    func allocatedBytes(_ range: Range<Int>) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: base + range.lowerBound, count: min(range.upperBound, capacity) - range.lowerBound)
    }

    /// The whole frame: Y, then U and V (or UV), without padding. A reader's buffer is
    /// allocated in full here if its first frame has not arrived yet.
    public var bytes: UnsafeMutableRawBufferPointer {
        if !isAllocated {
            do { try grow(to: byteCount) } catch { preconditionFailure("\(error)") }
        }
        return UnsafeMutableRawBufferPointer(start: base, count: byteCount)
    }

    deinit { free(base) }

    /// Bytes per row of `plane`.
    public func bytesPerRow(plane: Int) -> Int { pixelFormat.rowBytes(plane: plane, width: width) }

    /// The bytes of `plane`.
    public func planeBytes(_ plane: Int) -> UnsafeMutableRawBufferPointer {
        let start = planeOffsets[plane]
        let end = plane + 1 < planeOffsets.count ? planeOffsets[plane + 1] : bytes.count
        return UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A frame that keeps this buffer alive for as long as the frame (or a copy of it) exists:
    /// what a decoder hands on to an encoder without copying the pixels. The buffer must not be
    /// refilled meanwhile.
    public func retainingFrame(pts: Int64) -> Frame {
        var frame = frame(pts: pts)
        frame.owner = self
        return frame
    }

    /// A frame borrowing this buffer, valid while the buffer lives and is not refilled.
    public func frame(pts: Int64) -> Frame {
        let base = UnsafeRawPointer(bytes.baseAddress ?? self.base)
        func plane(_ index: Int) -> Frame.Plane {
            Frame.Plane(baseAddress: base + planeOffsets[index], bytesPerRow: bytesPerRow(plane: index))
        }
        return Frame(pixelFormat: pixelFormat, width: width, height: height, pts: pts,
                     plane0: plane(0), plane1: plane(1), plane2: pixelFormat.planeCount == 3 ? plane(2) : nil)
    }
}
