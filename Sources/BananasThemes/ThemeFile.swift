import BananasEditor

/// A theme file as written: a name, what it inherits, a palette, and styles for some roles
/// (the rest come from the theme it inherits). See docs/themes.md.
public struct ThemeFile: Sendable {
    /// A style as a file gives it: only the fields it names.
    public struct PartialStyle: Sendable {
        public var foreground: TermColor??
        public var background: TermColor??
        public var bold: Bool?
        public var dim: Bool?
        public var italic: Bool?
        public var underline: Bool?
        public var reverse: Bool?

        /// `self` over `base`: what this names wins.
        func applied(to base: Style) -> Style {
            var style = base
            if let foreground { style.foreground = foreground }
            if let background { style.background = background }
            if let bold { style.bold = bold }
            if let dim { style.dim = dim }
            if let italic { style.italic = italic }
            if let underline { style.underline = underline }
            if let reverse { style.reverse = reverse }
            return style
        }
    }

    public var name: String
    public var description: String?
    public var inherits: String?
    /// Role key (`section_header`, …, `cursor_row`) to style.
    public var roles: [String: PartialStyle]
    /// Colour names: the inherited theme's, then this file's own.
    public var palette: [String: TermColor] = [:]
    public var path: String

    /// The keys a theme may style: every role, plus `cursor_row`.
    public static let roleKeys: [String: Role?] = {
        var keys: [String: Role?] = ["cursor_row": nil]
        for role in Role.allCases { keys[snakeCase(role.rawValue)] = role }
        return keys
    }()

    static func snakeCase(_ camel: String) -> String {
        var result = ""
        for c in camel {
            if c.isUppercase { result += "_" + c.lowercased() } else { result.append(c) }
        }
        return result
    }
}

/// A problem in a theme file, with where it is.
public struct ThemeError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var key: String?
    public var problem: String

    public var description: String {
        var text = path
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + problem
    }
}

