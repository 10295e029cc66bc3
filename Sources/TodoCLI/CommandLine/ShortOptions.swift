/// todoctl's one-letter options. One table for every command: a letter stands for its long option
/// only in a command that has that long option (`-p` is `--priority` wherever `--priority` is an
/// option), so a command gains a short form by gaining the long option.
///
/// Letters may be clustered as in getopt: `-aj` is `-a -j`; a letter whose option takes a value
/// takes the rest of the cluster as that value (`-n5`, `-cWork`), or else the next argument
/// (`-n 5`).
enum ShortOptions {
    /// Letter → long option.
    static let table: [Character: String] = [
        "a": "--all",
        "c": "--category",
        "d": "--due",
        "p": "--priority",
        "t": "--tag",
        "s": "--sort",
        "n": "--limit",
        "j": "--json",
        "h": "--help"
    ]

    /// The short forms of `long` (`-a` for `--all`), for help and the command table.
    static func letters(for long: String) -> [String] {
        table.filter { $0.value == long }.map { "-\($0.key)" }.sorted()
    }

    /// True for `-x...`: one dash, then a letter (so `-2h`, `-updated`'s `u` aside, is not one).
    static func isCluster(_ name: String) -> Bool {
        name.count >= 2 && name.hasPrefix("-") && !name.hasPrefix("--")
    }
}
