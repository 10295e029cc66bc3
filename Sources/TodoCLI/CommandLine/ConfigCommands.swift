import TodoPosix
import TodoUserFiles

/// todoctl's reading of its config file: aliases checked against todoctl's own commands.
extension Config {
    static func load(environment: [String: String]) -> Config {
        load(environment: environment, commands: Parser.commandNames)
    }

    static func load(environment: [String: String], read: (String) throws(PosixError) -> [UInt8]) -> Config {
        load(environment: environment, commands: Parser.commandNames, read: read)
    }

    static func parse(_ text: String, file: String) -> Config {
        parse(text, file: file, commands: Parser.commandNames)
    }

    func aliasProblem(_ arguments: [String]) -> ConfigProblem? {
        aliasProblem(arguments, commands: Parser.commandNames)
    }
}
