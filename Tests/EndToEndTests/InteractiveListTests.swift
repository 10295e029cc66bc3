import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl ui` in a real terminal: tmux runs it against a real daemon, keys go in with
/// `send-keys`, the screen comes back with `capture-pane`, and what each key did is read from the
/// store with todoctl. Golden screens (Golden/ui-*.txt) at 80×24 and 60×20.
@Suite(
    .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux (scripts/test installs it)")
)
struct InteractiveListTests {
    /// One tmux server of its own running `todoctl ui`; after it exits the pane prints its exit
    /// status and the terminal's settings.
    final class Pane {
        let server = "todod-ui-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        /// Runs `todoctl --socket SOCKET ARGUMENTS` (the list by default) in an interactive bash.
        init(
            daemon: DaemonProcess, width: Int = 80, height: Int = 24, environment: [String: String] = [:],
            arguments: [String] = ["ui"]
        ) throws {
            var variables = [
                "TZ": "UTC", "LANG": "C.UTF-8", "HOME": daemon.directory.path,
                "XDG_CONFIG_HOME": daemon.directory.file("config")
            ]
            for (k, v) in environment { variables[k] = v }
            let env = variables.sorted { $0.key < $1.key }.map { Self.quoted("\($0.key)=\($0.value)") }.joined(
                separator: " ")
            // An interactive shell with job control, as a user's: Ctrl-Z stops the list, fg resumes it.
            try tmux([
                "-f", "/dev/null", "new-session", "-d", "-s", "ui", "-x", "\(width)", "-y", "\(height)",
                "env PS1='$ ' TERM=screen bash --norc --noprofile -i"
            ])
            #expect(waitFor { $0.contains { $0.hasPrefix("$") } }, "\(screen())")
            // `clear` first: the command typed is long and wraps (with wide characters in it), and
            // readline's redrawing of it could leave a row's tail for the program's first line to
            // be written over (seen once: "2 todos will change (done):odod-d-…").
            try type(
                "clear; env \(env) \(Self.quoted(BuiltProducts.path("todoctl"))) --socket \(Self.quoted(daemon.socket)) "
                    + arguments.map(Self.quoted).joined(separator: " "))
            try press("Enter")
            if arguments == ["ui"] { #expect(waitFor { $0.first?.contains(" todod · ") == true }, "\(screen())") }
        }

        deinit { _ = try? tmux(["kill-server"]) }

        /// Once the list has ended: its exit status as `EXITED N`, then the terminal's settings.
        func exitLine() throws -> [String] {
            #expect(waitFor { $0.last(where: { !$0.isEmpty }) == "$" }, "\(screen())")
            try type("s=$?; clear; echo EXITED $s; stty -a")
            try press("Enter")
            // Done once stty has printed all of it and the prompt is back.
            _ = waitFor { s in s.contains { $0.hasPrefix("EXITED ") } && s.last(where: { !$0.isEmpty }) == "$" }
            return screen()
        }

        static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            let result = try ChildProcess.run(
                "/usr/bin/tmux", ["-L", server] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color"])
            return result.stdout
        }

        /// The screen, one string per row, trailing spaces cut.
        func screen() -> [String] {
            let text = (try? tmux(["capture-pane", "-p", "-t", "ui"])) ?? ""
            return text.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression)
            }
        }

        /// Types `keys` (tmux key names: "j", "Space", "Enter", "C-r").
        func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "ui"] + keys) }

        /// Types `text` literally (Japanese included).
        func type(_ text: String) throws { try tmux(["send-keys", "-t", "ui", "-l", text]) }

        func waitFor(timeout: Double = 10, _ condition: ([String]) -> Bool) -> Bool {
            NotifyTestSupport.eventually(timeout: timeout) { condition(self.screen()) }
        }

        func contains(_ text: String, timeout: Double = 10) -> Bool {
            waitFor(timeout: timeout) { $0.contains { $0.contains(text) } }
        }

        /// The pid of todoctl-ui in this pane.
        var programPID: Int32? {
            guard
                let shell = Int32(
                    ((try? tmux(["list-panes", "-t", "ui", "-F", "#{pane_pid}"])) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines))
            else { return nil }
            let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) {
                if (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8))?.hasPrefix("todoctl-ui")
                    == true
                {
                    return child
                }
            }
            return nil
        }
    }

    static func todo(_ daemon: DaemonProcess, _ id: Int) throws -> JSON? {
        let result = try daemon.todoctl(["--json", "show", "\(id)"])
        return result.status == 0 ? try JSON.parse(Array(result.stdout.utf8)) : nil
    }

    /// A store with Japanese, emoji, a combining mark and a category, none with a due date (so
    /// the screens do not move with the clock).
    static func seeded() throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        for arguments in [
            ["牛乳を買う", "--category", "買い物"], ["Write the report", "--priority", "high"], ["🍣 with friends"],
            ["Café crème, naïve é", "--tag", "急ぎ"], ["クリーニングを出す", "--category", "家"]
        ] {
            #expect(try daemon.todoctl(["add"] + arguments).status == 0)
        }
        return daemon
    }

    /// Imports `todos` (entries of a todod export) with `todoctl import`: a store of a thousand
    /// todos in one request.
    static func load(_ todos: [JSON], into daemon: DaemonProcess) throws {
        let seed = daemon.directory.file("seed.json")
        let document: JSON = .object([
            "format": "todod-export", "version": 1, "exported": "2026-12-01T00:00:00Z", "categories": .array([]),
            "todos": .array(todos)
        ])
        var bytes: [UInt8] = []
        document.write(to: &bytes)
        try String(decoding: bytes, as: UTF8.self).write(toFile: seed, atomically: true, encoding: .utf8)
        #expect(try daemon.todoctl(["import", seed]).status == 0)
    }

    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        .path

    @Test(arguments: [(80, 24), (60, 20)])
    func theScreenAtEachSize(width: Int, height: Int) throws {
        let daemon = try Self.seeded()
        let pane = try Pane(daemon: daemon, width: width, height: height)
        #expect(pane.contains("クリーニングを出す") || width < 80)
        let shown = pane.screen().joined(separator: "\n")
        for line in pane.screen() { #expect(TerminalWidth.of(line) <= width, "\(line)") }
        let file = Self.golden + "/ui-\(width)x\(height).txt"
        if ProcessInfo.processInfo.environment["TODOD_GOLDEN_UPDATE"] == "1" {
            try shown.write(toFile: file, atomically: true, encoding: .utf8)
        }
        #expect(shown == (try String(contentsOfFile: file, encoding: .utf8)), "\(shown)")
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// Each key's effect, read back from the store.
    @Test func keysActOnTheStore() throws {
        let daemon = try Self.seeded()
        let pane = try Pane(daemon: daemon)
        // space: done, and undo (u) brings it back.
        try pane.press("j", "Space")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 2))??["done"] == .bool(true) })
        try pane.press("u")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 2))??["done"] == .bool(false) })
        // J moves it down in the manual order, keeping its id.
        #expect(try Self.todo(daemon, 2)?["position"] == .int(2))
        try pane.press("J")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 2))??["position"] == .int(3) })
        // d deletes without a prompt; u brings it back with its id.
        try pane.press("d")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 2)) == .some(nil) })
        try pane.press("u")
        #expect(
            NotifyTestSupport.eventually(timeout: 5) {
                (try? Self.todo(daemon, 2))??["title"] == .string("Write the report")
            })
        // a: Japanese typed into the prompt, with a Japanese WHEN.
        try pane.press("a")
        try pane.type("歯医者を予約 --due 明日の朝")
        #expect(pane.contains("Add: 歯医者を予約 --due 明日の朝"))
        try pane.press("Enter")
        #expect(pane.contains("Added 歯医者を予約"))
        let added = try #require(try Self.todo(daemon, 6))
        #expect(added["title"] == .string("歯医者を予約") && added["due"] != .null && added["due"] != nil)
        // e: a new title; the cursor moves by grapheme (C-a, then the first character deleted).
        try pane.press("e", "C-u")
        try pane.type("歯科の予約")
        try pane.press("Left", "Left", "BSpace", "Enter")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 6))??["title"] == .string("歯科予約") })
        // m: a category.
        try pane.press("m")
        try pane.type("病院")
        try pane.press("Enter")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 6))??["category"] == .string("病院") })
        // Z: snooze until a time typed into the prompt (a duration or any WHEN); its reminder,
        // tomorrow morning, moves to three days from now.
        try pane.press("Z")
        try pane.type("72h")
        #expect(pane.contains("Snooze until: 72h"), "\(pane.screen())")
        try pane.press("Enter")
        let inThreeDays = Date().addingTimeInterval(72 * 3600)
        #expect(
            NotifyTestSupport.eventually(timeout: 5) {
                guard let remind = (try? Self.todo(daemon, 6))??["remind"]?.stringValue,
                    let at = ISO8601DateFormatter().date(from: remind)
                else { return false }
                return abs(at.timeIntervalSince(inThreeDays)) < 300
            }, "\(pane.screen())")
        // : any todoctl command; a bad one is one line in the status bar and the list stays.
        try pane.press(":")
        try pane.type("add 外から来た --priority low")
        try pane.press("Enter")
        #expect(pane.contains("外から来た"))
        try pane.press(":")
        try pane.type("frobnicate")
        try pane.press("Enter")
        #expect(pane.contains("unknown command"), "\(pane.screen())")
        #expect(pane.screen().first?.contains(" todod · 7 open") == true)
        // /: a filter as you type, across width and case.
        try pane.press("/")
        try pane.type("ＷＲＩＴＥ")
        #expect(
            pane.waitFor { s in s.contains { $0.contains("Write the report") } && !s.contains { $0.contains("牛乳を買う") } }
        )
        try pane.press("Escape")
        #expect(pane.contains("牛乳を買う"))
        // Hiragana finds katakana; a leading = finds the text only as typed.
        try pane.press("/")
        try pane.type("くりーにんぐ")
        #expect(
            pane.waitFor { s in s.contains { $0.contains("クリーニングを出す") } && !s.contains { $0.contains("牛乳を買う") } },
            "\(pane.screen())")
        try pane.press("Escape")
        try pane.press("/")
        try pane.type("=くりーにんぐ")
        #expect(
            pane.waitFor { s in !s.contains { $0.contains("クリーニングを出す") } && !s.contains { $0.contains("牛乳を買う") } },
            "\(pane.screen())")
        try pane.press("Escape")
        try pane.press("/")
        try pane.type("=クリーニング")
        #expect(
            pane.waitFor { s in s.contains { $0.contains("クリーニングを出す") } && !s.contains { $0.contains("牛乳を買う") } },
            "\(pane.screen())")
        try pane.press("Escape")
        #expect(pane.contains("牛乳を買う"))
        // v marks two, space completes both in one request: one undo step brings both back.
        try pane.press("g", "v", "v", "Space")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 1))??["done"] == .bool(true) })
        #expect(try Self.todo(daemon, 3)?["done"] == .bool(true))
        try pane.press("u")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 1))??["done"] == .bool(false) })
        #expect(try Self.todo(daemon, 3)?["done"] == .bool(false))
        // s sorts by the next key; ? lists every key.
        try pane.press("s")
        #expect(pane.contains("sort: due"))
        try pane.press("?")
        #expect(pane.contains("Keys (j k scroll"))
        try pane.press("x", "q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// Keys from the config file: `ui.key.done = x` completes with x; a bad line is one line in
    /// the status bar, and the rest of the keys work.
    @Test func keysFromTheConfigFile() throws {
        let daemon = try Self.seeded()
        try FileManager.default.createDirectory(
            atPath: daemon.directory.file("config") + "/todod", withIntermediateDirectories: true)
        try "ui.key.done = x\nui.key.frobnicate = y\n".write(
            toFile: daemon.directory.file("config") + "/todod/config", atomically: true, encoding: .utf8)
        let pane = try Pane(daemon: daemon)
        #expect(pane.contains("ui.key.frobnicate: no such action"), "\(pane.screen())")
        try pane.press("x")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 1))??["done"] == .bool(true) })
        try pane.press("Space") // still space too
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 2))??["done"] == .bool(true) })
        // todoctl itself takes the ui.key lines without a warning.
        let list = try daemon.todoctl(["list"], environment: ["XDG_CONFIG_HOME": daemon.directory.file("config")])
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
    }

    /// Sections by category (C) and the category pane with counts (c) choosing one.
    @Test func sectionsAndTheCategoryPane() throws {
        let daemon = try Self.seeded()
        let pane = try Pane(daemon: daemon)
        try pane.press("C")
        #expect(
            pane.waitFor { s in s.contains(" 買い物") && s.contains(" 家") && s.contains(" No category") },
            "\(pane.screen())")
        #expect(pane.screen()[1].contains("CATEGORY") == false)
        try pane.press("c")
        #expect(pane.waitFor { s in s.contains { $0.contains("│ 買い物") && $0.hasSuffix("1 │") } }, "\(pane.screen())")
        try pane.press("j", "j", "Enter")
        #expect(
            pane.waitFor { s in
                s.first?.contains("· 1 open") == true && s.first?.contains("· 買い物") == true
                    && s.contains { $0.contains("牛乳を買う") } && !s.contains { $0.contains("Write the report") }
            }, "\(pane.screen())")
        try pane.press("c", "g", "Enter") // All again
        #expect(pane.contains("Write the report"))
    }

    /// Hostile text is shown as `list` shows it, and colours follow NO_COLOR.
    @Test func hostileTextAndColours() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.client().result("todo.add", ["title": .string("evil \u{202E}gnp.exe title \u{200B} zw")])
        #expect(try daemon.todoctl(["add", "期限切れ", "--due", "-2h"]).status == 0)
        for noColour in [false, true] {
            let pane = try Pane(daemon: daemon, environment: noColour ? ["NO_COLOR": "1"] : [:])
            #expect(pane.contains("evil <U+202E>gnp.exe title <U+200B> zw"), "\(pane.screen())")
            let styled = try pane.tmux(["capture-pane", "-p", "-e", "-t", "ui"])
            let overdue = try #require(styled.split(separator: "\n").first { $0.contains("期限切れ") })
            // Red is SGR 31 (or 38;5;1 / 91 where the terminal maps it so).
            let red =
                overdue.contains("[31m") || overdue.contains(";31m") || overdue.contains("38;5;1m")
                || overdue.contains("[91m")
            #expect(red != noColour, "\(noColour ? "NO_COLOR" : "colour"): \(overdue.debugDescription)")
            try pane.press("q")
        }
    }

    /// Another client's change is on screen at once, and the selection stays on its todo.
    @Test func changesFromElsewhereAndTheSelection() throws {
        let daemon = try Self.seeded()
        let pane = try Pane(daemon: daemon)
        try pane.press("j", "j") // on 🍣 with friends (id 3)
        #expect(try daemon.todoctl(["add", "上に追加", "--top"]).status == 0)
        #expect(pane.contains("上に追加"))
        try pane.press("Space") // still on id 3, now one row lower
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 3))??["done"] == .bool(true) })
        #expect(try Self.todo(daemon, 2)?["done"] == .bool(false))
        // A reminder that fires shows in the status line.
        #expect(try daemon.todoctl(["add", "今すぐ通知", "--due", "+1s"]).status == 0)
        #expect(pane.contains("⏰ 今すぐ通知", timeout: 15))
    }

    /// `f` folds a parent's subtasks away and back; the fold is kept by uid when another
    /// client's change moves the rows, and the selection stays on the folded parent.
    @Test func foldingSubtasks() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "親タスク"]).status == 0)
        #expect(try daemon.todoctl(["add", "子その一", "--parent", "1"]).status == 0)
        #expect(try daemon.todoctl(["add", "孫", "--parent", "2"]).status == 0)
        #expect(try daemon.todoctl(["add", "子その二", "--parent", "1"]).status == 0)
        #expect(try daemon.todoctl(["add", "別のタスク"]).status == 0)
        let pane = try Pane(daemon: daemon)
        #expect(pane.contains("子その二"))
        try pane.press("f")
        #expect(
            pane.waitFor { s in
                !s.contains { $0.contains("子その") || $0.contains("孫") }
                    && s.contains { $0.hasPrefix(" +") && $0.contains("親タスク") }
            },
            "\(pane.screen())")
        // j passes over the folded rows: the next row is 別のタスク.
        try pane.press("j")
        #expect(pane.contains("Title:    別のタスク"), "\(pane.screen())")
        try pane.press("k")
        // Another client puts a todo on top: still folded, still on the parent.
        #expect(try daemon.todoctl(["add", "上に来た", "--top"]).status == 0)
        #expect(pane.contains("上に来た"))
        #expect(!pane.screen().contains { $0.contains("子その") })
        try pane.press("e", "C-u")
        try pane.type("親を改名")
        try pane.press("Enter")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 1))??["title"] == .string("親を改名") })
        #expect(!pane.screen().contains { $0.contains("子その") })
        try pane.press("f")
        #expect(
            pane.waitFor { s in
                s.contains { $0.contains("子その一") } && s.contains { $0.contains("孫") }
                    && s.contains { $0.contains("子その二") }
            },
            "\(pane.screen())")
        // f on a subtask folds its parent, which takes the selection.
        try pane.press("j", "j", "f")
        #expect(
            pane.waitFor { s in !s.contains { $0.contains("孫") } && s.contains { $0.contains("子その一") } },
            "\(pane.screen())")
        #expect(pane.contains("Title:    子その一"), "\(pane.screen())")
        // Folding changes nothing in the store.
        #expect(try Self.todo(daemon, 3)?["parent"] == .int(2))
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// `a` adds below the selection in one request (todo.add `after`): one undo step takes it
    /// away again, and the order around it is as it was.
    @Test func addBelowTheSelectionInOneRequest() throws {
        let daemon = try Self.seeded()
        // The wire: after a todo, an unknown anchor, and after with top.
        let client = try daemon.client()
        let wired = try client.result("todo.add", ["title": "線の上で", "after": .int(1)])
        #expect(wired["position"] == .int(2))
        #expect(try Self.todo(daemon, 2)?["position"] == .int(3))
        #expect(try client.call("todo.add", ["title": "x", "after": .int(99)])["error"]?["code"] == .int(-32001))
        #expect(
            try client.call("todo.add", ["title": "x", "after": .int(1), "top": .bool(true)])["error"]?["code"]
                == .int(-32602))
        #expect(try daemon.todoctl(["rm", "6"]).status == 0)
        let seqBefore = try #require(try client.result("daemon.status")["seq"]?.intValue)
        let pane = try Pane(daemon: daemon)
        try pane.press("j") // on Write the report, position 2
        try pane.press("a")
        try pane.type("間に入れる --priority low")
        try pane.press("Enter")
        #expect(pane.contains("Added 間に入れる"))
        let added = try #require(try Self.todo(daemon, 7))
        #expect(added["position"] == .int(3) && added["priority"] == .string("low"), "\(added)")
        #expect(try Self.todo(daemon, 3)?["position"] == .int(4))
        // One change in the store's log, so one undo step.
        #expect(try client.result("daemon.status")["seq"]?.intValue == seqBefore + 1)
        // The selection is on the new todo.
        #expect(pane.contains("Title:    間に入れる"))
        try pane.press("u")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 7)) == .some(nil) })
        #expect(try Self.todo(daemon, 3)?["position"] == .int(3))
        // Added from the last row: the end of the list.
        try pane.press("G", "a")
        try pane.type("最後に")
        try pane.press("Enter")
        #expect(pane.contains("Added 最後に"))
        #expect(try Self.todo(daemon, 8)?["position"] == .int(6))
    }

    /// The selection stays on its todo when another client moves that todo far out of the rows
    /// read (more than a page away).
    @Test func theSelectionFollowsItsTodoFarAway() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        for i in 1...150 { _ = try client.result("todo.add", ["title": .string("やること \(i)")]) }
        let pane = try Pane(daemon: daemon)
        try pane.press("j", "j") // on やること 3
        #expect(pane.contains("Title:    やること 3"))
        #expect(try daemon.todoctl(["move", "3", "--bottom"]).status == 0)
        #expect(
            pane.waitFor { s in s.contains { $0.contains("Title:    やること 3") } && s.contains { $0.contains("150") } },
            "\(pane.screen())")
        try pane.press("Space")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 3))??["done"] == .bool(true) })
        #expect(try Self.todo(daemon, 150)?["done"] == .bool(false))
        // G and g go to the ends.
        try pane.press("g")
        #expect(pane.contains("Title:    やること 1"))
        try pane.press("G")
        #expect(pane.contains("Title:    やること 150"))
        // A page up from the end (rows read from the end of the list): 13 rows up, past 3 (done).
        try pane.press("PPage")
        #expect(pane.contains("Title:    やること 137"), "\(pane.screen())")
        try pane.press("k")
        #expect(pane.contains("Title:    やること 136"), "\(pane.screen())")
    }

    /// Sorted by title, and with a `/` filter: another client renames the selected todo so it
    /// sorts at the other end of the list, far beyond the rows read; the selection follows it
    /// there (the rows around it read with two keyset windows), and acts on it.
    @Test func theSelectionFollowsItsTodoFarAwayInAnyOrder() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        for i in 1...150 { _ = try client.result("todo.add", ["title": .string("やること \(i)")]) }
        let pane = try Pane(daemon: daemon)
        try pane.press("s", "s", "s") // manual, due, priority, title
        #expect(pane.contains("sort: title ↑"), "\(pane.screen())")
        // By title: やること 1, やること 10, やること 100, やること 101, …
        try pane.press("j", "j")
        #expect(pane.contains("Title:    やること 100"), "\(pane.screen())")
        #expect(try daemon.todoctl(["edit", "100", "--title", "んんん 最後へ"]).status == 0)
        #expect(
            pane.waitFor { s in
                s.contains { $0.contains("Title:    んんん 最後へ") }
                    && s.contains { $0.hasPrefix(" ") && $0.contains("んんん 最後へ") && $0.contains("100") }
            },
            "\(pane.screen())")
        try pane.press("j") // the last row: j stays on it
        #expect(pane.contains("Title:    んんん 最後へ"), "\(pane.screen())")
        try pane.press("Space")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 100))??["done"] == .bool(true) })
        // With a filter: 62 todos have こと 1 in their title.
        try pane.press("/")
        try pane.type("こと 1")
        try pane.press("Enter")
        #expect(pane.contains("/こと 1"), "\(pane.screen())")
        try pane.press("g", "j")
        #expect(pane.contains("Title:    やること 10"), "\(pane.screen())")
        #expect(try daemon.todoctl(["edit", "10", "--title", "んんん やること 10"]).status == 0)
        #expect(pane.waitFor { s in s.contains { $0.contains("Title:    んんん やること 10") } }, "\(pane.screen())")
        try pane.press("k")
        #expect(pane.contains("Title:    やること 19"), "\(pane.screen())")
        // Back down by one: the rows were read around it.
        try pane.press("j")
        #expect(pane.contains("Title:    んんん やること 10"), "\(pane.screen())")
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// Deep in a sort by title (past the first 1,000 rows), a change from elsewhere re-reads the
    /// rows around the selected todo by keyset windows (not an offset walk): the selection stays
    /// on its todo and on its screen line.
    @Test func aChangeDeepInTheListKeepsTheSelection() throws {
        let daemon = try DaemonProcess()
        let todos = (1...1_200).map { i -> JSON in
            .object([
                "uid": .string("deep-\(i)"), "title": .string(String(format: "深い %04d", i)), "done": .bool(false),
                "position": .int(Int64(i)), "created": "2026-12-01T00:00:00Z", "updated": "2026-12-01T00:00:00Z"
            ])
        }
        try Self.load(todos, into: daemon)
        let trace = daemon.directory.file("trace")
        let pane = try Pane(daemon: daemon, environment: ["TODOCTL_UI_TRACE": trace])
        try pane.press("s", "s", "s") // by title
        #expect(pane.contains("sort: title ↑"), "\(pane.screen())")
        try pane.press("G", "k", "k")
        #expect(pane.contains("Title:    深い 1198"), "\(pane.screen())")
        let line = pane.screen().firstIndex { $0.contains("深い 1198") && !$0.contains("Title:") }
        #expect(try daemon.todoctl(["edit", "1198", "--title", "深い 1198 変更"]).status == 0)
        #expect(pane.waitFor { s in s.contains { $0.contains("Title:    深い 1198 変更") } }, "\(pane.screen())")
        #expect(
            pane.screen().firstIndex { $0.contains("深い 1198 変更") && !$0.contains("Title:") } == line, "\(pane.screen())"
        )
        // Read by keyset windows around it (the timing log says which way the rows were read).
        #expect(((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains("read around the selection"))
        try pane.press("j")
        #expect(pane.contains("Title:    深い 1199"), "\(pane.screen())")
        // The selected todo deleted by another client: the selection goes to the todo that takes
        // its place, read around that one, not by an offset walk.
        #expect(try daemon.todoctl(["rm", "1199"]).status == 0)
        #expect(pane.waitFor { s in s.contains { $0.contains("Title:    深い 1200") } }, "\(pane.screen())")
        #expect(
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains(
                "read around the selection's neighbour"))
        // The selected todo and both its neighbours deleted at once: the nearest todo still
        // listed takes its place, read around it.
        try pane.press("k", "k", "k")
        #expect(pane.contains("Title:    深い 1196"), "\(pane.screen())")
        func neighbourReads() -> Int {
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").components(
                separatedBy: "read around the selection's neighbour"
            ).count - 1
        }
        let before = neighbourReads()
        #expect(try daemon.todoctl(["rm", "1195", "1196", "1197"]).status == 0)
        #expect(pane.waitFor { s in s.contains { $0.contains("Title:    深い 1198 変更") } }, "\(pane.screen())")
        #expect(neighbourReads() == before + 1, "\(before)")
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// `G` in orders other than the manual one (by due date, by priority descending, with done
    /// todos shown): the last row on screen is the last todo of that order, read from the end of
    /// the listing (`todo.list` `fromEnd`), not by an offset walk.
    @Test func theLastRowsInAnyOrder() throws {
        let daemon = try DaemonProcess()
        let todos = (1...1_200).map { i -> JSON in
            var todo: JSONObject = [
                "uid": .string("end-\(i)"), "title": .string(String(format: "終わり %04d", i)), "done": .bool(i % 5 == 0),
                "position": .int(Int64(i)), "created": "2026-12-01T00:00:00Z", "updated": "2026-12-01T00:00:00Z"
            ]
            if i % 3 != 0 { todo["due"] = .string(String(format: "2027-01-%02dT09:00:00Z", 1 + i % 28)) }
            if let priority = [nil, "high", "low"][i % 3] { todo["priority"] = .string(priority) }
            if i % 5 == 0 { todo["completed"] = "2026-12-02T00:00:00Z" }
            return .object(todo)
        }
        try Self.load(todos, into: daemon)
        let client = try daemon.client()
        /// The last title of the whole listing in this order, read without a window.
        func lastTitle(_ key: String, descending: Bool = false, status: String = "open") throws -> String {
            let listing = try client.result(
                "todo.list",
                [
                    "status": .string(status),
                    "sort": .array([.object(["key": .string(key), "descending": .bool(descending)])])
                ])
            return try #require(listing["todos"]?.arrayValue?.last?["title"]?.stringValue)
        }
        let trace = daemon.directory.file("trace")
        let pane = try Pane(daemon: daemon, environment: ["TODOCTL_UI_TRACE": trace])
        func expectLast(_ title: String, _ sort: String) {
            #expect(pane.contains("sort: \(sort)"), "\(pane.screen())")
            try? pane.press("G")
            #expect(pane.contains("Title:    \(title)"), "\(sort): \(pane.screen())")
            let rows = pane.screen().filter { $0.contains("終わり ") && !$0.contains("Title:") }
            #expect(rows.last?.contains(title) == true, "\(sort): \(pane.screen())")
            try? pane.press("g")
            #expect(pane.waitFor { !$0.contains { $0.contains("Title:    \(title)") } }, "\(pane.screen())")
        }
        try pane.press("s") // by due date: the undated ones last
        expectLast(try lastTitle("due"), "due ↑")
        try pane.press("s", "S") // by priority, descending: those without one last
        expectLast(try lastTitle("priority", descending: true), "priority ↓")
        try pane.press("s") // by title ascending, with done todos shown
        try pane.press("A")
        expectLast(try lastTitle("title", status: "all"), "title ↑")
        #expect(((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains("read the last rows"))
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// The mouse is off by default (the terminal keeps its own selection); with `ui.mouse = on`
    /// a click selects a row and the wheel scrolls.
    @Test func theMouseWhenAskedFor() throws {
        let daemon = try Self.seeded()
        let off = try Pane(daemon: daemon)
        #expect(
            try off.tmux([
                "display-message", "-p", "-t", "ui", "#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}"
            ])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "000")
        try off.press("q")
        try FileManager.default.createDirectory(
            atPath: daemon.directory.file("config") + "/todod", withIntermediateDirectories: true)
        try "ui.mouse = on\n".write(
            toFile: daemon.directory.file("config") + "/todod/config", atomically: true, encoding: .utf8)
        let pane = try Pane(daemon: daemon)
        #expect(
            try pane.tmux([
                "display-message", "-p", "-t", "ui", "#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}"
            ])
            .trimmingCharacters(in: .whitespacesAndNewlines) != "000")
        // A press of the first button on the fourth row (🍣, id 3), then its release (once drawn).
        #expect(pane.contains("🍣 with friends"), "\(pane.screen())")
        let row = try #require(pane.screen().firstIndex { $0.contains("🍣 with friends") })
        try pane.tmux([
            "send-keys", "-t", "ui", "-H", "1b", "5b", "4d", "20", String(0x21 + 10, radix: 16),
            String(0x21 + row, radix: 16)
        ])
        try pane.tmux([
            "send-keys", "-t", "ui", "-H", "1b", "5b", "4d", "23", String(0x21 + 10, radix: 16),
            String(0x21 + row, radix: 16)
        ])
        #expect(pane.contains("Title:    🍣 with friends"), "\(pane.screen())")
        try pane.press("Space")
        #expect(NotifyTestSupport.eventually(timeout: 5) { (try? Self.todo(daemon, 3))??["done"] == .bool(true) })
        // The wheel down moves the selection three rows (to クリーニング, id 5), up back.
        try pane.press("g")
        try pane.tmux(["send-keys", "-t", "ui", "-H", "1b", "5b", "4d", "61", "2a", "25"])
        #expect(pane.contains("Title:    クリーニングを出す"), "\(pane.screen())")
        try pane.tmux(["send-keys", "-t", "ui", "-H", "1b", "5b", "4d", "60", "2a", "25"])
        #expect(pane.contains("Title:    牛乳を買う"), "\(pane.screen())")
        // ? lists the mouse too.
        try pane.press("?")
        #expect(pane.contains("a click selects"), "\(pane.screen())")
        try pane.press("x", "q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// `?` lists every key as bound now: a key from the config file beside the defaults, and the
    /// keys that are no action (esc, the pane's and the prompts').
    @Test func theHelpListsEveryKey() throws {
        let daemon = try Self.seeded()
        try FileManager.default.createDirectory(
            atPath: daemon.directory.file("config") + "/todod", withIntermediateDirectories: true)
        try "ui.key.done = x\nui.key.fold = o\n".write(
            toFile: daemon.directory.file("config") + "/todod/config", atomically: true, encoding: .utf8)
        let pane = try Pane(daemon: daemon, width: 100, height: 30)
        try pane.press("?")
        #expect(pane.contains("Keys (j k scroll"))
        let help = pane.screen().joined(separator: "\n")
        for expected in [
            "space x   done / not done", "f o       fold / unfold its subtasks", "esc       clear the marks",
            "Category pane:", "Prompts:",
            "E         the whole todo in $EDITOR", "q         quit"
        ] {
            #expect(help.contains(expected), "\(expected): \(help)")
        }
        try pane.press("Escape", "q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }

    /// Resize, suspend and resume, the daemon going away and coming back, and SIGTERM.
    @Test func theTerminalAndTheDaemonComeAndGo() throws {
        let dir = TemporaryDirectory("uid")
        var daemon: DaemonProcess? = try DaemonProcess(directory: dir)
        let socket = daemon!.socket
        let database = daemon!.database
        #expect(try daemon!.todoctl(["add", "長いタイトルの日本語のタスクで幅を確かめる 🍣🍣🍣"]).status == 0)
        let pane = try Pane(daemon: daemon!)
        try pane.tmux(["resize-window", "-t", "ui", "-x", "60", "-y", "20"])
        #expect(
            pane.waitFor { $0.first?.hasSuffix("? help") == true && TerminalWidth.of($0.first ?? "") == 59 },
            "\(pane.screen())")
        for line in pane.screen() { #expect(TerminalWidth.of(line) <= 60, "\(line)") }
        // Ctrl-Z gives the terminal back to the shell; fg brings the list back.
        try pane.press("C-z")
        #expect(pane.contains("Stopped"), "\(pane.screen())")
        try pane.type("fg")
        try pane.press("Enter")
        #expect(
            pane.waitFor { $0.first?.hasSuffix("? help") == true && $0.contains { $0.contains("長いタイトル") } },
            "\(pane.screen())")
        let pid = try #require(pane.programPID)
        daemon?.stop()
        daemon = nil
        #expect(pane.contains("todod is not running") || pane.contains("todod went away"), "\(pane.screen())")
        daemon = try DaemonProcess(directory: dir, socket: socket, database: database)
        #expect(pane.contains("todod is back"), "\(pane.screen())")
        #expect(try daemon!.todoctl(["add", "戻ってから"]).status == 0)
        #expect(pane.contains("戻ってから"))
        kill(pid, SIGTERM)
        let after = try pane.exitLine()
        #expect(after.contains("EXITED 143"), "\(after)")
        // The terminal is as the shell left it: canonical input and echo back on.
        let settings = after.joined(separator: " ")
        #expect(
            settings.contains(" icanon") && settings.contains(" echo ") && !settings.contains("-icanon"), "\(settings)")
    }
}

/// Display width as a terminal shows it (wide East Asian and emoji two columns).
enum TerminalWidth {
    static func of(_ s: String) -> Int {
        s.unicodeScalars.reduce(0) { sum, scalar in
            let v = scalar.value
            if v < 0x20 || (0x300...0x36F).contains(v) || v == 0x200D || (0xFE00...0xFE0F).contains(v) { return sum }
            let wide =
                (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
            return sum + (wide ? 2 : 1)
        }
    }
}
