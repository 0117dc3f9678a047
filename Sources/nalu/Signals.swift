import NALUIO

/// What `nalu` does on SIGINT, SIGTERM, SIGHUP and SIGPIPE: ``NALUIO/ProcessSignals`` (the
/// temporary outputs removed, exit status 128 + the signal; `encode` finishes its output first).
typealias Signals = ProcessSignals
