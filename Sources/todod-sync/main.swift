// todod-sync: keeps CalDAV calendars and the todod store in step (SPEC §9).
#if canImport(Glibc)
import Glibc
#endif
import TodoSync

exit(0)
