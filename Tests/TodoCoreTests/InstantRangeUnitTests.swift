import Testing

@testable import TodoCore

@Suite struct InstantRangeUnitTests {
    /// The range is checked after the offset is applied.
    @Test func offsetsCannotCarryAnInstantOutOfRange() {
        #expect(Instant(rfc3339: "9999-12-31T23:59:59-23:59") == nil)
        #expect(Instant.isOutOfRangeRFC3339("9999-12-31T23:59:59-23:59"))
        #expect(Instant(rfc3339: "0001-01-01T00:00:00+00:01") == nil)
        #expect(Instant(rfc3339: "0001-01-01T00:00:00Z") == Instant.earliest)
        #expect(Instant(rfc3339: "9999-12-31T23:59:59.999999Z") == Instant.latest)
        #expect(Instant(rfc3339: "0001-01-01T23:00:00+23:00") == Instant.earliest)
        #expect(!Instant.isOutOfRangeRFC3339("2026-02-30T00:00:00Z"))
        #expect(Instant.latest.checkedAdding(usec: 1) == nil)
        #expect(Instant.earliest.checkedAdding(usec: -1) == nil)
        #expect(Instant(usec: .max).checkedAdding(usec: 1) == nil)
        #expect(Instant.earliest.checkedAdding(usec: 5) == Instant(usec: Instant.earliest.usec + 5))
    }
}
