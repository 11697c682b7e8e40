import TestSupport

/// Random schedules from a seed: device operations, world events and crashes, weighted
/// towards what breaks ownership (tokens sharing their first 8 bytes, short tokens, reused
/// ids, other devices and accounts on the same instance) and the API tokens' life (sign-ins
/// over `login --ssh` or pasted, revocations behind the device's back, clocks moved to
/// rotation, a machine with no keyring).
struct ModelScheduleGenerator {
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    private mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    private mutating func alphanumerics(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        return String((0..<count).map { _ in pick(alphabet) })
    }

    /// Tokens this device may be handed. Several share their first 8 bytes (`https://`,
    /// `c0ffee00`), two are 8 bytes or fewer; a schedule draws from them with replacement, so
    /// a token can come back after another.
    private mutating func devicePool() -> [String] {
        [
            "https://push.example.org/up/" + alphanumerics(6),
            "https://push.example.org/up/" + alphanumerics(6),
            "c0ffee00" + alphanumerics(24),
            "c0ffee00" + alphanumerics(24),
            String((0..<64).map { _ in pick(Array("0123456789abcdef")) }),
            "DEVTOKEN",
            "DEVT" + alphanumerics(2),
        ]
    }

    /// A token of another device: never one of this device's, often alike on the display.
    private mutating func otherToken() -> String {
        switch int(0...6) {
        case 0: "https://push.example.org/up/" + alphanumerics(7) + "-other"
        case 1: "c0ffee00" + alphanumerics(20) + "-other"
        case 2: "tab" + alphanumerics(2)
        case 3: "DEVTOKE" + pick(["1", "2", "3"])
        case 4: "abcdef€" + alphanumerics(5)
        case 5: "日本語のトークン" + alphanumerics(4)
        default: String((0..<64).map { _ in pick(Array("0123456789ABCDEF")) })
        }
    }

    private mutating func crash() -> ModelCrash? {
        chance(35) ? ModelCrash(atRequest: int(1...8), afterServerApplied: chance(50)) : nil
    }

    /// A schedule of `count` steps.
    mutating func schedule(named name: String, steps count: Int) -> ModelSchedule {
        let pool = devicePool()
        var steps: [ModelStep] = [.setToken(pick(pool), label: nil), .run(concurrency: 1, crash: crash())]
        // Half the worlds have erin signed in under the server's other name from the start.
        if chance(50) { steps.insert(.relogin(4, crash: nil), at: int(0...2)) }
        while steps.count < count {
            let roll = int(0...99)
            let step: ModelStep
            switch roll {
            case 0..<27:
                let crash = crash()
                step = .run(concurrency: crash == nil ? pick([1, 4]) : 1, crash: crash)
            case 27..<30: step = .revokeBehind(int(0...4), current: chance(75))
            case 30..<40: step = .setToken(pick(pool), label: chance(20) ? pick(["laptop", "desk", "work"]) : nil)
            case 40..<45: step = .pause(int(0...4), crash: crash())
            case 45..<50: step = .resume(int(0...4), crash: crash())
            case 50..<56: step = .prefer(int(0...4), crash: crash())
            case 56..<61: step = .removeAccount(int(0...4), crash: crash())
            case 61..<63: step = .relogin(int(0...4), crash: crash())
            case 63..<66: step = .signIn(int(0...4), via: pick([.ssh, .ssh, .pasted, .named]), crash: crash())
            case 66..<69: step = .clearDevice(crash: crash())
            case 69..<82:
                let instance = int(0...1)
                let owners = instance == 0 ? ["alice", "bob", "zed"] : ["carol", "dan", "zed"]
                step = .otherDevice(
                    instance: instance, owner: pick(owners), token: otherToken(), label: pick(["phone", "tablet", "", "[gbs-zzzzzz] old laptop"]))
            case 82..<90: step = .reap(instance: int(0...1), pick: int(0...9))
            case 90..<93: step = .takeToken(instance: int(0...1))
            case 93..<94: step = .secondMachine(crash: crash())
            case 94..<95: step = .nearExpiry
            case 95..<96:
                step = .hostileWait(instance: int(0...1), retryAfter: pick(["10000000000000000", "99999999999", "86400", "-1", "1e9", "３"]))
            case 96..<97: step = .hungServer(instance: int(0...1))
            case 97..<98: step = .slowServer(instance: int(0...1))
            default:
                // A local change while another process's run is in flight.
                step = .alongsideRun(
                    pick([
                        .setToken(pick(pool), label: nil), .pause(int(0...4), crash: nil), .resume(int(0...4), crash: nil),
                        .prefer(int(0...4), crash: nil), .removeAccount(int(0...4), crash: nil), .clearDevice(crash: nil),
                        .relogin(int(0...4), crash: nil),
                    ]))
            }
            steps.append(step)
        }
        // A copy of the database on a second machine holds the same API tokens: a rotation here
        // revokes the one it signs in with, which the second machine's runs then find refused,
        // as they should.
        let copied = steps.contains { if case .secondMachine = $0 { true } else { false } }
        if copied {
            steps = steps.map { if case .nearExpiry = $0 { .run(concurrency: 1, crash: nil) } else { $0 } }
        }
        // A quarter of the machines have no session bus: no keyring, every token in the
        // database; on half of them a keyring starts later.
        let keyring = !chance(25)
        if !keyring, chance(50) { steps.insert(.keyringStarts, at: int(2...steps.count)) }
        return ModelSchedule(name: name, returnsDeviceID: [chance(60), chance(60)], steps: steps, keyring: keyring)
    }
}
