import Testing

@testable import TodoCLI

@Suite struct TokenizerTests {
    @Test func optionForms() {
        let tokens = Tokenizer.tokenize(["--due=tomorrow 9am", "--top", "-h", "-", "-x", "title"])
        #expect(
            tokens.map(\.kind) == [
                .option(name: "--due", value: "tomorrow 9am"), .option(name: "--top", value: nil),
                .option(name: "--help", value: nil), .positional("-"), .option(name: "-x", value: nil),
                .positional("title")
            ])
    }

    @Test func equalsKeepsTheRestOfTheValue() {
        #expect(Tokenizer.tokenize(["--notes=a=b"]).map(\.kind) == [.option(name: "--notes", value: "a=b")])
        #expect(Tokenizer.tokenize(["--notes="]).map(\.kind) == [.option(name: "--notes", value: "")])
    }

    @Test func doubleDashEndsOptions() {
        let tokens = Tokenizer.tokenize(["add", "--", "--weird", "-h", "--"])
        #expect(
            tokens.map(\.kind) == [.positional("add"), .positional("--weird"), .positional("-h"), .positional("--")])
        #expect(tokens.map(\.afterTerminator) == [false, true, true, true])
    }

    @Test func rawTextIsKept() {
        #expect(Tokenizer.tokenize(["--sort", "-updated,title"]).map(\.raw) == ["--sort", "-updated,title"])
    }
}
