import ArgumentParser
import BananasCore

/// "unknown command chek; did you mean check?": a first word that names no command is
/// refused with the closest command by edit distance (the same measure as an item's close
/// matches, `Addressing.editDistance`), before the parser would take it for the editor's.
enum DidYouMean {
    /// Every command name, `help` included.
    static var commands: [String] {
        BananasCommand.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The message for a first word that is no command, or nil when it is one (or an option).
    static func unknownCommand(_ word: String) -> String? {
        guard !word.hasPrefix("-"), !commands.contains(word) else { return nil }
        if let close = closest(to: word, among: commands) {
            return "unknown command \(Output.safe(word)); did you mean \(close)?"
        }
        return "unknown command \(Output.safe(word)); the commands are listed by bananas --help"
    }

    /// The candidate nearest to `word`: within 1 edit of a name of up to 3 letters, 2 of one up
    /// to 8, else 3, or one that starts with it; nil when none is that close.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let scored = candidates.compactMap { candidate -> (Int, String)? in
            if word.count >= 2, candidate.hasPrefix(word.lowercased()) { return (0, candidate) }
            let distance = Addressing.editDistance(typed, Array(candidate), limit: 3)
            return distance <= (candidate.count <= 3 ? 1 : candidate.count <= 8 ? 2 : 3) ? (distance, candidate) : nil
        }
        // Of names as near, one with the same first letter (`lsit`: list, not edit).
        let first = word.lowercased().first
        return scored.min { a, b in
            (a.0, a.1.first == first ? 0 : 1, a.1) < (b.0, b.1.first == first ? 0 : 1, b.1)
        }?.1
    }
}
