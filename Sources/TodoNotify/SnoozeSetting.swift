import TodoClient

/// The `snooze` key of the configuration file todoctl reads (`Config`, SPEC §10): how long the
/// Snooze button puts a reminder off.
enum SnoozeSetting {
    /// The snooze length in microseconds: the file's `snooze`, else todoctl's default (10 minutes).
    /// A file todoctl would refuse is reported through `warn` (one line naming file and line) and
    /// the default is used: the notifier keeps running.
    static func load(environment: [String: String], warn: (String) -> Void) -> Int64 {
        do {
            return try Config.load(environment: environment).snooze
        } catch {
            warn("\(error.message); snoozing for 10 minutes")
            return Config.defaultSnooze
        }
    }
}
