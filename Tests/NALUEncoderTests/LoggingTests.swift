import Foundation
import Logging
import NALU
import NALUEncoder
import NALUX264
import NALUX265
import Testing

/// A LogHandler that keeps what it is given.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    final class Store: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(Logger.Level, String)] = []
        func add(_ level: Logger.Level, _ message: String) { lock.withLock { entries.append((level, message)) } }
        var all: [(Logger.Level, String)] { lock.withLock { entries } }
    }

    let store: Store
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(store: Store, level: Logger.Level) {
        self.store = store
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.add(event.level, event.message.description)
    }
}

/// Issue 14: x264's log lines reach a swift-log Logger with mapped levels; x265's level follows it.
@Suite struct LoggingTests {
    static func logger(_ store: CapturingLogHandler.Store, level: Logger.Level) -> Logger {
        var logger = Logger(label: "test") { _ in CapturingLogHandler(store: store, level: level) }
        logger.logLevel = level
        return logger
    }

    /// Level 1.0 cannot hold a 320x192 picture: x264 warns at encoder open.
    static func configuration() -> EncoderConfiguration {
        var configuration = EncoderConfiguration(codec: .h264, width: 320, height: 192)
        configuration.preset = "ultrafast"
        configuration.level = "1"
        configuration.rateControl = .crf(30)
        return configuration
    }

    @Test func x264WarningsGoToTheLoggerWithTheirLevel() throws {
        let store = CapturingLogHandler.Store()
        let factory = X264BackendFactory(logger: Self.logger(store, level: .info))
        let session = try EncoderSession(configuration: Self.configuration(), factory: factory)
        try session.prepare()
        let entries = store.all
        #expect(entries.contains { $0.0 == .warning && $0.1.contains("level limit") }, "\(entries)")
        // x264's info lines (its CPU capabilities) come at .info.
        #expect(entries.contains { $0.0 == .info && $0.1.contains("cpu capabilities") }, "\(entries)")
        #expect(entries.allSatisfy { !$0.1.hasSuffix("\n") })
    }

    @Test func aLoggerAboveTheLevelGetsNothingAndX264IsNotAskedForIt() throws {
        let store = CapturingLogHandler.Store()
        let factory = X264BackendFactory(logger: Self.logger(store, level: .error))
        let session = try EncoderSession(configuration: Self.configuration(), factory: factory)
        try session.prepare()
        #expect(store.all.isEmpty, "\(store.all)")
    }

    @Test func x265LogLevelFollowsTheLogger() throws {
        // libx265 has no log callback: its level follows the logger, .critical silences it.
        let store = CapturingLogHandler.Store()
        var configuration = EncoderConfiguration(codec: .hevc, width: 160, height: 96)
        configuration.preset = "ultrafast"
        let session = try EncoderSession(configuration: configuration,
                                         factory: X265BackendFactory(logger: Self.logger(store, level: .critical)))
        try session.prepare()
        #expect(session.isBackendOpen)
    }
}
