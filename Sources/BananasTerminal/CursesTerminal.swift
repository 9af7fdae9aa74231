import BananasEditor
import CCurses
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ncurses backend: paints a `Grid` and reads keys. Every call must come from the main
/// queue (curses is not thread-safe; the main queue runs one block at a time, on whichever
/// thread `dispatchMain` lends it); `EditorRunner` makes sure of that.
@MainActor
public final class CursesTerminal {
    /// The theme as chosen; `theme` is it brought down to what the terminal shows.
    public let chosenTheme: Theme
    public private(set) var theme: Theme
    public private(set) var colorLevel: ColorLevel = .none
    /// A direct-colour terminal (terminfo `*-direct`): colours are 24-bit RGB numbers.
    private var directColor = false
    private var pairs: [PairKey: Int32] = [:]
    private var nextPair: Int32 = 1
    private var colorCount = 0
    private var started = false
    private var painted: Grid?

    private struct PairKey: Hashable {
        var foreground: Int32
        var background: Int32
    }

    public init(theme: Theme) {
        chosenTheme = theme
        self.theme = theme
    }

    public func start() throws {
        guard bananas_curses_start() == 0 else { throw TerminalError.cannotStart }
        bananas_curses_install_crash_handlers()
        started = true
        colorCount = bananas_has_colors() != 0 ? Int(bananas_color_count()) : 0
        directColor = colorCount >= 0x1000000
        var environment: [String: String] = [:]
        for key in ["NO_COLOR", "COLORTERM"] { if let value = getenv(key) { environment[key] = String(cString: value) } }
        colorLevel = ColorLevel.detect(environment: environment, terminalColors: colorCount)
        theme = chosenTheme.degraded(to: colorLevel)
    }

    public func stop() {
        guard started else { return }
        started = false
        bananas_curses_stop()
    }

    public var size: (width: Int, height: Int) {
        (Int(bananas_cols()), Int(bananas_lines()))
    }

    public enum SizeCheck { case same, changed, gone }

    /// Re-reads the terminal size.
    public func checkSize() -> SizeCheck {
        switch bananas_check_resize() {
        case 1:
            painted = nil
            return .changed
        case -1:
            return .gone
        default:
            return .same
        }
    }

    /// Forgets what is on screen, so the next draw repaints everything.
    public func repaintAll() {
        painted = nil
    }

    /// Every key waiting on the terminal, without blocking. Esc arriving together with a
    /// character is Alt plus that character (terminals send Alt that way): Alt-Backspace
    /// erases a word, other Alt keys do nothing (they must not act as Esc, then the key).
    public func readKeys() -> [KeyInput] {
        var keys = Self.decodingMouse(readRawKeys())
        var index = 0
        while index + 1 < keys.count {
            if keys[index] == .key(.escape) {
                switch keys[index + 1] {
                case .key(.backspace):
                    keys.replaceSubrange(index...index + 1, with: [.key(.ctrl("w"))])
                case .key(.char), .key(.ctrl):
                    keys.removeSubrange(index...index + 1)
                    continue
                default: break
                }
            }
            index += 1
        }
        return keys
    }

    private func readRawKeys() -> [KeyInput] {
        var keys: [KeyInput] = []
        var code: UInt32 = 0
        while true {
            let kind = bananas_read_key(&code)
            if kind == 0 { break }
            if kind == 2 {
                if let key = Self.functionKey(Int32(code)) { keys.append(key) }
            } else if let key = Self.characterKey(code) {
                keys.append(key)
            }
        }
        return keys
    }

    public enum KeyInput: Equatable {
        case key(Key)
        case mouse(MouseEvent)
        case resize
    }

    /// SGR mouse reports (`ESC [ < b ; x ; y M`) among the keys, as mouse events; a report the
    /// editor does not use (a release, a drag) is dropped, never typed as keys.
    static func decodingMouse(_ keys: [KeyInput]) -> [KeyInput] {
        var result: [KeyInput] = []
        var index = 0
        while index < keys.count {
            if index + 2 < keys.count, keys[index] == .key(.escape), keys[index + 1] == .key(.char("[")),
               keys[index + 2] == .key(.char("<")) {
                var parameters = ""
                var end = index + 3
                while end < keys.count, case .key(.char(let c)) = keys[end], c.isASCII, c.isNumber || c == ";" {
                    parameters.append(c)
                    end += 1
                }
                if end < keys.count, case .key(.char(let final)) = keys[end], final == "M" || final == "m" {
                    if let event = MouseEvent.sgr(parameters: parameters, final: final) { result.append(.mouse(event)) }
                    index = end + 1
                    continue
                }
            }
            result.append(keys[index])
            index += 1
        }
        return result
    }

    /// Asks the terminal for mouse reports (presses, releases and the wheel, in SGR form);
    /// `stop` turns them off.
    public func reportMouse() {
        bananas_mouse(1)
    }

