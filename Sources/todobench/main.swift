import Foundation

// todobench: measures todod. Run in release: `swift run -c release todobench [--quick]`.

#if DEBUG
print("WARNING: todobench was built in debug mode; figures are meaningless. Use `swift run -c release todobench`.")
#endif

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
do {
    try StoreBench.run(count: quick ? 2_000 : 100_000, samples: quick ? 3 : 15)
} catch {
    FileHandle.standardError.write(Data("todobench: \(error)\n".utf8))
    exit(1)
}
