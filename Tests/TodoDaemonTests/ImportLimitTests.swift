import Testing

@testable import TodoDaemon

/// The message refusing parts past the import size bound never reads as the bound itself
/// (it said "at most 256 MiB; this one holds 256 MiB").
@Suite struct ImportLimitTests {
    @Test func tooLargeSaysMoreThanTheLimit() {
        let limit = Router.maxImportBytes
        #expect(
            Router.importTooLarge(limit + 1)
                == "an import in parts may hold at most 256 MiB; with this part it holds 256.1 MiB (send it as several imports)"
        )
        #expect(Router.importTooLarge(limit + 300 << 20 / 10).contains("holds 286.0 MiB"))
    }
}
