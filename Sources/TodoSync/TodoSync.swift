// todod-sync's engine: keeps one or more CalDAV calendars and the todod store in step (SPEC §9).
import TodoCalDAV
