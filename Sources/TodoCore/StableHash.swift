/// A hash of text that is the same on every run and machine (64-bit FNV-1a), for identities made
/// from content: an imported item without its own uid gets the same uid on every import.
package enum StableHash {
    /// 16 lowercase hex digits.
    package static func hex(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
