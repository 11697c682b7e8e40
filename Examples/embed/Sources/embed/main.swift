// Signs an account in, sets this device's push token and reconciles, over URLSession, the
// way an app would in place of its own registrar. The instance URL is the argument; the API
// token is read on standard input, so that it never shows in the process list.
//
//   printf %s "$TOKEN" | swift run embed http://127.0.0.1:3000
import Foundation
import GitbaySyncKit

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: embed <instance-url>   (API token on standard input)\n".utf8))
    exit(64)
}
let instance = CommandLine.arguments[1]
let apiToken = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)

// An app keeps this in its Application Support folder.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: folder) }

do {
    let registrar = try await PushRegistrar(databasePath: folder.appendingPathComponent("state.db").path, transport: URLSessionTransport())
    // The token the system hands to `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    try await registrar.setDeviceToken("example0device0token0" + String(repeating: "ab", count: 22), label: "embed example")
    let account = try await registrar.signIn(instance: instance, apiToken: apiToken)
    print("signed in as \(account.name)")
    for report in try await registrar.reconcile() {
        print("\(report.account): \(report.action), \(report.condition), row \(report.deviceID.map(String.init) ?? "none")")
    }
    let result = try await registrar.signOut(account)
    print("signed out: \(result)")
    exit(result == .removed ? 0 : 1)
} catch let error as SignInError {
    FileHandle.standardError.write(Data("sign-in failed: \(error)\n".utf8))
    exit(77)
} catch {
    FileHandle.standardError.write(Data("failed: \(error)\n".utf8))
    exit(1)
}
