// libFuzzer entry point for the y4m harness (Fuzz/Harness); built by Scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzHarnesses.fuzz("y4m", data, size)
}
