// libFuzzer entry point for the edit-options harness (Fuzz/Harness); built by Scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzHarnesses.fuzz("edit-options", data, size)
}
