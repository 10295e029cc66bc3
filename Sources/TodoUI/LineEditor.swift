import TodoCLI
import TodoTerminal

/// The text of a prompt being typed: the cursor moves by grapheme cluster (a kanji, an emoji with
/// its modifiers, a letter with its combining marks are one step), and a combining mark typed
/// after a letter joins it.
struct LineEditor: Equatable {
    private(set) var text: String
    /// The cursor, in characters (grapheme clusters) from the start.
    private(set) var cursor: Int

    init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// Applies an editing key; false when the key is not one (Enter, Escape and the like).
    mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            let before = text.count
            text.insert(c, at: index(cursor))
            cursor += text.count - before // 0 when a combining mark joined the cluster before
        case .backspace:
            guard cursor > 0 else { return true }
            text.remove(at: index(cursor - 1))
            cursor -= 1
        case .delete, .control("d"):
            guard cursor < text.count else { return true }
            text.remove(at: index(cursor))
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"):
            text.removeSubrange(text.startIndex..<index(cursor))
            cursor = 0
        case .control("k"): text.removeSubrange(index(cursor)...)
        case .control("w"):
            var start = cursor
            let characters = Array(text)
            while start > 0 && characters[start - 1] == " " { start -= 1 }
            while start > 0 && characters[start - 1] != " " { start -= 1 }
            text.removeSubrange(index(start)..<index(cursor))
            cursor = start
        default: return false
        }
        return true
    }

    /// The display column of the cursor in `text`.
    var cursorColumn: Int { TerminalText.width(String(text.prefix(cursor))) }

    private func index(_ offset: Int) -> String.Index { text.index(text.startIndex, offsetBy: min(offset, text.count)) }
}
