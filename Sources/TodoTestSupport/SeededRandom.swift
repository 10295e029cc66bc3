import Foundation

/// A small deterministic generator (SplitMix64), so a failing randomized test, or a fuzz run
/// (todofuzz draws its inputs from it), can be replayed from its printed seed.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from environment variable `name` when set, else a random one.
    package static func seed(from name: String) -> UInt64 {
        if let text = ProcessInfo.processInfo.environment[name], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }
}
