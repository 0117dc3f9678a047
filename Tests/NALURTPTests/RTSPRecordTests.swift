import Foundation
import Testing
import NALU
import NALURTP
import NALURTPMedia

/// `nalu record` against GStreamer's RTSP server (Scripts/rtsp-server.py, python3-gi with
/// GstRtspServer) on 127.0.0.1: over interleaved TCP and UDP, with and without Basic/Digest
/// authentication. The recording's slices equal the served file's byte for byte, its frame
/// count equals ffprobe's of the file and that of `ffmpeg -rtsp_transport tcp -i rtsp://… -c copy`.
@Suite(.serialized)
struct RTSPRecordTests {
    static let server = RTPTestSupport.repositoryRoot.appendingPathComponent("Scripts/rtsp-server.py").path

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && RTPPeers.tool("ffprobe") != nil
            && (try? RTPPeers.run("/usr/bin/python3", ["-c", "import gi; gi.require_version('GstRtspServer', '1.0')"],
                                  folder: FileManager.default.temporaryDirectory, name: "gi-check-\(UUID().uuidString)", seconds: 20).status) == 0
    }

    /// Starts the server on a free port, waits (at most 20 s) for its "ready" line.
    static func startServer(_ fixture: String, codec: String, auth: String, audio: Bool = false, redirectPort: UInt16? = nil,
                            sessionTimeout: Int? = nil, folder: URL) throws -> (RTPPeers.Running, UInt16) {
        let port = try RTPPeers.freePort()
        let server = try RTPPeers.Running("/usr/bin/python3", [Self.server, fixture, String(port), "40", "--codec", codec, "--auth", auth]
                                            + (audio ? ["--audio"] : []) + (redirectPort.map { ["--redirect-port", String($0)] } ?? [])
                                            + (sessionTimeout.map { ["--session-timeout", String($0)] } ?? []),
                                          folder: folder, name: "rtsp-server")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && !server.output.contains("ready") && server.process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        guard server.output.contains("ready") else {
            server.wait(seconds: 0)
            throw RTPPeers.RTPPeerError(description: "the RTSP server did not start: \(server.output)")
        }
        return (server, port)
    }

    static func packetCount(_ path: String, folder: URL) throws -> Int {
        let ffprobe = try #require(RTPPeers.tool("ffprobe"))
        let result = try RTPPeers.run(ffprobe, ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets",
                                                "-of", "csv=p=0", path], folder: folder, name: "ffprobe-\(UUID().uuidString)")
        return try #require(Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.output)")
    }

    @Test(.enabled(if: available), arguments: [
        ("mp4_avc_bframes.mp4", "h264", "tcp", "none"), ("mp4_avc_bframes.mp4", "h264", "udp", "none"),
        ("mp4_hevc_bframes.mp4", "h265", "tcp", "none"), ("mp4_hevc_bframes.mp4", "h265", "udp", "basic"),
        ("mp4_avc_bframes.mp4", "h264", "tcp", "digest"), ("mp4_avc_bframes.mp4", "h264", "udp", "digest"),
    ])
    func recordEqualsTheServedFile(stream: String, codec: String, transport: String, auth: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = RTPTestSupport.fixture(stream)
        let (server, port) = try Self.startServer(fixture, codec: codec, auth: auth, folder: folder)
        defer { server.wait(seconds: 0) }
        let credentials = auth == "none" ? "" : "user:secret@"
        let url = "rtsp://\(credentials)127.0.0.1:\(port)/test"
        let out = folder.appendingPathComponent("recorded.mp4").path
        let record = try RTPPeers.run(RTPPeers.nalu, ["record", url, "-o", out, "--transport", transport, "--wait", "15"],
                                      folder: folder, name: "record", seconds: 40)
        #expect(record.status == 0, "\(record.output)")
        let recorded = try RTPPeers.slices(out)
        let served = try RTPPeers.slices(fixture)
        #expect(recorded.count == served.count)
        #expect(recorded == served, "the recorded slices differ from the file's")
        let sourceFrames = try Self.packetCount(fixture, folder: folder)
        #expect(try Self.packetCount(out, folder: folder) == sourceFrames)
        if let ffmpeg = RTPPeers.tool("ffmpeg") {
            let copy = folder.appendingPathComponent("ffmpeg.mp4").path
            let result = try RTPPeers.run(ffmpeg, ["-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-y", copy],
                                          folder: folder, name: "ffmpeg", seconds: 40)
            #expect(result.status == 0, "\(result.output)")
            #expect(try Self.packetCount(copy, folder: folder) == Self.packetCount(out, folder: folder))
        }
    }

    @Test(.enabled(if: available), arguments: ["basic", "digest"])
    func refusedCredentialsWriteNothing(auth: String) throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try Self.startServer(RTPTestSupport.fixture("mp4_avc_bframes.mp4"), codec: "h264", auth: auth, folder: folder)
        defer { server.wait(seconds: 0) }
        for (credentials, phrase) in [("", "give rtsp://USER:PASSWORD@"), ("user:wrong@", "the credentials were refused")] {
            let out = folder.appendingPathComponent("out.mp4").path
            let result = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://\(credentials)127.0.0.1:\(port)/test", "-o", out],
                                          folder: folder, name: "record", seconds: 30)
            #expect(result.status == 65, "\(result.output)")
            #expect(result.output.contains("nalu: error: RTSP DESCRIBE") && result.output.contains("401") && result.output.contains(phrase))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// A 302 to the server on the same host is followed; one to another host (127.0.0.1 asked
    /// as localhost) is refused, nothing written.
    @Test(.enabled(if: available))
    func redirectsFollowedOnTheSameHostOnly() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let redirect = try RTPPeers.freePort()
        let (server, _) = try Self.startServer(fixture, codec: "h264", auth: "none", redirectPort: redirect, folder: folder)
        defer { server.wait(seconds: 0) }
        let out = folder.appendingPathComponent("redirected.mp4").path
        let followed = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://127.0.0.1:\(redirect)/elsewhere", "-o", out], folder: folder, name: "record", seconds: 40)
        #expect(followed.status == 0, "\(followed.output)")
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(fixture))
        let other = folder.appendingPathComponent("other.mp4").path
        let refused = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://localhost:\(redirect)/elsewhere", "-o", other], folder: folder, name: "record-other", seconds: 40)
        #expect(refused.status == 65 && refused.output.contains("another host"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: other))
    }

    /// A session timeout of 2 s (Session: …;timeout=2): GET_PARAMETER every second while the
    /// recording lasts (UDP: about 6 s, until 5 s without a packet), as the server counts them.
    @Test(.enabled(if: available))
    func keepAliveAtHalfTheSessionTimeout() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = RTPTestSupport.fixture("mp4_avc_bframes.mp4")
        let (server, port) = try Self.startServer(fixture, codec: "h264", auth: "none", sessionTimeout: 2, folder: folder)
        defer { server.wait(seconds: 0) }
        let out = folder.appendingPathComponent("out.mp4").path
        let started = Date()
        let record = try RTPPeers.run(RTPPeers.nalu, ["record", "rtsp://127.0.0.1:\(port)/test", "-o", out, "--transport", "udp"],
                                      folder: folder, name: "record", seconds: 40)
        let seconds = Date().timeIntervalSince(started)
        #expect(record.status == 0, "\(record.output)")
        let keepAlives = server.output.components(separatedBy: "GET_PARAMETER").count - 1
        #expect(keepAlives >= Int(seconds) - 2 && keepAlives <= Int(seconds) + 1, "\(keepAlives) keep-alives in \(seconds) s")
        #expect(try RTPPeers.slices(out) == RTPPeers.slices(fixture))
    }

    @Test(.enabled(if: available))
    func signalTearsDownAndFinishesAPlayableFile() throws {
        let folder = try RTPPeers.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 8 s served in real time: the signal comes before the end (the server's RTCP BYE would end it).
        let fixture = RTPTestSupport.fixture("rtcp_avc_8s.mp4")
        let (server, port) = try Self.startServer(fixture, codec: "h264", auth: "none", folder: folder)
        defer { server.wait(seconds: 0) }
        let out = folder.appendingPathComponent("out.mp4").path
        let record = try RTPPeers.Running(RTPPeers.nalu, ["record", "rtsp://127.0.0.1:\(port)/test", "-o", out, "--transport", "udp"],
                                          folder: folder, name: "record")
        Thread.sleep(forTimeInterval: 3)
        let status = record.wait(seconds: 10, interrupt: true)
        #expect(status == 130, "\(record.output)")
        // Every slice received before the signal is written: the file's first ones, in order.
        let recorded = try RTPPeers.slices(out)
        let served = try RTPPeers.slices(fixture)
        #expect(recorded.count > 30 && recorded.count < served.count, "\(recorded.count) of \(served.count) slices")
        #expect(Array(served.prefix(recorded.count)) == recorded)
    }
}

