import TodoNotify
import TodoPosix

// todod-notify: desktop notifications (and --print, --exec) for todod's reminders. Everything
// happens in TodoNotify's Notifier.main; this file only supplies the process's arguments and
// environment.
#if canImport(Glibc)
    import Glibc
#endif

let environment: [String: String] = Posix.environment()
exit(Notifier.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment))
