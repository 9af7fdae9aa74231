import BananasCore

/// How `bananas mcp` reads the list file it was given, before `Locations` picks the file.
public enum LaunchSettings {
    /// A value a host left unexpanded is no path: an MCPB host passes the literal
    /// `${user_config.list_file}` when the user chose no file, and taken as a path it would
    /// create and serve a new, empty list of that name while the user's list sits unserved.
    /// Such a value (one whole `${…}` placeholder) counts as unset.
    public static func isUnexpandedPlaceholder(_ value: String) -> Bool {
        let trimmed = value.trimmingWhitespace()
        return trimmed.hasPrefix("${") && trimmed.hasSuffix("}") && trimmed.dropFirst(2).dropLast().allSatisfy { $0 != "}" && $0 != "{" }
    }

    /// `--file` and the environment with placeholders removed, and a line for the log per value
    /// dropped.
    public static func cleaned(explicit: String?, environment: [String: String]) -> (explicit: String?, environment: [String: String], dropped: [String]) {
        var explicit = explicit
        var environment = environment
        var dropped: [String] = []
        if let value = explicit, isUnexpandedPlaceholder(value) {
            explicit = nil
            dropped.append("--file \(TextRules.escaped(value)) is a placeholder the host left unexpanded: taken as unset")
        }
        if let value = environment["BANANAS_FILE"], isUnexpandedPlaceholder(value) {
            environment["BANANAS_FILE"] = nil
            dropped.append("BANANAS_FILE=\(TextRules.escaped(value)) is a placeholder the host left unexpanded: taken as unset")
        }
        return (explicit, environment, dropped)
    }
}
