internal import CX264
internal import Logging

/// Routes one x264 encoder's log lines to a swift-log `Logger`: x264's `pf_log` callback (through
/// the C trampoline in CX264/shim.h, which formats the line) with levels mapped error → `.error`,
/// warning → `.warning`, info → `.info`, debug → `.debug`. x264 is asked only for the lines the
/// logger would keep (`i_log_level` from the logger's level), and writes nothing to stderr itself.
final class X264LogRelay {
    let logger: Logger
    /// The C-side target x264 holds a pointer to; lives as long as the relay (and so the encoder).
    let target: UnsafeMutablePointer<nalu_log_target>

    init(logger: Logger) {
        self.logger = logger
        target = UnsafeMutablePointer<nalu_log_target>.allocate(capacity: 1)
        target.initialize(to: nalu_log_target(sink: { context, level, message in
            guard let context, let message else { return }
            Unmanaged<X264LogRelay>.fromOpaque(context).takeUnretainedValue().log(level: level, message: message)
        }, context: nil))
        target.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        target.deinitialize(count: 1)
        target.deallocate()
    }

    /// Points `param`'s log callback at this relay and sets its level from the logger's.
    func attach(to param: inout x264_param_t) {
        param.i_log_level = Self.x264Level(for: logger.logLevel)
        nalu_x264_param_set_log(&param, target)
    }

    /// The x264 log level that produces exactly the lines `level` keeps.
    static func x264Level(for level: Logger.Level) -> Int32 {
        switch level {
        case .trace, .debug: X264_LOG_DEBUG
        case .info: X264_LOG_INFO
        case .notice, .warning: X264_LOG_WARNING
        case .error: X264_LOG_ERROR
        case .critical: X264_LOG_NONE
        }
    }

    private func log(level: Int32, message: UnsafePointer<CChar>) {
        var text = String(cString: message)
        while text.last == "\n" { text.removeLast() }
        let mapped: Logger.Level = switch level {
        case X264_LOG_ERROR: .error
        case X264_LOG_WARNING: .warning
        case X264_LOG_INFO: .info
        default: .debug
        }
        logger.log(level: mapped, "\(text)", metadata: ["encoder": "x264"])
    }
}