/// The RTSP response parser and the pieces of the client that need no server.
struct RTSPResponseTests {
    @Test func parsesStatusHeadersAndBodyInPieces() throws {
        let text = "RTSP/1.0 200 OK\r\nCSeq: 3\r\nContent-Base: rtsp://h/x/\r\nContent-Length: 5\r\n\r\nv=0\r\nRTSP/1.0"
        let bytes = Array(text.utf8)
        for cut in 0..<(bytes.count - 8) where cut < 70 {
            #expect(try RTSPResponse.parse(bytes[0..<cut]) == nil)
        }
        let (response, consumed) = try #require(try RTSPResponse.parse(bytes[...]))
        #expect(response.statusCode == 200 && response.cseq == 3 && response.header("content-base") == "rtsp://h/x/")
        #expect(response.body == Array("v=0\r\n".utf8) && consumed == bytes.count - 8)
    }

    @Test func malformedResponsesNameFieldAndOffset() {
        let cases: [(String, String, Int64)] = [
            ("HTTP/1.1 200 OK\r\n\r\n", "RTSP status line", 100),
            ("RTSP/1.0 2x0 OK\r\n\r\n", "RTSP Status-Code", 109),
            ("RTSP/1.0 200 OK\r\nCSeq 1\r\n\r\n", "RTSP header", 117),
            ("RTSP/1.0 200 OK\r\nContent-Length: 99999999\r\n\r\n", "Content-Length", 100),
            ("RTSP/1.0 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length", 100),
        ]
        for (text, field, offset) in cases {
            #expect { _ = try RTSPResponse.parse(Array(text.utf8)[...], base: 100) } throws: { error in
                guard let error = error as? NALUError else { return false }
                return error.field == field && error.byteOffset == offset
            }
        }
        let endless = Array(repeating: UInt8(ascii: "a"), count: RTSPResponse.maxHeaderBytes)
        #expect(throws: NALUError.self) { _ = try RTSPResponse.parse(Array("RTSP/1.0 200 OK\r\nX: ".utf8)[...] + endless[...]) }
    }

    @Test func urlParts() throws {
        let url = try RTSPURL(parsing: "rtsp://us%40er:p%3Ass@[::1]:8554/a/b?x=1")
        #expect(url.host == "::1" && url.port == 8554 && url.path == "/a/b?x=1" && url.user == "us@er" && url.password == "p:ss")
        #expect(url.description == "rtsp://[::1]:8554/a/b?x=1")
        #expect(url.resolving("stream=0") == "rtsp://[::1]:8554/a/b?x=1/stream=0")
        #expect(try RTSPURL(parsing: "rtsp://cam/").port == 554)
        #expect(throws: NALUError.self) { _ = try RTSPURL(parsing: "http://cam/") }
        #expect(throws: NALUError.self) { _ = try RTSPURL(parsing: "rtsp://cam:70000/") }
    }
}
