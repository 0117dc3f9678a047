import Foundation
import NALU
import NALUMedia
import NALURTP
import NALURTPMedia
import Testing

/// Issue 39 item 6: NALURTPMedia's recorder, output, transmitter and file readers throw
/// `NALUError` (typed): `let typed: NALUError = error` in each `catch` checks the static type,
/// and the fault is the one the lower layer named (converting keeps a `NALUError` unchanged).
@Suite("Typed errors of NALURTPMedia")
struct RTPMediaTypedErrorTests {
    @Test("SessionDescription(readingFile:), RTPRecorder.replay, RTPRecorder's output and RTPStreamTransmitter throw NALUError")
    func typed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nalu-rtp-typed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing").path

        do {
            _ = try SessionDescription(readingFile: missing + ".sdp")
            Issue.record("a missing SDP file was read")
        } catch {
            let typed: NALUError = error
            #expect(typed.field == missing + ".sdp", "\(typed)")
        }

        let video = RTPVideoDescription(codec: .h264, port: 5004, payloadType: 96)
        let recorder = try RTPRecorder(video: video, path: folder.appendingPathComponent("out.h264").path)
        do {
            _ = try recorder.replay(rtpdump: missing + ".rtpdump")
            Issue.record("a missing rtpdump file was replayed")
        } catch {
            let typed: NALUError = error
            #expect(typed.field == missing + ".rtpdump", "\(typed)")
        }

        // An Annex-B output is created at once (an MP4 one at the first access unit).
        do {
            _ = try RTPRecorder(video: video, path: folder.appendingPathComponent("no/such/folder/out.h264").path)
            Issue.record("an output in a missing folder was created")
        } catch {
            let typed: NALUError = error
            #expect(typed.code == .cannotCreate || typed.code == .io, "\(typed)")
        }

        // An elementary stream without a frame rate has no times to send.
        let reader = try MediaReader(path: RTPTestSupport.fixture("avc_baseline.h264"))
        do {
            _ = try RTPStreamTransmitter(reader: reader, options: RTPTransmitterOptions())
            Issue.record("an elementary stream without a frame rate was timed")
        } catch {
            let typed: NALUError = error
            #expect(typed.code == .missing && typed.field == "frame rate", "\(typed)")
        }
    }
}
