// Signs an account in, sets this device's push token and reconciles, over URLSession, the
// way an app would in place of its own registrar. The instance URL and the user are the
// arguments; the API token is read on standard input, so that it never shows in the process list.
//
//   printf %s "$TOKEN" | swift run embed http://127.0.0.1:3000 ann
import EmbedApp
import Foundation
import GitbaySyncKit

guard CommandLine.arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: embed <instance-url> <user>   (API token on standard input)\n".utf8))
    exit(64)
}
let (instance, username) = (CommandLine.arguments[1], CommandLine.arguments[2])
let apiToken = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)

// An app keeps this in its Application Support folder.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: folder) }

do {
    let keychain = AppKeychain()
    let step = AppSignOutStep(keychain: keychain)
    let sync = try await GitbayPushSync(
        databasePath: folder.appendingPathComponent("state.db").path, transport: URLSessionTransport(), removalStep: step, tokenSource: keychain,
        log: GitbayLogHandler(minimumLevel: .info) { record in
            FileHandle.standardError.write(Data("log: \(record.message) \(record.fields.sorted { $0.key < $1.key })\n".utf8))
        })
    let model = PushModel(sync: sync)
    let following = Task { try await model.follow() }
    // The token the system hands to `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    try await sync.setDeviceToken("example0device0token0" + String(repeating: "ab", count: 22), label: "embed example")
    // The app's own sign-in screen keeps the token in its Keychain first; the engine only reads it.
    guard keychain.save(apiToken, instance: instance, username: username) else { throw GitbaySignInError.badInstance(instance) }
    let account = try await sync.signIn(instance: instance, apiToken: apiToken).account
    print("signed in as \(account.name)")
    let run = try await model.refresh(within: .seconds(25))
    for result in run.finished {
        print("\(result.name): \(result.action.rawValue), \(result.condition.rawValue), row \(result.deviceID.map(String.init) ?? "none")")
    }
    await sync.suspend()
    try await sync.resume()
    let signOut = try await sync.signOut(account)
    print("signed out: \(signOut.removal.isRemoved ? "removed" : "\(signOut.removal)")")
    print("app token store: \(keychain.count) tokens; sign-out step ran for \(step.clearedAccounts)")
    following.cancel()
    exit(signOut.removal.isRemoved ? 0 : 1)
} catch let error as GitbaySignInError {
    FileHandle.standardError.write(Data("sign-in failed: \(error)\n".utf8))
    exit(77)
} catch {
    FileHandle.standardError.write(Data("failed: \(error)\n".utf8))
    exit(1)
}
