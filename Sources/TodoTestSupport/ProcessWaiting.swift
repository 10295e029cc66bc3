import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Waits for the process to end and returns its status (128+signal when killed).
    ///
    /// Reaps the child itself: Foundation's `waitUntilExit` was seen to wait forever for a child
    /// killed while other children were being started.
    @discardableResult
    package func waitForExit() -> Int32 {
        let pid = processIdentifier
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            if reaped == -1 { // Foundation reaped it first
                for _ in 0..<2000 where isRunning { usleep(1000) }
                return terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
            }
            usleep(1000)
        }
    }
}
