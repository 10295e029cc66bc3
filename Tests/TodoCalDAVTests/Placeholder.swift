import TodoCalDAV
