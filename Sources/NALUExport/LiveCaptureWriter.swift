#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NALU
import NALUAVCodec
public import NALUEncoder
import NALUIO
import NALUMedia
public import NALUPackager
import NALUTS
import NALUX264
import NALUX265

/// Captured pictures and sound to a live (LL-)HLS package as they come: the `AVCaptureSession` →
/// `AVAssetWriter` (`.mpeg4AppleHLS`) of nalu, with the playlists written too.
///
/// Each ``append(_:)`` picture is encoded (``NALUEncoder/EncoderSession``: x264 unless another
/// factory is given), each ``append(audio:)`` run of samples encoded to AAC-LC
/// (``NALUAVCodec/AACEncoder``); both are muxed into an MPEG-TS (ISO/IEC 13818-1: the audio
/// interleaved before the picture it precedes, at its own time) that a ``NALUMedia/LivePackager``
/// reads on a thread of its own through a pipe and packages as each segment and part
/// completes: an audio rendition `a0` beside the video `v0`, as ``NALUMedia/LivePackager``
/// writes them. ``finish()`` flushes the encoders, ends the stream and returns when the
/// playlists end with `EXT-X-ENDLIST`.
///
/// ```swift
/// var options = PackagerOptions(segmentDuration: Rational(1, 1))
/// options.partDuration = Rational(1, 5)
/// options.window = .max                 // every segment stays listed
/// let writer = try LiveCaptureWriter(directory: "live", video: configuration, options: options)
/// try writer.append(frame)              // at the configuration's frame rate
/// try writer.append(audio: [samples])   // planar Float, 48 kHz, from time 0
/// let summary = try writer.finish()
/// ```
///
/// Pictures are timed at the configuration's frame rate from 0 (picture *n* at *n* / rate
/// seconds), the audio from 0 at its sample rate: both start together. A slow packager slows
/// ``append(_:)`` (the pipe fills): memory stays bounded. Not thread-safe: one caller.
public final class LiveCaptureWriter {
    /// The folder the package is written into.
    public let directory: String
    private let video: EncoderSession
    private let audio: AACEncoder?
    private let muxer: TransportStreamMuxer<DescriptorSink>
    private let queue = AudioQueue()
    private let packaging: PackagingThread
    private var finished = false

