import Foundation
import Testing
import NALU

/// Mastering display colour volume (H.265 D.2.28), content light level (D.2.35), user data
/// unregistered (H.264 D.1.7 / H.265 D.2.7) and picture timing `pic_struct` (H.264 D.1.3).
@Suite struct HDRSEITests {
    /// The NAL units of an Annex-B stream (start codes 00 00 01, trailing zeros kept).
    static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 { starts.append(index + 3); index += 3 } else { index += 1 }
        }
        return starts.enumerated().map { position, start in
            let end = position + 1 < starts.count ? starts[position + 1] - 3 : bytes.count
            return Array(bytes[start..<max(start, end)])
        }
    }

    static func messages(_ fixture: String) throws -> [SEIMessage] {
        let bytes = Array(try Data(contentsOf: Fixture.directory.appendingPathComponent(fixture)))
        let codec: Codec = fixture.hasSuffix("h265") ? .hevc : .h264
        return try nalUnits(bytes).filter { nal in
            guard let header = try? NALUnitHeader(nal, codec: codec) else { return false }
            return codec == .h264 ? header.typeNumber == 6 : header.typeNumber == 39
        }.flatMap { try SEIMessage.messages(inNALUnit: $0, codec: codec) }
    }

    /// The values given to x265 (`master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)`,
    /// `max-cll=1000,400`), as ffprobe reports them (colour_hevc_hdr10.colour.json).
    @Test func x265HDR10Messages() throws {
        let messages = try Self.messages("colour_hevc_hdr10.h265")
        let display = try MasteringDisplayColourVolume(try #require(messages.first { $0.payloadType == 137 }))
        #expect(display.displayPrimariesX == [13250, 7500, 34000])
        #expect(display.displayPrimariesY == [34500, 3000, 16000])
        #expect(display.whitePointX == 15635)
        #expect(display.whitePointY == 16450)
        #expect(display.maxDisplayMasteringLuminance == 10_000_000)
        #expect(display.minDisplayMasteringLuminance == 1)
        let light = try ContentLightLevelInfo(try #require(messages.first { $0.payloadType == 144 }))
        #expect(light.maxContentLightLevel == 1000)
        #expect(light.maxPicAverageLightLevel == 400)
        let userData = try UserDataUnregistered(try #require(messages.first { $0.payloadType == 5 }))
        #expect(userData.uuidString == "2ca2de09-b517-47db-bb55-a4fe7fc2fc4e")
        #expect(userData.text()?.hasPrefix("x265 (build ") == true)
    }

    @Test func userDataTextIsCutAtTheLimit() throws {
        let message = try #require(try Self.messages("colour_avc_bt709_tv.h264").first { $0.payloadType == 5 })
        let full = try UserDataUnregistered(message)
        #expect(full.uuidString == "dc45e9bd-e6d9-48b7-962c-d820d923eeef")
        #expect(full.payloadByteCount == message.payloadSize - 16)
        let cut = try UserDataUnregistered(message, limit: 10)
        #expect(cut.payload.count == 10)
        #expect(cut.text() == "x264 - cor…")
        #expect(full.text(maxLength: 4) == "x264…")
    }

    /// x264 with `tff=1` writes pic_struct 3 (top field, bottom field) in every picture timing SEI.
    @Test func interlacedPicStruct() throws {
        let bytes = Array(try Data(contentsOf: Fixture.directory.appendingPathComponent("avc_interlaced.h264")))
        let units = Self.nalUnits(bytes)
        let sps = try AVCSequenceParameterSet(nalUnit: try #require(units.first { (try? AVCNALUnitHeader($0[...]))?.nalUnitType == .sps }))
        let timing = try Self.messages("avc_interlaced.h264").filter { $0.payloadType == 1 }
        #expect(!timing.isEmpty)
        for message in timing { #expect(try AVCPictureTiming.picStruct(message, sps: sps) == 3) }
    }

    // MARK: malformed payloads: typed errors naming the field and offset, never a trap

    @Test func truncatedMasteringDisplay() {
        for size in [0, 1, 11, 23] {
            let message = SEIMessage(payloadType: 137, payload: [UInt8](repeating: 0xAB, count: size)[...], payloadOffset: 7)
            #expect {
                _ = try MasteringDisplayColourVolume(message)
            } throws: { error in
                guard let error = error as? NALUError else { return false }
                return error.code == .truncated && error.byteOffset.map { $0 >= 7 } == true
            }
        }
        let exact = SEIMessage(payloadType: 137, payload: [UInt8](repeating: 0xFF, count: 24)[...])
        #expect((try? MasteringDisplayColourVolume(exact))?.maxDisplayMasteringLuminance == UInt32.max)
    }

    @Test func truncatedContentLightLevel() {
        let message = SEIMessage(payloadType: 144, payload: [0x03, 0xE8, 0x01][...], payloadOffset: 4)
        #expect {
            _ = try ContentLightLevelInfo(message)
        } throws: { error in
            (error as? NALUError)?.code == .truncated && (error as? NALUError)?.field == "max_pic_average_light_level"
        }
    }

    @Test func shortUserData() {
        let message = SEIMessage(payloadType: 5, payload: [UInt8](repeating: 1, count: 15)[...], payloadOffset: 9)
        #expect {
            _ = try UserDataUnregistered(message)
        } throws: { error in
            (error as? NALUError)?.code == .truncated && (error as? NALUError)?.field == "uuid_iso_iec_11578"
                && (error as? NALUError)?.byteOffset == 9
        }
        let binary = try? UserDataUnregistered(SEIMessage(payloadType: 5, payload: ([UInt8](repeating: 1, count: 16) + [0xC3, 0x28])[...]))
        #expect(binary?.text() == nil)
        #expect(binary?.payloadByteCount == 2)
    }

    @Test func wrongPayloadTypes() {
        let message = SEIMessage(payloadType: 4, payload: [UInt8](repeating: 0, count: 32)[...])
        #expect(throws: NALUError.self) { _ = try MasteringDisplayColourVolume(message) }
        #expect(throws: NALUError.self) { _ = try ContentLightLevelInfo(message) }
        #expect(throws: NALUError.self) { _ = try UserDataUnregistered(message) }
    }

    @Test func reservedPicStruct() throws {
        let bytes = Array(try Data(contentsOf: Fixture.directory.appendingPathComponent("avc_interlaced.h264")))
        let sps = try AVCSequenceParameterSet(nalUnit: try #require(Self.nalUnits(bytes).first { (try? AVCNALUnitHeader($0[...]))?.nalUnitType == .sps }))
        // No HRD in x264's default VUI: pic_struct is the first 4 bits. 0xF0 → 15 (reserved); empty → truncated.
        #expect(throws: NALUError.self) { _ = try AVCPictureTiming.picStruct(SEIMessage(payloadType: 1, payload: [0xF0][...]), sps: sps) }
        #expect(throws: NALUError.self) { _ = try AVCPictureTiming.picStruct(SEIMessage(payloadType: 1, payload: [][...]), sps: sps) }
    }

    /// The names are libavutil's (checked against `ffmpeg -h filter=setparams`).
    @Test func colourNames() {
        #expect(ColourNames.primaries(9) == "bt2020")
        #expect(ColourNames.primaries(22) == "ebu3213")
        #expect(ColourNames.primaries(13) == nil)
        #expect(ColourNames.transfer(16) == "smpte2084")
        #expect(ColourNames.transfer(18) == "arib-std-b67")
        #expect(ColourNames.transfer(19) == nil)
        #expect(ColourNames.space(9) == "bt2020nc")
        #expect(ColourNames.space(0) == "gbr")
        #expect(ColourNames.printed(ColourNames.space(2)) == nil)
        #expect(ColourNames.range(fullRange: true) == "pc")
        #expect((0...255).allSatisfy { ColourNames.primaries($0) != "" && ColourNames.transfer($0) != "" && ColourNames.space($0) != "" })
    }
}

@Suite struct SEIPayloadFuzzTests {
    /// Seeded random payloads of every length up to 40 bytes: each parser returns a value or
    /// throws a `NALUError`; nothing traps.
    @Test func randomPayloadsNeverTrap() {
        var state: UInt64 = 0x5EED_0016
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var parsed = 0, failed = 0
        for length in 0...40 {
            for _ in 0..<25 {
                let payload = (0..<length).map { _ in next() }
                for type in [137, 144, 5] {
                    let message = SEIMessage(payloadType: type, payload: payload[...], payloadOffset: 3)
                    do throws(NALUError) {
                        switch type {
                        case 137: _ = try MasteringDisplayColourVolume(message)
                        case 144: _ = try ContentLightLevelInfo(message)
                        default: _ = try UserDataUnregistered(message, limit: 8).text(maxLength: 4)
                        }
                        parsed += 1
                    } catch {
                        #expect(error.byteOffset.map { $0 >= 3 } == true)
                        failed += 1
                    }
                }
            }
        }
        #expect(parsed > 0 && failed > 0)
    }
}
