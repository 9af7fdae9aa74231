import CCurses
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the editor will find in the terminal, read without starting curses (`bananas doctor`).
public enum TerminalColors {
    /// The colour count of TERM's terminfo entry, as curses' `COLORS` will be when the editor
    /// starts; nil when terminfo has no entry for TERM.
    public static func terminfoCount() -> Int? {
        let count = bananas_terminfo_colors(STDOUT_FILENO)
        return count < 0 ? nil : Int(count)
    }
}
