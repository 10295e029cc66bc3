// todod: the todo and reminder daemon. Reads its command line and runs.
import TodoDaemon

Daemon.main()
