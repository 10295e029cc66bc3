import Dispatch
import Foundation
@_spi(Testing) import TodoDaemon

// todod-faults: todod with a fault a test (or the benchmark) asks for; built for the tests, never
// installed. The shipped todod has no such switch. It reads todod's command line, then the fault
// from TODOD_TEST_FAULT:
//   hang-store-after=SECONDS   the store queue hangs that long after start (for the watchdog tests)
//   no-change-log              the store opens without its change log (todobench's measure of the
//                              log's cost; nothing can be undone)
#if canImport(Glibc)
    import Glibc
#endif

/// Seconds after start at which the store queue hangs, from `TODOD_TEST_FAULT`.
func hangStoreAfter(_ environment: [String: String]) -> Double? {
    guard let fault = environment["TODOD_TEST_FAULT"], fault != "no-change-log" else { return nil }
    let parts = fault.split(separator: "=", maxSplits: 1)
    guard parts.count == 2, parts[0] == "hang-store-after", let seconds = Double(parts[1]), seconds >= 0 else {
        FileHandle.standardError.write(Data("todod-faults: unknown TODOD_TEST_FAULT \(fault)\n".utf8))
        exit(2)
    }
    return seconds
}

let hangAfter = hangStoreAfter(ProcessInfo.processInfo.environment)
let changeLog = ProcessInfo.processInfo.environment["TODOD_TEST_FAULT"] != "no-change-log"
Daemon.main(
    name: "todod-faults",
    afterStart: { storeQueue in
        guard let hangAfter else { return }
        FileHandle.standardError.write(Data("todod-faults: the store queue will hang in \(hangAfter) s\n".utf8))
        storeQueue.asyncAfter(deadline: .now() + hangAfter) {
            while true { sleep(3600) }
        }
    }, changeLog: changeLog)
