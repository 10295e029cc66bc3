import CNcursesw
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A key read from the terminal.
package enum Key: Hashable, Sendable {
    /// Text typed: any character, Japanese from an input method included.
    case character(Character)
    /// Ctrl and a letter, as the letter (`control("r")` is Ctrl-R).
    case control(Character)
    case enter, tab, escape, backspace, delete
    case up, down, left, right, home, end, pageUp, pageDown
    /// The terminal changed size (SIGWINCH): `Terminal.rows` and `columns` are the new size.
    case resize
    /// The mouse, when `Terminal.start` was asked for it: a click at a cell, or the wheel.
    case click(row: Int, column: Int)
    case wheelUp, wheelDown
}

/// How a piece of text is drawn.
package struct Style: Equatable, Sendable {
    package enum Colour: Int16, Sendable, CaseIterable {
        case red = 1
        case green, yellow, blue, magenta, cyan
    }
    package var bold = false
    package var dim = false
    package var reverse = false
    package var underline = false
    package var colour: Colour?

    package init(
        bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false, colour: Colour? = nil
    ) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.colour = colour
    }

    package static let plain = Style()
}

/// The terminal as a screen of cells, through ncursesw: the only code of the package that calls
/// it. `start` enters the alternate screen with keys unbuffered and not echoed; `stop` (also run
/// by ncurses itself on SIGINT and SIGTERM, and around SIGTSTP/SIGCONT) puts the terminal back as
/// it was. Not thread-safe: one thread draws and reads keys.
package final class Terminal {
    package private(set) var rows: Int
    package private(set) var columns: Int
    private let colour: Bool
    private var stopped = false

    /// The descriptor keys come from, for `poll`.
    package let inputDescriptor: Int32 = 0
    /// Readable when the terminal changed size: SIGWINCH is read from a signalfd, so a resize
    /// wakes the caller's `poll` (ncurses's own handler would only set a flag); `readKey` then
    /// returns `.resize`.
    package var resizeDescriptor: Int32 { resizeSignal?.descriptor ?? -1 }
    private var resizeSignal: SignalDescriptor?
    /// Readable when SIGTERM, SIGINT (Ctrl-C) or SIGHUP came: `stopSignal` says which. The caller
    /// ends its loop, and `stop` gives the terminal back, instead of ncurses exiting from inside
    /// a signal handler.
    package var stopDescriptor: Int32 { stopSignals?.descriptor ?? -1 }
    private var stopSignals: SignalDescriptor?
    package private(set) var stopSignal: Int32?

    private init(colour: Bool) {
        self.colour = colour
        rows = Int(todod_lines())
        columns = Int(todod_cols())
    }

    /// Takes over the terminal. `colour` false draws with attributes only (`NO_COLOR`). `mouse`
    /// reports clicks and the wheel as keys; off, the terminal keeps its own selection and copying.
    package static func start(colour: Bool, mouse: Bool = false) throws(TerminalError) -> Terminal {
        setlocale(LC_ALL, "")
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw TerminalError(message: "not a terminal (standard input and output must be one)")
        }
        guard let term = getenv("TERM"), String(cString: term) != "dumb", !String(cString: term).isEmpty else {
            throw TerminalError(message: "TERM names no terminal that can be drawn on")
        }
        // newterm, unlike initscr, reports an unknown TERM instead of exiting the process.
        guard todod_newterm() != nil else {
            throw TerminalError(message: "this terminal (TERM=\(String(cString: term))) is not known to ncurses")
        }
        let screen = todod_stdscr()
        cbreak() // Ctrl-C and Ctrl-Z stay signals; ncurses restores the terminal for them
        noecho()
        nonl()
        keypad(screen, true)
        nodelay(screen, true)
        set_escdelay(25)
        curs_set(0)
        if mouse { todod_mouse_on() }
        let terminal = Terminal(colour: colour && has_colors())
        terminal.resizeSignal = try? SignalDescriptor(signals: [SIGWINCH])
        terminal.stopSignals = try? SignalDescriptor(signals: [SIGTERM, SIGINT, SIGHUP])
        if terminal.colour {
            start_color()
            use_default_colors()
            let codes: [Style.Colour: Int16] = [
                .red: Int16(COLOR_RED), .green: Int16(COLOR_GREEN), .yellow: Int16(COLOR_YELLOW),
                .blue: Int16(COLOR_BLUE), .magenta: Int16(COLOR_MAGENTA), .cyan: Int16(COLOR_CYAN)
            ]
            for (c, code) in codes { init_pair(c.rawValue, code, -1) }
        }
        return terminal
    }

    /// Gives the terminal back (idempotent).
    package func stop() {
        guard !stopped else { return }
        stopped = true
        curs_set(1)
        endwin()
        resizeSignal = nil
        stopSignals = nil
    }

    deinit { stop() }

    /// Clears the whole screen (drawn at the next `refresh`).
    package func erase() {
        werase(todod_stdscr())
    }

    /// Draws `text` (one line, already fitted to the width) at `row`, `column`.
    package func put(_ text: String, row: Int, column: Int, style: Style = .plain) {
        guard row >= 0, row < rows, column >= 0, column < columns, !text.isEmpty else { return }
        let screen = todod_stdscr()
        let attributes = attributes(of: style)
        if attributes != 0 { wattron(screen, attributes) }
        var wide = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        _ = mvwaddnwstr(screen, Int32(row), Int32(column), wide, Int32(wide.count - 1))
        if attributes != 0 { wattroff(screen, attributes) }
    }

    /// Fills the rest of `row` from `column` with spaces in `style` (a bar across the screen).
    package func fill(row: Int, from column: Int, style: Style) {
        guard column < columns else { return }
        put(String(repeating: " ", count: columns - column), row: row, column: column, style: style)
    }

    /// Shows the text cursor at `row`, `column` (a prompt), or hides it (nil).
    package func cursor(at position: (row: Int, column: Int)?) {
        if let position {
            curs_set(1)
            wmove(todod_stdscr(), Int32(position.row), Int32(min(position.column, columns - 1)))
        } else {
            curs_set(0)
        }
    }

    /// Gives the terminal back for a while (a program of the user's runs on it: the editor);
    /// `resume` takes it again and redraws.
    package func suspend() {
        def_prog_mode()
        endwin()
    }

    package func resume() {
        reset_prog_mode()
        clearok(todod_stdscr(), true)
        wrefresh(todod_stdscr())
    }

    /// Puts what was drawn on the screen.
    package func refresh() {
        wrefresh(todod_stdscr())
    }

    /// The next key typed, nil when none waits.
    package func readKey() -> Key? {
        if stopSignal == nil, let signal = stopSignals?.take() { stopSignal = signal }
        var size = winsize()
        if resizeSignal?.take() != nil, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 {
            resizeterm(Int32(size.ws_row), Int32(size.ws_col)) // queues KEY_RESIZE
        }
        var value: wint_t = 0
        let result = wget_wch(todod_stdscr(), &value)
        if result == ERR { return nil }
        if result == KEY_CODE_YES {
            switch Int32(value) {
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_BACKSPACE: return .backspace
            case KEY_DC: return .delete
            case KEY_ENTER: return .enter
            case KEY_MOUSE:
                var row: Int32 = 0
                var column: Int32 = 0
                switch todod_mouse_read(&row, &column) {
                case 1: return .click(row: Int(row), column: Int(column))
                case 2: return .wheelUp
                case 3: return .wheelDown
                default: return readKey() // a mouse event we have no use for
                }
            case KEY_RESIZE:
                rows = Int(todod_lines())
                columns = Int(todod_cols())
                return .resize
            default: return readKey() // a key we have no use for
            }
        }
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(value) + 0x60)))
        default:
            guard let scalar = Unicode.Scalar(UInt32(value)) else { return readKey() }
            return .character(Character(scalar))
        }
    }

    private func attributes(of style: Style) -> Int32 {
        var a: Int32 = 0
        if style.bold { a |= todod_attr_bold() }
        if style.dim { a |= todod_attr_dim() }
        if style.reverse { a |= todod_attr_reverse() }
        if style.underline { a |= todod_attr_underline() }
        if colour, let c = style.colour { a |= todod_color_pair(Int32(c.rawValue)) }
        return a
    }
}

/// Why the terminal could not be taken over.
package struct TerminalError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
