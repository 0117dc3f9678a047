import Testing
@testable import NALU

@Suite struct SEITests {
    typealias V = AVCTestVectors

    @Test func x264UserDataUnregisteredWithFFSizeBytes() throws {
        let messages = try SEIMessage.messages(inNALUnit: V.x264VersionSEI, codec: .h264)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.payloadType == 5)
        #expect(message.payloadSize == 615)  // FF FF 69 = 255 + 255 + 105
        #expect(message.payload.count == 615)
        #expect(message.payloadOffset == 5)
        // uuid_iso_iec_11578 of x264, then its version string.
        #expect(Array(message.payload.prefix(16)) == [
            0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF,
        ])
        let text = String(decoding: message.payload.dropFirst(16).prefix(15), as: UTF8.self)
        #expect(text == "x264 - core 164")
        #expect(message.payload.last == 0)  // NUL terminator; 0x80 after it is the trailing bits
    }

    @Test func x264RecoveryPoint() throws {
        let messages = try SEIMessage.messages(inNALUnit: V.x264RecoveryPointSEI, codec: .h264)
        #expect(messages.map(\.payloadType) == [6])
        #expect(messages.map(\.payloadSize) == [2])
        let recovery = try AVCRecoveryPoint(messages[0])
        #expect(recovery == AVCRecoveryPoint(recoveryFrameCnt: 3, exactMatchFlag: true, brokenLinkFlag: false, changingSliceGroupIdc: 0))
    }

    @Test func x264PicTiming() throws {
        let messages = try SEIMessage.messages(inNALUnit: V.x264PicTimingSEI, codec: .h264)
        #expect(messages.count == 1)
        #expect(messages[0].payloadType == 1)
        #expect(Array(messages[0].payload) == [0x32])
        #expect(throws: NALUError.self) { _ = try AVCRecoveryPoint(messages[0]) }
    }

    @Test func x265RecoveryPoint() throws {
        let messages = try SEIMessage.messages(inNALUnit: V.x265RecoveryPointSEI, codec: .hevc)
        #expect(messages.count == 1)
        #expect(messages[0].payloadType == 6 && messages[0].payloadSize == 1)
        #expect(messages[0].payloadOffset == 4)
        let recovery = try HEVCRecoveryPoint(messages[0])
        #expect(recovery == HEVCRecoveryPoint(recoveryPocCnt: 0, exactMatchFlag: true, brokenLinkFlag: false))
        // The same NAL unit is not an H.264 SEI.
        #expect(throws: NALUError.self) { _ = try SEIMessage.messages(inNALUnit: V.x265RecoveryPointSEI, codec: .h264) }
    }

    @Test func hevcNegativeRecoveryPocAndSuffixSEI() throws {
        var payload = BitWriter()
        payload.se(-5); payload.flag(false); payload.flag(true)
        payload.rbspTrailingBits()  // payload alignment: 1 then zeros
        // Suffix SEI (type 40): header 50 01.
        let nal: [UInt8] = [0x50, 0x01, 0x06, UInt8(payload.bytes.count)] + payload.bytes + [0x80]
        let messages = try SEIMessage.messages(inNALUnit: nal, codec: .hevc)
        let recovery = try HEVCRecoveryPoint(messages[0])
        #expect(recovery.recoveryPocCnt == -5)
        #expect(recovery.exactMatchFlag == false)
        #expect(recovery.brokenLinkFlag)
    }

    @Test func severalMessagesAndLargeTypes() throws {
        // type 6 size 2 | type 255+4=259 size 0 | type 5 size 255+1=256 with an escaped payload.
        var rbsp: [UInt8] = [0x06, 0x02, 0x24, 0x40]
        rbsp += [0xFF, 0x04, 0x00]
        rbsp += [0x05, 0xFF, 0x01] + [UInt8](repeating: 0, count: 256)
        rbsp += [0x80]
        let nal = [UInt8(0x06)] + RBSP.escape(rbsp)
        #expect(nal.count > rbsp.count + 1)  // emulation prevention bytes were inserted
        let messages = try SEIMessage.messages(inNALUnit: nal, codec: .h264)
        #expect(messages.map(\.payloadType) == [6, 259, 5])
        #expect(messages.map(\.payloadSize) == [2, 0, 256])
        #expect(messages[2].payload.allSatisfy { $0 == 0 })
        #expect(try AVCRecoveryPoint(messages[0]).recoveryFrameCnt == 3)
    }

    @Test func trailingBitsMissingOrFollowedByZeros() throws {
        // No rbsp_trailing_bits: accepted, stops at the end.
        #expect(try SEIMessage.messages(inNALUnit: [0x06, 0x06, 0x02, 0x24, 0x40], codec: .h264).count == 1)
        // Trailing zero bytes after the stop bit.
        #expect(try SEIMessage.messages(inNALUnit: [0x06, 0x06, 0x02, 0x24, 0x40, 0x80, 0x00, 0x00], codec: .h264).count == 1)
        // A message of type 128 and size 0 ("80 00") before the trailing bits is a message.
        let typed128 = try SEIMessage.messages(inNALUnit: [0x06, 0x80, 0x00, 0x80], codec: .h264)
        #expect(typed128.map(\.payloadType) == [128])
    }

    @Test func payloadSizePastEndThrows() {
        do {
            _ = try SEIMessage.messages(inNALUnit: [0x06, 0x05, 0xFF, 0x10, 0x01, 0x02, 0x80], codec: .h264)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .lengthPastEnd)
            #expect(error.field == "payloadSize")
            #expect(error.byteOffset == 4)
        }
        // 0xFF run to the end of the data.
        #expect(throws: NALUError.self) {
            _ = try SEIMessage.messages(inNALUnit: [0x06, 0xFF, 0xFF, 0xFF], codec: .h264)
        }
    }

    @Test func messageCountIsBounded() throws {
        // 5000 empty messages of type 1.
        let nal = [UInt8(0x06)] + Array([[UInt8]](repeating: [0x01, 0x00], count: 5000).joined()) + [0x80]
        do {
            _ = try SEIMessage.messages(inNALUnit: nal, codec: .h264)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .tooLarge)
        }
        #expect(try SEIMessage.messages(inNALUnit: nal, codec: .h264, limit: 5000).count == 5000)
    }

    @Test func recoveryPointRanges() throws {
        // changing_slice_group_idc 3 is reserved.
        var w = BitWriter()
        w.ue(0); w.flag(true); w.flag(false); w.u(2, 3); w.rbspTrailingBits()
        let reserved = SEIMessage(payloadType: 6, payload: w.bytes[...])
        #expect(throws: NALUError.self) { _ = try AVCRecoveryPoint(reserved) }
        // recovery_frame_cnt beyond MaxFrameNum's largest value.
        w = BitWriter()
        w.ue(65536); w.u(4, 0); w.rbspTrailingBits()
        #expect(throws: NALUError.self) { _ = try AVCRecoveryPoint(SEIMessage(payloadType: 6, payload: w.bytes[...])) }
        // Empty payload.
        #expect(throws: NALUError.self) { _ = try AVCRecoveryPoint(SEIMessage(payloadType: 6, payload: [])) }
        #expect(throws: NALUError.self) { _ = try HEVCRecoveryPoint(SEIMessage(payloadType: 6, payload: [])) }
    }

    @Test func truncatedSEIsNeverTrap() {
        for nal in [V.x264VersionSEI, V.x264RecoveryPointSEI, V.x264PicTimingSEI] {
            for length in 0..<nal.count {
                if let messages = try? SEIMessage.messages(inNALUnit: nal[..<length], codec: .h264) {
                    for message in messages where message.payloadType == 6 { _ = try? AVCRecoveryPoint(message) }
                }
            }
        }
        for length in 0..<V.x265RecoveryPointSEI.count {
            _ = try? SEIMessage.messages(inNALUnit: V.x265RecoveryPointSEI[..<length], codec: .hevc)
        }
        // Cutting into the x264 string payload must fail (the size no longer fits).
        #expect(throws: NALUError.self) { _ = try SEIMessage.messages(inNALUnit: V.x264VersionSEI[..<300], codec: .h264) }
    }
}
