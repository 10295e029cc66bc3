import TodoTestSupport

/// The fuzzer's inputs from one seed (`SeededRandom`, SplitMix64), so a seed replays the same inputs.
struct Rng {
    private var source: SeededRandom

    init(seed: UInt64) { source = SeededRandom(seed: seed) }

    /// The generator of connection `worker` for run seed `seed`: independent streams per worker.
    init(seed: UInt64, worker: Int) {
        var base = SeededRandom(seed: seed ^ (UInt64(worker + 1) &* 0xD1B5_4A32_D192_ED03))
        source = SeededRandom(seed: base.next())
    }

    mutating func next() -> UInt64 { source.next() }

    /// A number in 0..<n (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(UInt64(1) << 53) < p }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        var word: UInt64 = 0
        for i in 0..<count {
            if i & 7 == 0 { word = next() }
            out.append(UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
        return out
    }

    /// Random lowercase/uppercase letters and digits.
    mutating func word(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(alphabet[below(alphabet.count)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
