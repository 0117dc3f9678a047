// libFuzzer entry point for the concat-ts harness (Fuzz/Harness); built by Scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzHarnesses.fuzz("concat-ts", data, size)
}