extension ThemeFile {
    static let ansiNames: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright_black": 8, "gray": 8, "grey": 8, "bright_red": 9, "bright_green": 10, "bright_yellow": 11,
        "bright_blue": 12, "bright_magenta": 13, "bright_cyan": 14, "bright_white": 15,
    ]
    static let attributes = ["bold", "dim", "italic", "underline", "reverse"]

    /// Parses a theme file. Every problem names the file, the line and the key.
    /// The theme a file inherits from, read without checking the rest (to load the parent,
    /// whose palette the file may use, first).
    public static func inheritedName(_ text: String) -> String? {
        guard let node = try? YAMLNode.compose(text), let mapping = node.mapping else { return nil }
        return mapping.first { $0.key.string == "inherits" }?.value.string
    }

    public static func parse(_ text: String, path: String, inheritedPalette: [String: TermColor] = [:]) throws(ThemeError) -> ThemeFile {
        let composed: YAMLNode?
        do throws(YAMLError) {
            composed = try YAMLNode.compose(text)
        } catch {
            var problem = "not valid YAML: \(error.problem)"
            if text.contains(": #") || text.contains(":#") { problem += " (write colours as \"#rrggbb\" in quotes: an unquoted # starts a comment)" }
            throw ThemeError(path: path, line: error.line, key: nil, problem: problem)
        }
        guard let root = composed else {
            throw ThemeError(path: path, line: nil, key: nil, problem: "the file is empty")
        }
        guard let mapping = root.mapping else {
            throw ThemeError(path: path, line: root.line, key: nil, problem: "a theme is a mapping of keys (name, inherits, palette, roles)")
        }
        var file = ThemeFile(name: "", description: nil, inherits: nil, roles: [:], path: path)
        var palette = inheritedPalette
        var rolesNode: YAMLNode?
        func fail(_ node: YAMLNode?, _ key: String, _ problem: String) -> ThemeError {
            ThemeError(path: path, line: node?.line, key: key, problem: problem)
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            switch key {
            case "name":
                guard let name = value.string, !name.isEmpty else { throw fail(keyNode, key, "must be a non-empty text") }
                file.name = name
            case "description":
                file.description = value.string
            case "inherits":
                guard let parent = value.string, !parent.isEmpty else { throw fail(keyNode, key, "must name a theme") }
                file.inherits = parent
            case "palette":
                guard let entries = value.mapping else { throw fail(keyNode, key, "must map names to colours") }
                for (nameNode, colorNode) in entries {
                    let name = (nameNode.string ?? "").lowercased()  // looked up in any case
                    palette[name] = try color(colorNode, palette: palette, key: "palette.\(name)", path: path)
                }
            case "roles":
                rolesNode = value
            default:
                throw fail(keyNode, key, "unknown key; a theme has name, description, inherits, palette and roles")
            }
        }
        if let rolesNode {
            guard let roles = rolesNode.mapping else { throw fail(rolesNode, "roles", "must map role names to styles") }
            for (roleNode, styleNode) in roles {
                let role = roleNode.string ?? ""
                guard roleKeys[role] != nil else {
                    throw fail(roleNode, "roles.\(role)", "unknown role; roles are " + roleKeys.keys.sorted().joined(separator: ", "))
                }
                file.roles[role] = try style(styleNode, palette: palette, key: "roles.\(role)", path: path)
            }
        }
        if file.name.isEmpty { throw ThemeError(path: path, line: nil, key: "name", problem: "missing") }
        file.palette = palette
        return file
    }

    static func style(_ node: YAMLNode, palette: [String: TermColor], key: String, path: String) throws(ThemeError) -> PartialStyle {
        guard let mapping = node.mapping else {
            throw ThemeError(path: path, line: node.line, key: key, problem: "must be a mapping such as { fg: yellow, bold: true }")
        }
        var style = PartialStyle()
        for (fieldNode, value) in mapping {
            let field = fieldNode.string ?? ""
            let fullKey = "\(key).\(field)"
            switch field {
            case "fg", "bg":
                let resolved: TermColor? = value.string?.lowercased() == "default" ? nil : try color(value, palette: palette, key: fullKey, path: path)
                if field == "fg" { style.foreground = .some(resolved) } else { style.background = .some(resolved) }
            case _ where attributes.contains(field):
                guard let flag = value.bool else {
                    throw ThemeError(path: path, line: fieldNode.line, key: fullKey, problem: "must be true or false")
                }
                switch field {
                case "bold": style.bold = flag
                case "dim": style.dim = flag
                case "italic": style.italic = flag
                case "underline": style.underline = flag
                default: style.reverse = flag
                }
            default:
                throw ThemeError(path: path, line: fieldNode.line, key: fullKey,
                                 problem: "unknown; a style has fg, bg, " + attributes.joined(separator: ", "))
            }
        }
        return style
    }

    /// `#rrggbb`, a 256-colour index, an ANSI name (`yellow`, `bright_blue`), or a palette name.
    static func color(_ node: YAMLNode, palette: [String: TermColor], key: String, path: String) throws(ThemeError) -> TermColor {
        let problem = "not a colour: use #rrggbb, 0–255, a name such as yellow or bright_blue, or a palette entry"
        if node.isPlainScalar, let text = node.string, let index = Int(text) {
            guard (0...255).contains(index) else { throw ThemeError(path: path, line: node.line, key: key, problem: problem) }
            return index < 16 ? .ansi(index) : .indexed(index)
        }
        guard let text = node.string?.lowercased(), !text.isEmpty, !node.isNull else {
            // `fg: #ff0000` unquoted is a YAML comment: the value is empty.
            throw ThemeError(path: path, line: node.line, key: key, problem: "no colour given (write \"#rrggbb\" in quotes: an unquoted # starts a comment)")
        }
        if let color = palette[text] { return color }
        if let ansi = ansiNames[text] { return .ansi(ansi) }
        if text.hasPrefix("#"), text.count == 7, let value = UInt32(text.dropFirst(), radix: 16) {
            return .rgb(UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        }
        throw ThemeError(path: path, line: node.line, key: key, problem: "\"\(text)\" is " + problem)
    }
}
