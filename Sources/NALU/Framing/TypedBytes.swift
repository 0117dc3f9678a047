extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with the thrown type of `body` kept (the standard library's rethrows
    /// `any Error`): for typed-throws callers such as ``ByteSink/write(_:)-(Array<UInt8>)``.
    package func withBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeBytes { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }.get()
    }
}
