import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

/// Mutated server answers for the decoder and the client: never a crash, always a classified
/// answer or a `GitbayError`. Replay and size as `FuzzTests` says.
@Suite("Fuzzing the answer decoder")
struct AnswerFuzzTests {
    static func start(_ target: String, default count: Int) -> (FuzzInput, Int, UInt64) {
        FuzzInput.start(target, default: count)
    }

    static let validBodies = [
        #"{"protocol_version":1,"data":[{"id":12,"label":"laptop [gbs-1]","token":"3f2a9c01…","added":"2026-09-20T14:03:07.123Z"}],"exit_code":0}"#,
        #"{"protocol_version":1,"data":{"id":12,"status":"registered"},"exit_code":0}"#,
        #"{"protocol_version":1,"data":{"username":"alice","admin":false,"key_scope":"full"},"exit_code":0}"#,
        #"{"protocol_version":1,"data":{"mail":true,"watch":true,"push":true,"reply":false},"exit_code":0}"#,
        #"{"protocol_version":1,"error":"too many writes: 60 a minute per account; try again in 1m30s","exit_code":4}"#,
        #"{"protocol_version":1,"error":"rate limited; retry in 3s"}"#,
        #"{"protocol_version":1,"error":"no such device; see `notifications device list`","exit_code":3}"#,
        #"{"protocol_version":1,"data":[],"exit_code":0}"#,
    ]

    @Test("answers and their data decode to a classified answer or an error for any body")
    func envelopes() {
        var (input, iterations, seed) = Self.start("ServerAnswer and data decoding", default: 3000)
        let statuses = [200, 200, 200, 201, 204, 304, 400, 401, 403, 404, 429, 500, 502, 503, 504, 418]
        for index in 0..<iterations {
            let body: [UInt8] =
                switch input.int(0...9) {
                case 0...5: input.mutate(input.pick(Self.validBodies))
                case 6...7: Array(input.jsonValue().utf8)
                case 8:
                    Array(
                        #"{"protocol_version":1,"error":"too many writes; try again in \#(input.text(from: Array("0123456789.hms"), length: 1...30))","exit_code":4}"#
                            .utf8)
                default: (0..<input.int(0...64)).map { _ in UInt8(truncatingIfNeeded: input.random.next()) }
                }
            let status = input.pick(statuses)
            let headers = input.chance(30) ? ["retry-after": input.pick(["3", "0", "-1", "99999999999999999999", "soon", ""])] : [:]
            let answer = ServerAnswer(status: status, headers: headers, body: body)
            let context = "case \(index) of seed \(seed): \(status) \(String(decoding: body, as: UTF8.self))"
            switch answer {
            case .notModified: #expect(status == 304, "\(context)")
            case .success: #expect((200..<300).contains(status), "\(context)")
            case .failure(let kind, _, _):
                #expect(status != 304, "\(context)")
                // 401 and 429 mean the same whoever wrote the body; any other answer in another
                // protocol version is refused as such.
                if case .protocolVersion(let version) = kind {
                    #expect(version != 1 && status != 401 && status != 429, "\(context)")
                    break
                }
                if status == 401 { #expect(kind == .authFailed, "\(context)") }
                if status == 429 {
                    #expect(kind == .rateLimited(retryAfter: ServerAnswer.parseRetryAfter(headers["retry-after"] ?? "")), "\(context)")
                }
                if case .writeLimited(let wait?) = kind { #expect(wait >= .zero, "\(context)") }
            }
            // The client decodes `data` of a successful answer exactly like this.
            let data = Data(body)
            _ = try? JSONDecoder().decode(DataEnvelope<[ServerDevice]>.self, from: data)
            _ = try? JSONDecoder().decode(DataEnvelope<DeviceAddResult>.self, from: data)
            _ = try? JSONDecoder().decode(DataEnvelope<WhoAmI>.self, from: data)
            _ = try? JSONDecoder().decode(DataEnvelope<NotificationSettings>.self, from: data)
        }
        for body in Self.validBodies.prefix(4) {
            #expect(ServerAnswer(status: 200, headers: [:], body: Array(body.utf8)) == .success)
        }
    }

    @Test("the client turns a mangled device list from a server into a list or a GitbayError")
    func clientDecoding() async throws {
        var (input, iterations, seed) = Self.start("GitbayClient.listDevices over a fake server", default: 60)
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice")
        // No deadline: it would count all of the iterations' requests together, and a loaded
        // machine would see the last ones refused unsent.
        let client = try TestClients.make(
            server, token: token, retry: RetryPolicy(maxAttempts: 1, baseDelay: .zero, maxDelay: .zero, maxRetryAfter: .zero, jitter: .none),
            deadline: nil)
        var lists = 0
        for index in 0..<iterations {
            let body = String(decoding: input.mutate(Self.validBodies[0]), as: UTF8.self)
            server.inject(.status(200, body: body), command: "notifications device list")
            do throws(GitbayError) {
                if case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) {
                    lists += 1
                    #expect(rows.count <= 1, "case \(index) of seed \(seed): \(body)")
                }
            } catch {
                #expect(error.account == "alice@127.0.0.1:\(server.port)", "case \(index) of seed \(seed): \(body)")
            }
        }
        #expect(server.requests().count == iterations)
        print("fuzz GitbayClient.listDevices: \(lists) of \(iterations) mangled bodies still read as a list")
    }
}
