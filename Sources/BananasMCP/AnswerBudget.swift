import BananasCore
import MCP

/// What bounds every answer by construction, whatever the list holds: a page ends at
/// `characters`; candidates, close matches and suggestions are named `shown` at most, with
/// their total and how to narrow; a batch's entries get short, then are counted, past the
/// budget. Claude Code cuts a tool result above 25,000 tokens.
enum AnswerBudget {
    static let shown = 10
    /// About 20,000 tokens at 4 characters a token (text and structured content together).
    static let characters = 80_000
    /// Entries in full (their candidates, close matches and text lines) up to here.
    static let fullEntries = 40_000

    /// An upper bound of `value`'s size in JSON once escaped for the agent.
    static func size(_ value: Value) -> Int {
        switch value {
        case .string(let text): ListPage.jsonSize(TextRules.escaped(text))
        case .array(let values): values.reduce(2) { $0 + size($1) + 1 }
        case .object(let fields): fields.reduce(2) { $0 + ListPage.jsonSize($1.key) + size($1.value) + 2 }
        default: 24
        }
    }

    /// `text` escaped, cut to `limit` characters (an echo, not the thing itself).
    static func clipped(_ text: String, _ limit: Int = 40) -> String {
        let escaped = TextRules.escaped(text)
        return escaped.count <= limit ? escaped : String(escaped.prefix(limit)) + "…"
    }
}