    static func characterKey(_ code: UInt32) -> KeyInput? {
        switch code {
        case 13, 10: return .key(.enter)
        case 27: return .key(.escape)
        case 9: return .key(.tab)
        case 127, 8: return .key(.backspace)
        case 1...26: return .key(.ctrl(Character(Unicode.Scalar(code + 96)!)))
        case 28: return .key(.ctrl("\\"))
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .key(.char(Character(scalar)))
        }
    }

    static func functionKey(_ code: Int32) -> KeyInput? {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case KEY_ENTER: return .key(.enter)
        case KEY_BTAB: return .key(.backTab)
        case KEY_RESIZE: return .resize
        default:
            for n in 1...12 where code == bananas_key_f(Int32(n)) { return .key(.function(n)) }
            return nil
        }
    }

    /// Paints the grid: only the cells that changed since the last frame (curses then sends
    /// only what changed on screen).
    public func draw(_ grid: Grid) {
        let previous = painted.flatMap { $0.width == grid.width && $0.height == grid.height ? $0 : nil }
        if previous == nil { bananas_clear() }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                if let previous, previous[x, y] == cell { continue }
                if cell.isContinuation {
                    // Its wide character is painted from the left half.
                    if x > 0, let previous, previous[x - 1, y] == grid[x - 1, y] { put(grid, x: x - 1, y: y) }
                    continue
                }
                put(grid, x: x, y: y)
            }
        }
        if let cursor = grid.cursor {
            bananas_move_cursor(Int32(cursor.y), Int32(cursor.x), 1)
        } else {
            bananas_move_cursor(0, 0, 0)
        }
        bananas_refresh()
        painted = grid
    }

    /// Paints the cell at (x, y) of `grid`, with the column after it when that is its second half.
    private func put(_ grid: Grid, x: Int, y: Int) {
        let cell = grid[x, y]
        let columns = x + 1 < grid.width && grid[x + 1, y].isContinuation ? 2 : 1
        let style = theme.style(for: cell.role, highlighted: cell.highlighted)
        var attrs: UInt32 = 0
        if style.bold { attrs |= bananas_attr_bold() }
        if style.dim { attrs |= bananas_attr_dim() }
        if style.italic { attrs |= bananas_attr_italic() }
        if style.underline { attrs |= bananas_attr_underline() }
        if style.reverse { attrs |= bananas_attr_reverse() }
        let pair = colorPair(style)
        let form = Grid.terminalForm(cell.text, columns: columns, maxScalars: Int(bananas_cell_max()),
                                     scalarWidth: { Int(bananas_wcwidth($0.value)) })
        for (offset, text) in form.enumerated() where !text.isEmpty {
            let scalars = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            scalars.withUnsafeBufferPointer { buffer in
                bananas_put_cluster(Int32(y), Int32(x + offset), buffer.baseAddress, Int32(buffer.count), attrs, pair)
            }
        }
    }

    private func colorPair(_ style: Style) -> Int32 {
        guard colorCount > 0 else { return 0 }
        let key = PairKey(foreground: colorIndex(style.foreground), background: colorIndex(style.background))
        if key.foreground == -1 && key.background == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        guard nextPair < bananas_pair_count() else { return 0 }
        let pair = nextPair
        nextPair += 1
        _ = bananas_init_pair(pair, key.foreground, key.background)
        pairs[key] = pair
        return pair
    }

    /// The terminal's colour number for a theme colour (already degraded to `colorLevel`).
    private func colorIndex(_ color: TermColor?) -> Int32 {
        guard let color else { return -1 }
        switch color {
        case .ansi(let n):
            if directColor && n >= 8 {
                let (r, g, b) = ColorDepth.rgb(indexed: n)
                return Int32(r << 16 | g << 8 | b)
            }
            return Int32(colorCount >= 16 ? n : n % 8)
        case .indexed(let n):
            if directColor {
                let (r, g, b) = ColorDepth.rgb(indexed: n)
                return Int32(r << 16 | g << 8 | b)
            }
            return Int32(colorCount >= 256 ? n : ColorDepth.nearestANSI(indexed: n) % (colorCount >= 16 ? 16 : 8))
        case .rgb(let r, let g, let b):
            // 24-bit colour needs a direct-colour terminfo (TERM=xterm-direct, tmux-direct);
            // elsewhere the nearest of the 256.
            if directColor { return Int32(Int(r) << 16 | Int(g) << 8 | Int(b)) }
            return colorIndex(.indexed(ColorDepth.nearestIndexed(r, g, b)))
        }
    }
}

public enum TerminalError: Error, CustomStringConvertible {
    case cannotStart
    case notATerminal

    public var description: String {
        switch self {
        case .cannotStart: "could not start the terminal (is TERM set?)"
        case .notATerminal: "the editor needs a terminal; use bananas list for output to a pipe"
        }
    }
}
