import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// todobench: measures todod against the floors and peers measured in the same run, and prints one
// table. Run in release: `scripts/bench [--quick]`, or `swift build -c release && .build/release/todobench`.
//
//   todobench [--quick] [--section NAME]...
//   sections: store, protocol, add, log, client, reminders, recurrence, scale, idle, feed, when, undo, subtasks, search, alarms
//   (default: all, in that order)

#if DEBUG
    let buildConfiguration = "debug"
    let debugWarning: String? = """
        ************************************************************************************
        WARNING: todobench was built in DEBUG mode. Its figures are meaningless.
                 Build and run it in release: scripts/bench, or swift build -c release.
        ************************************************************************************
        """
#else
    let buildConfiguration = "release"
    let debugWarning: String? = nil
#endif

if CommandLine.arguments.count == 4 && CommandLine.arguments[1] == "--serve-ping-pong" {
    PingPong.processMain(path: CommandLine.arguments[2], hex: CommandLine.arguments[3])
}

// todobench --write-cost [--seed N] [--adds N] [--batch K] [--no-change-log]: pages per durable add (WriteCostBench).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--write-cost" {
    var options: [String: Int] = ["--seed": 20_000, "--adds": 800, "--batch": 8]
    var changeLog = true
    var rest = Array(CommandLine.arguments.dropFirst(2))
    while !rest.isEmpty {
        let name = rest.removeFirst()
        if name == "--no-change-log" {
            changeLog = false
            continue
        }
        guard options[name] != nil, let value = rest.first.flatMap({ Int($0) }), value >= (name == "--seed" ? 0 : 1)
        else {
            FileHandle.standardError.write(
                Data("todobench: --write-cost takes --seed N, --adds N, --batch K, --no-change-log\n".utf8))
            exit(2)
        }
        rest.removeFirst()
        options[name] = value
    }
    do {
        try WriteCostBench.run(
            seed: options["--seed"]!, adds: options["--adds"]!, batch: options["--batch"]!, changeLog: changeLog)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("todobench: \(error)\n".utf8))
        exit(1)
    }
}

let allSections = [
    "store", "protocol", "add", "log", "client", "reminders", "recurrence", "scale", "idle", "feed", "when", "undo",
    "subtasks", "search", "alarms"
]
var quick = false
var chosen: [String] = []
var argumentList = Array(CommandLine.arguments.dropFirst())
while !argumentList.isEmpty {
    let argument = argumentList.removeFirst()
    switch argument {
    case "--quick": quick = true
    case "--section":
        guard let name = argumentList.first, allSections.contains(name) else {
            FileHandle.standardError.write(
                Data("todobench: --section needs one of \(allSections.joined(separator: ", "))\n".utf8))
            exit(2)
        }
        argumentList.removeFirst()
        chosen.append(name)
    case "--help", "-h":
        print("usage: todobench [--quick] [--section NAME]...\nsections: \(allSections.joined(separator: ", "))")
        exit(0)
    default:
        FileHandle.standardError.write(Data("todobench: unknown argument '\(argument)'\n".utf8))
        exit(2)
    }
}
let sections = chosen.isEmpty ? allSections : allSections.filter(chosen.contains)

if let debugWarning { print(debugWarning) }
Machine.printInfo(quick: quick)
Posix.ignoreSIGPIPE()

var failures: [String] = []
for section in sections {
    print("")
    let started = Measure.now()
    do {
        switch section {
        case "store":
            try StoreBench.run(count: quick ? 2_000 : 100_000, samples: quick ? 3 : 15)
        case "protocol":
            try ProtocolBench.run(samples: quick ? 2_000 : 10_000)
        case "add":
            try AddBench.run(seconds: quick ? 1 : 3, floorRows: quick ? 300 : 3_000)
        case "log":
            try LogBench.run(
                todos: quick ? 1_000 : 10_000, samples: quick ? 20 : 200, changes: quick ? 10_000 : 100_000)
        case "client":
            try ClientBench.run(
                sizes: quick ? [1_000, 5_000] : [10_000, 100_000], runs: quick ? 5 : 21, peerRuns: quick ? 3 : 7,
                quick: quick)
        case "reminders":
            try ReminderBench.run(count: quick ? 100 : 1_000, spreadSeconds: quick ? 2 : 10, leadSeconds: quick ? 2 : 3)
        case "recurrence":
            try RecurrenceBench.run(calls: quick ? 2_000 : 20_000, samples: quick ? 3 : 11)
        case "scale":
            try ScaleBench.run(count: quick ? 2_000 : 1_000_000, runs: quick ? 5 : 21)
        case "idle":
            try IdleBench.run(seconds: quick ? 5 : 60, settleSeconds: quick ? 6 : 10)
        case "feed":
            try FeedBench.run(changes: quick ? 2_000 : 10_000, runs: quick ? 3 : 11)
        case "when":
            try WhenBench.run(calls: quick ? 1_000 : 20_000, samples: quick ? 3 : 11)
        case "undo":
            try UndoBench.run(sizes: quick ? [2_000] : [30_000, 100_000])
        case "search":
            try SearchBench.run(count: quick ? 2_000 : 100_000, samples: quick ? 20 : 200)
        case "alarms":
            try AlarmBench.run(count: quick ? 2_000 : 10_000, samples: quick ? 3 : 9)
        case "subtasks":
            try SubtaskBench.run(count: quick ? 2_000 : 100_000, tasks: quick ? 500 : 10_000, runs: quick ? 3 : 9)
        default: break
        }
    } catch {
        let message = "section \(section) failed: \(error)"
        print("  ERROR: \(message)")
        failures.append(message)
        Summary.add("\(section): failed", value: "\(error)".prefix(60).description)
    }
    print(String(format: "  (section %@ took %.1f s)", section, Measure.now() - started))
}

print("")
print(
    "== summary (\(quick ? "QUICK mode: small sizes, not the issue's figures" : "full run"); \(buildConfiguration) build)"
)
if let debugWarning { print(debugWarning) }
print(Summary.markdown(), terminator: "")
for note in Summary.notes { print("- \(note)") }
if !failures.isEmpty {
    FileHandle.standardError.write(Data(("todobench: " + failures.joined(separator: "\ntodobench: ") + "\n").utf8))
    exit(1)
}
