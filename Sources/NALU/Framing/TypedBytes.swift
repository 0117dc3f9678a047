extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with the thrown type of `body` kept (the standard library's rethrows
    /// `any Error`): for typed-throws callers such as ``ByteSink/write(_:)-(Array<UInt8>)``.
    package func withBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeBytes { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeMutableBytes` with the thrown type of `body` kept (the standard library's
    /// rethrows `any Error`).
    package mutating func withMutableBytes<Result, Failure: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeMutableBytes { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }.get()
    }
}

/// `withUnsafeBytes(of:_:)` with the thrown type of `body` kept.
package func withBytes<Value, Result, Failure: Error>(of value: inout Value, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
    try withUnsafeBytes(of: &value) { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }.get()
}
