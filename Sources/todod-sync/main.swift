import TodoPosix
import TodoSync

// todod-sync: keeps CalDAV calendars and the todod store in step (SPEC §9, todod-sync(1)).
// Everything happens in TodoSync's SyncMain; this file only supplies the process's arguments
// and environment.
#if canImport(Glibc)
    import Glibc
#endif

Posix.ignoreSIGPIPE()
exit(SyncMain.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: Posix.environment()))
