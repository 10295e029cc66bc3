import TodoTerminal

/// What a key does in the list. Each action that changes the store is one request to todod.
enum Action: String, CaseIterable {
    case down, up
    case pageDown = "page-down"
    case pageUp = "page-up"
    case first, last
    case toggleDone = "done"
    case delete, add, edit, category, snooze
    case snoozeUntil = "snooze-until"
    case moveDown = "move-down"
    case moveUp = "move-up"
    case indent, outdent, undo, redo, mark, filter, command, sort, reverse
    case showDone = "show-done"
    case details, help, quit, refresh, categories, sections, editor, fold

    /// A few words for the help screen.
    var help: String {
        switch self {
        case .down: return "next todo"
        case .up: return "previous todo"
        case .pageDown: return "next page"
        case .pageUp: return "previous page"
        case .first: return "first todo"
        case .last: return "last todo"
        case .toggleDone: return "done / not done"
        case .delete: return "delete (u brings it back)"
        case .add: return "add below the selection"
        case .edit: return "edit title or --options"
        case .category: return "move to a category"
        case .snooze: return "snooze its reminder"
        case .snoozeUntil: return "snooze until a time you type"
        case .moveDown: return "move down (manual order)"
        case .moveUp: return "move up (manual order)"
        case .indent: return "subtask of the todo above"
        case .outdent: return "top-level again"
        case .undo: return "undo"
        case .redo: return "redo"
        case .mark: return "mark for space / d together"
        case .filter: return "filter as you type"
        case .command: return "any todoctl command"
        case .sort: return "next sort order"
        case .reverse: return "reverse the sort"
        case .showDone: return "show done todos too"
        case .details: return "details pane on / off"
        case .help: return "this help"
        case .quit: return "quit"
        case .refresh: return "read again and redraw"
        case .categories: return "categories: show one"
        case .sections: return "sections by category"
        case .editor: return "the whole todo in $EDITOR"
        case .fold: return "fold / unfold its subtasks"
        }
    }
}

/// Which key does what: the defaults, and `ui.key.ACTION = KEY` lines of the config file
/// (`KEY` a character, `C-x` for Ctrl-x, or a name: `space`, `enter`, `tab`, `up`, `down`,
/// `pgup`, `pgdn`, `home`, `end`, `backspace`, `delete`).
struct KeyBindings {
    private(set) var actions: [Key: Action] = [:]

    static let defaults: [(Key, Action)] = [
        (.character("j"), .down), (.down, .down), (.character("k"), .up), (.up, .up),
        (.pageDown, .pageDown), (.control("f"), .pageDown), (.pageUp, .pageUp), (.control("b"), .pageUp),
        (.character("g"), .first), (.home, .first), (.character("G"), .last), (.end, .last),
        (.character(" "), .toggleDone), (.character("d"), .delete), (.character("a"), .add),
        (.character("e"), .edit), (.character("m"), .category), (.character("z"), .snooze),
        (.character("Z"), .snoozeUntil),
        (.character("J"), .moveDown), (.character("K"), .moveUp), (.character(">"), .indent),
        (.character("<"), .outdent),
        (.character("u"), .undo), (.control("r"), .redo), (.character("v"), .mark), (.character("/"), .filter),
        (.character(":"), .command), (.character("s"), .sort), (.character("S"), .reverse),
        (.character("A"), .showDone), (.tab, .details), (.character("?"), .help), (.character("q"), .quit),
        (.control("l"), .refresh), (.character("c"), .categories), (.character("C"), .sections),
        (.character("E"), .editor),
        (.character("f"), .fold)
    ]

    init() {
        for (key, action) in Self.defaults { actions[key] = action }
    }

    /// The defaults with the config file's `ui.key.ACTION = KEY` lines on top; `problems` gets
    /// one line per line that could not be used.
    init(config: [String: String], problems: inout [String]) {
        self.init()
        for (name, value) in config.sorted(by: { $0.key < $1.key }) {
            guard let action = Action(rawValue: name) else {
                problems.append("config: ui.key.\(name): no such action (? in todoctl ui lists them)")
                continue
            }
            guard let key = Self.key(named: value) else {
                problems.append("config: ui.key.\(name): '\(value)' is no key")
                continue
            }
            bind(key, to: action)
        }
    }

    /// Binds `key` to `action` alone: the action's other keys stay, the key's old action loses it.
    mutating func bind(_ key: Key, to action: Action) {
        actions[key] = action
    }

    func action(for key: Key) -> Action? { actions[key] }

    /// The keys of `action`, as the help shows them.
    func keys(of action: Action) -> [String] {
        let defaultKeys = Self.defaults.map(\.0)
        let added = actions.filter { pair in pair.value == action && !defaultKeys.contains(pair.key) }.map {
            Self.name($0.key)
        }.sorted()
        return defaultKeys.filter { actions[$0] == action }.map(Self.name) + added
    }

    static func key(named text: String) -> Key? {
        switch text.lowercased() {
        case "space": return .character(" ")
        case "enter", "return": return .enter
        case "tab": return .tab
        case "up": return .up
        case "down": return .down
        case "left": return .left
        case "right": return .right
        case "pgup", "pageup": return .pageUp
        case "pgdn", "pagedown": return .pageDown
        case "home": return .home
        case "end": return .end
        case "backspace": return .backspace
        case "delete", "del": return .delete
        default: break
        }
        if text.count == 3, text.lowercased().hasPrefix("c-"), let c = text.last, c.isLetter, c.isASCII {
            return .control(Character(c.lowercased()))
        }
        if text.count == 1, let c = text.first { return .character(c) }
        return nil
    }

    static func name(_ key: Key) -> String {
        switch key {
        case .character(" "): return "space"
        case .character(let c): return String(c)
        case .control(let c): return "C-" + String(c)
        case .enter: return "enter"
        case .tab: return "tab"
        case .escape: return "esc"
        case .backspace: return "backspace"
        case .delete: return "delete"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .home: return "home"
        case .end: return "end"
        case .pageUp: return "pgup"
        case .pageDown: return "pgdn"
        case .resize: return "resize"
        case .click: return "click"
        case .wheelUp: return "wheel up"
        case .wheelDown: return "wheel down"
        }
    }
}
