/// Lowercase UUID text for todo `uid`s.
package enum RandomUUID {
    /// A version 7 UUID (RFC 9562) for something made at `instant`:
    /// "019ad8f2-6f3c-7a4e-9b1f-3c2d4e5f6a7b". The first 48 bits are the Unix time in
    /// milliseconds and the next 12 the microseconds within it (RFC 9562 method 3), the last 62
    /// random from the system's generator. Uids made one after another sort one after another,
    /// so the store's unique index on them grows at its end instead of at random pages.
    package static func make(at instant: Instant) -> String {
        let usec = UInt64(bitPattern: instant.usec)
        let millis = usec / 1000
        let submilli = (usec % 1000) * 4096 / 1000
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        let high = (millis << 16) | 0x7000 | submilli // time, version 7, sub-millisecond
        let low = (random & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000 // variant 10, 62 random bits
        return text(high, low)
    }

    /// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of the 128 bits `high` then `low`.
    static func text(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            func put(_ word: UInt64, _ from: Int, _ to: Int) {
                var shift = 60 - from * 4
                for _ in from..<to {
                    let d = UInt8(truncatingIfNeeded: (word >> UInt64(shift)) & 0xF)
                    out[i] = d < 10 ? 0x30 + d : 0x57 + d
                    i += 1
                    shift -= 4
                }
            }
            put(high, 0, 8)
            out[i] = 0x2D
            i += 1
            put(high, 8, 12)
            out[i] = 0x2D
            i += 1
            put(high, 12, 16)
            out[i] = 0x2D
            i += 1
            put(low, 0, 4)
            out[i] = 0x2D
            i += 1
            put(low, 4, 16)
            return 36
        }
    }

    /// Whether `text` is a UUID as todod writes it (lowercase hex, dashes at 8, 13, 18, 23).
    package static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else if !((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66)) {
                return false
            }
        }
        return true
    }
}
