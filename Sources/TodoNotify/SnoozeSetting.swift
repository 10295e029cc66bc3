import TodoUserFiles

/// The `snooze` key of the configuration file todoctl reads (`Config`, SPEC §10): how long the
/// Snooze button puts a reminder off.
enum SnoozeSetting {
    /// The snooze length in microseconds: the file's `snooze`, else todoctl's default (10 minutes).
    /// A bad `snooze` line or an unreadable file is reported through `warn` (one line naming file
    /// and line) and the default is used: the notifier keeps running.
    static func load(environment: [String: String], warn: (String) -> Void) -> Int64 {
        let config = Config.load(environment: environment, commands: nil)
        if let problem = config.problem(forKeys: ["snooze"]) {
            warn("\(problem.message); snoozing for 10 minutes")
            return Config.defaultSnooze
        }
        return config.snooze
    }
}

/// The `quiet-hours` key of the same file: when the desktop output holds reminders.
enum QuietSetting {
    /// The span, or nil (none, or a bad line, reported through `warn`: no quiet hours then).
    static func load(environment: [String: String], warn: (String) -> Void) -> QuietHours? {
        let config = Config.load(environment: environment, commands: nil)
        if let problem = config.problem(forKeys: ["quiet-hours"]) {
            warn("\(problem.message); no quiet hours")
            return nil
        }
        return config.quietHours
    }
}
