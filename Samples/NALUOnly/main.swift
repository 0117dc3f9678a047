// A program that imports NALU and nothing else: no Foundation, so nothing but NALU's own
// link settings brings in libm (issue 32 item 15: `undefined reference to sqrt` on Linux).
// `swift build` links it; `.build/debug/nalu-only-sample` prints the SPS's facts.
import NALU

// The SPS of Tests/Fixtures/avc_main.h264 (Main, level 1.1, 176x144).
let nalUnit: [UInt8] = [0x67, 0x4D, 0x40, 0x0B, 0xEC, 0xA1, 0x62, 0x76, 0x02, 0x20, 0x00, 0x00, 0x03, 0x00, 0x20,
                        0x00, 0x00, 0x07, 0x81, 0xE2, 0x85, 0x32, 0xC0]
do {
    let sps = try AVCSequenceParameterSet(nalUnit: nalUnit)
    print(sps.profileName, sps.levelName, sps.width, sps.height, sps.frameRate.map { "\($0)" } ?? "-")
} catch {
    print("error: \(error)")
}
