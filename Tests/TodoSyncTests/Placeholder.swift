import TodoSync
