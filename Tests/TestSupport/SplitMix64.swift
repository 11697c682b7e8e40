import Foundation

/// A small seeded random number generator (SplitMix64), so a generated case can be replayed
/// from the seed a failing test prints.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// The seed named by `variable` in the environment, else a fresh one.
    package static func seed(from variable: String) -> UInt64 {
        if let text = ProcessInfo.processInfo.environment[variable], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }

    /// A count from `variable` in the environment, else `fallback`.
    package static func count(from variable: String, default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }.map { max(1, $0) } ?? fallback
    }
}
