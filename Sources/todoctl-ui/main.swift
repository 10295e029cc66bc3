import TodoPosix
import TodoUI

// todoctl-ui: the interactive list that `todoctl ui` runs (a program of its own, so that
// todoctl does not load ncurses for every command). Everything happens in TodoUI's UIMain.
#if canImport(Glibc)
    import Glibc
#endif

exit(UIMain.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: Posix.environment()))
