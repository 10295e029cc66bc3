import Testing

@testable import TodoCore

@Suite struct InstantTests {
    @Test(arguments: [
        ("2026-12-01T09:00:00Z", Int64(1_796_115_600) * 1_000_000),
        ("2026-12-01T18:00:00+09:00", Int64(1_796_115_600) * 1_000_000),
        ("2026-12-01T09:00:00.5Z", Int64(1_796_115_600) * 1_000_000 + 500_000),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999999Z", -1),
        ("2024-02-29T00:00:00-05:30", Int64(1_709_184_600) * 1_000_000)
    ])
    func parses(text: String, usec: Int64) {
        #expect(Instant(rfc3339: text)?.usec == usec)
    }

    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T09:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-12-01T24:00:00Z", "2026-12-01T09:60:00Z", "2026-12-01T09:00:00+9:00", "２０２６-12-01T09:00:00Z",
        "2026-12-01T09:00:00Zjunk", "2026-12-01T09:00:00.Z", "0000-01-01T00:00:00Z"
    ])
    func rejects(text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    @Test func formatsInUTC() {
        #expect(Instant(usec: 1_796_115_600_000_000).rfc3339() == "2026-12-01T09:00:00Z")
        #expect(Instant(usec: 1_796_115_600_123_456).rfc3339(fractional: true) == "2026-12-01T09:00:00.123456Z")
        #expect(Instant(usec: -1).rfc3339(fractional: true) == "1969-12-31T23:59:59.999999Z")
        // Digits written two at a time keep their leading zeros.
        #expect(Instant(usec: 1_796_115_600_000_123).rfc3339(fractional: true) == "2026-12-01T09:00:00.000123Z")
        #expect(Instant(usec: 1_796_115_600_010_200).rfc3339(fractional: true) == "2026-12-01T09:00:00.010200Z")
        #expect(Instant(rfc3339: "0001-01-02T03:04:05Z")!.rfc3339() == "0001-01-02T03:04:05Z")
        #expect(
            Instant(rfc3339: "9999-12-31T23:59:59.999999Z")!.rfc3339(fractional: true) == "9999-12-31T23:59:59.999999Z")
        _ = Instant(usec: .min).rfc3339(fractional: true) // must not trap
        _ = Instant(usec: .max).rfc3339(fractional: true)
        for usec in stride(from: Int64(-5_000_000_000_000_000), to: 200_000_000_000_000_000, by: 7_777_777_777_777) {
            let text = Instant(usec: usec).rfc3339(fractional: true)
            #expect(Instant(rfc3339: text)?.usec == usec, "\(text)")
        }
    }
}