    /// Starts a live package in `directory` (created when missing).
    /// - Parameters:
    ///   - video: the encoder's settings (codec, size, frame rate, GOP: a segment starts at a
    ///     keyframe); its output must be Annex-B.
    ///   - encoder: the encoder library; `nil`: x264 for H.264, x265 for H.265.
    ///   - audioSampleRate: the sound's samples per second; `nil`: no audio.
    ///   - audioChannels: 1 or 2.
    ///   - options: segment and part durations, the playlists' window.
    /// - Throws: ``ExportError``: `.invalidSettings` for settings the encoders refuse,
    ///   `.cannotCreate` when the folder cannot be made, `.resources` when no pipe or thread can
    ///   be had, `.encodeFailed` when an encoder library is missing.
    public init(directory: String, video configuration: EncoderConfiguration, encoder: (any EncoderBackendFactory)? = nil,
                audioSampleRate: Int? = 48_000, audioChannels: Int = 1, options: PackagerOptions) throws(ExportError) {
        self.directory = directory
        guard configuration.outputFormat == .annexB else {
            throw ExportError(.invalidSettings, subject: "outputFormat", "live packaging takes Annex-B from the encoder")
        }
        do {
            let factory = encoder ?? (configuration.codec == .h264 ? X264BackendFactory() as any EncoderBackendFactory : X265BackendFactory())
            video = try EncoderSession(configuration: configuration, factory: factory)
            if let audioSampleRate {
                audio = try AACEncoder(sampleRate: audioSampleRate, channels: audioChannels)
            } else {
                audio = nil
            }
        } catch {
            throw ExportError(error.code == .libraryUnavailable ? .encodeFailed : .invalidSettings, subject: "encoder", "\(error)", underlying: error)
        }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw ExportError(.cannotCreate, subject: directory, String(cString: strerror(errno)))
        }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw ExportError(.resources, subject: "pipe", String(cString: strerror(errno))) }
        // Not inherited by programs the caller starts: a child holding the write end would keep
        // the packager from ever seeing the end of the stream.
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let input: LiveInput
        do {
            input = try LiveInput(path: "/dev/fd/\(descriptors[0])")
        } catch {
            close(descriptors[0])
            close(descriptors[1])
            throw ExportError(.resources, subject: "pipe", "\(error)", underlying: error)
        }
        packaging = PackagingThread(readEnd: descriptors[0])
        do {
            muxer = try TransportStreamMuxer(codec: configuration.codec, sink: DescriptorSink(descriptor: descriptors[1]),
                                             options: TransportStreamMuxerOptions(frameRate: configuration.frameRate))
            if let audio { _ = try muxer.addAudio(audioSpecificConfig: audio.audioSpecificConfig) }
        } catch {
            close(descriptors[0])
            close(descriptors[1])
            throw ExportError(.invalidSettings, subject: "frameRate", "\(error)", underlying: error)
        }
        // The AAC frames wait until the video reaches their time (90 kHz from the first picture).
        let queue = self.queue, muxer = self.muxer, rate = Int64(audioSampleRate ?? 1)
        muxer.alsoBeforeVideo { (videoTime) throws(NALUError) in
            while let next = queue.frames.first, videoTime.map({ next.pts * 90_000 / rate <= $0 }) ?? true {
                try next.bytes.withBytes { (bytes) throws(NALUError) in try muxer.pushAudio(bytes, time: next.pts, timescale: rate) }
                queue.frames.removeFirst()
            }
        }
        guard packaging.start(LivePackager(directory: directory, options: options), input: input) else {
            finished = true  // deinit runs after a throw from here: the pipe is closed once
            close(descriptors[0])
            close(descriptors[1])
            throw ExportError(.resources, subject: "thread", "no thread for the packager")
        }
    }

    /// A writer released without ``finish()`` abandons the stream: the pipe is closed and the
    /// packager ends with what reached it (what the muxer still buffered is lost).
    deinit {
        if !finished, let output = muxer.output { close(output.descriptor) }
    }

    /// Encodes and packages the next picture. Pictures are timed at the configuration's frame
    /// rate, one after the other (picture *n* at *n* / rate s); their pts must increase, as the
    /// encoder requires.
    /// - Throws: ``ExportError`` `.encodeFailed`, or `.io` with the packager's error when it stopped.
    public func append(_ frame: Frame) throws(ExportError) {
        try packaging.check()
        let packets: [EncodedPacket]
        do {
            packets = try video.encode(frame)
        } catch {
            throw ExportError(.encodeFailed, subject: "video", "\(error)", underlying: error)
        }
        try write(packets)
    }

    /// Encodes the next samples of the sound (one array per channel, −1…1), continuing the ones
    /// before without a gap.
    /// - Throws: ``ExportError`` `.invalidSettings` when the writer has no audio, `.encodeFailed`.
    public func append(audio samples: [[Float]]) throws(ExportError) {
        guard let audio else { throw ExportError(.invalidSettings, subject: "audio", "the writer was made without audio") }
        do {
            queue.frames += try audio.encode(samples)
        } catch {
            throw ExportError(.encodeFailed, subject: "audio", "\(error)", underlying: error)
        }
    }

    /// Flushes the encoders, ends the stream and waits for the packager to complete the last
    /// segment and end the playlists.
    /// - Returns: what was packaged.
    /// - Throws: ``ExportError`` `.encodeFailed`, `.io` with the packager's error.
    public func finish() throws(ExportError) -> PackageSummary {
        guard !finished else { throw ExportError(.invalidSettings, subject: "finish", "the writer is finished") }
        finished = true
        var failure: ExportError?
        do {
            if let audio { queue.frames += try audio.flush() }
            try write(try video.flush())
            _ = try muxer.finish()
        } catch let error as ExportError {
            failure = error
        } catch {
            failure = ExportError(.encodeFailed, subject: directory, "\(error)", underlying: error)
        }
        if let output = muxer.output { close(output.descriptor) }
        let result = packaging.wait()
        if let failure { throw failure }
        return try result.get()
    }

    private func write(_ packets: [EncodedPacket]) throws(ExportError) {
        do {
            for packet in packets {
                for unit in EncoderFraming.nalUnits(in: packet.bytes, format: packet.format) { try muxer.push(nalUnit: unit) }
            }
        } catch {
            try packaging.check()
            throw ExportError(.io, subject: directory, "\(error)", underlying: error)
        }
    }
}

/// `write(2)` (the name is the sink's own method's).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, bytes, count) }

/// The AAC frames not yet muxed (touched by the writer's caller only: the muxer's callback runs
/// inside its push).
private final class AudioQueue {
    var frames: [AACPacket] = []
}

/// Writes the transport stream into the pipe's write end.
struct DescriptorSink: ByteSink {
    let descriptor: Int32
    func write(_ bytes: UnsafeRawBufferPointer) throws(NALUError) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let count = systemWrite(descriptor, base + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw NALUError(.io, field: "pipe", detail: String(cString: strerror(errno))) }
            offset += count
        }
    }
}

/// The packager's thread: it packages the pipe until it ends, then drains what is still written
/// (so the writer never blocks on a full pipe nor gets SIGPIPE after a packaging error).
private final class PackagingThread: @unchecked Sendable {
    private let readEnd: Int32
    private let lock = ThreadLock()
    // Guarded by `lock`.
    private var result: Result<PackageSummary, ExportError>?
    private var failure: ExportError?

    init(readEnd: Int32) { self.readEnd = readEnd }

    func start(_ packager: LivePackager, input: LiveInput) -> Bool {
        let box = UncheckedBox((packager, input))
        return DetachedThread.start { [self] in
            let outcome: Result<PackageSummary, ExportError>
            do {
                outcome = .success(try box.value.0.package(box.value.1))
            } catch {
                outcome = .failure(ExportError(.io, subject: box.value.0.directory, "\(error)", underlying: error))
                lock.withLock { failure = ExportError(.io, subject: box.value.0.directory, "\(error)", underlying: error) }
            }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
            close(readEnd)
            lock.withLock {
                result = outcome
                lock.signal()
            }
        }
    }

    /// The packager's error, once it stopped with one.
    func check() throws(ExportError) {
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Waits for the packager to end.
    func wait() -> Result<PackageSummary, ExportError> {
        lock.withLock {
            while result == nil { lock.wait() }
            return result!
        }
    }
}
