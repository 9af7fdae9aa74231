import BananasCore
import Logging

/// How `bananas mcp` logs: swift-log to stderr (stdout carries the protocol only), at the
/// level `BANANAS_LOG_LEVEL` names (default `info`).
public enum MCPLogging {
    public static let environmentKey = "BANANAS_LOG_LEVEL"
    public static let defaultLevel: Logger.Level = .info

    /// The level `text` names (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
    /// `critical`, in any case; `warn` is `warning`), or the default and a complaint.
    public static func level(_ text: String?) -> (level: Logger.Level, problem: String?) {
        guard let text = text?.trimmingWhitespace().lowercased(), !text.isEmpty else { return (defaultLevel, nil) }
        if let level = Logger.Level(rawValue: text == "warn" ? "warning" : text) { return (level, nil) }
        let known = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        return (defaultLevel, "\(environmentKey)=\(TextRules.escaped(text)) is not a level (\(known)); logging at \(defaultLevel.rawValue)")
    }
}
