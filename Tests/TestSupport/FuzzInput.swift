import Foundation

/// Generated and mutated inputs for the fuzz tests, all drawn from one seeded generator.
package struct FuzzInput {
    package var random: SplitMix64

    package init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// A generator for `target`, seeded from `GITBAY_SYNC_FUZZ_SEED` or afresh, with the number
    /// of cases to run; prints the seed first, so a crash can be replayed.
    package static func start(_ target: String, default count: Int) -> (FuzzInput, Int, UInt64) {
        let seed = SplitMix64.seed(from: "GITBAY_SYNC_FUZZ_SEED")
        let iterations = FuzzInput.iterations(default: count)
        print("fuzz \(target): seed \(seed), \(iterations) cases (replay with GITBAY_SYNC_FUZZ_SEED=\(seed))")
        return (FuzzInput(seed: seed), iterations, seed)
    }

    /// How many cases each fuzz test runs: `GITBAY_SYNC_FUZZ_ITERATIONS`, else `fallback`.
    package static func iterations(default fallback: Int) -> Int {
        SplitMix64.count(from: "GITBAY_SYNC_FUZZ_ITERATIONS", default: fallback)
    }

    package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    package mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    package mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    /// Fragments that tend to break JSON readers: structure, extreme numbers, escapes, odd text.
    package static let jsonFragments = [
        "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "0", "-0", "1e999", "-1e999", "1.5",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e-400", "NaN", "Infinity",
        "\"\\u0000\"", "\"\\ud800\"", "\"\\uZZZZ\"", "\\", "\"\u{2026}\"", "\"\u{1F600}\"", "\u{FEFF}", "\n", " ",
        "\"protocol_version\"", "\"data\"", "\"error\"", "\"exit_code\"", "\"id\"", "\"token\"", "\"label\"",
        "\"added\"", "\"aps\"", "\"badge\"", "\"instance\"", "\"user\"", "\"path\"", "[[[[[[[[", "{\"a\":{\"a\":",
    ]

    /// `text` with one to four random edits: byte flips, deletions, insertions of fragments or
    /// bytes, duplicated chunks, truncation.
    package mutating func mutate(_ text: String, fragments: [String] = FuzzInput.jsonFragments) -> [UInt8] {
        var bytes = Array(text.utf8)
        for _ in 0..<int(1...4) {
            let position = bytes.isEmpty ? 0 : int(0...bytes.count)
            switch int(0...6) {
            case 0 where !bytes.isEmpty:
                let at = min(position, bytes.count - 1)
                bytes[at] ^= UInt8(1 << int(0...7))
            case 1 where !bytes.isEmpty:
                let end = min(bytes.count, position + int(1...8))
                bytes.removeSubrange(min(position, end)..<end)
            case 2:
                bytes.insert(contentsOf: Array(pick(fragments).utf8), at: position)
            case 3:
                bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
            case 4 where !bytes.isEmpty:
                let start = min(position, bytes.count - 1)
                let chunk = bytes[start..<min(bytes.count, start + int(1...16))]
                bytes.insert(contentsOf: chunk, at: int(0...bytes.count))
            case 5:
                bytes = Array(bytes.prefix(position))
            default:
                bytes.insert(contentsOf: Array(pick(fragments).utf8), at: bytes.isEmpty ? 0 : int(0...bytes.count))
            }
        }
        return bytes
    }

    /// A JSON value of bounded depth built from random parts.
    package mutating func jsonValue(depth: Int = 0) -> String {
        switch depth > 3 ? int(0...3) : int(0...5) {
        case 0: return pick(["null", "true", "false", "0", "-1", "42", "1.5", "1e308", "9223372036854775808"])
        case 1: return "\"" + pick(["", "alice", "gb_x", "3f2a9c01\u{2026}", "(short token)", "http://127.0.0.1:1", "a\\nb", "\u{1F600}"]) + "\""
        case 2: return "\"\(int(0...99_999))\""
        case 3: return "\(int(-5...70_000))"
        case 4: return "[" + (0..<int(0...3)).map { _ in jsonValue(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = [
                "protocol_version", "data", "error", "exit_code", "id", "label", "token", "added", "status",
                "username", "admin", "mail", "watch", "push", "stderr", "x",
            ]
            return "{" + (0..<int(0...4)).map { _ in "\"\(pick(keys))\":" + jsonValue(depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }

    /// Text of `length` characters drawn from `alphabet`.
    package mutating func text(from alphabet: [Character], length: ClosedRange<Int>) -> String {
        String((0..<int(length)).map { _ in pick(alphabet) })
    }
}
