/// Random (version 4) UUIDs as lowercase text, for todo `uid`s and the store's id.
public enum RandomUUID {
    /// "0f8fad5b-d9cb-469f-a165-70867728950e": 122 random bits from the system's generator.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64, low = generator.next() as UInt64
        high = (high & ~0xF000) | 0x4000                       // version 4
        low = (low & ~(0xC << 60)) | (0x8 << 60)               // variant 10
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var i = 0
        for (word, shift) in [(high, 60), (low, 60)] {
            for s in stride(from: shift, through: 0, by: -4) {
                if i == 8 || i == 13 || i == 18 || i == 23 { i += 1 }
                text[i] = digits[Int((word >> UInt64(s)) & 0xF)]
                i += 1
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` is a UUID as `make` writes it (lowercase hex, dashes at 8, 13, 18, 23).
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 { if b != UInt8(ascii: "-") { return false } }
            else if !((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66)) { return false }
        }
        return true
    }
}
