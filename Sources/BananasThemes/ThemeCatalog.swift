import BananasEditor
import BananasFile

/// Where themes come from: the shipped ones (Themes/, compiled in) and the user's own in
/// `$XDG_CONFIG_HOME/bananas/themes/NAME.yaml` (which may override a shipped one).
public struct ThemeCatalog: Sendable {
    public var userFolder: String
    public static let defaultName = "default"

    public init(environment: [String: String] = Environment.current()) {
        userFolder = Locations.configDirectory(environment) + "/themes"
    }

    public init(userFolder: String) {
        self.userFolder = userFolder
    }

    public enum Source: String, Sendable { case shipped, user }

    /// Every theme by name, with where it comes from (a user theme shadows a shipped one).
    public func names() -> [(name: String, source: Source)] {
        var result: [String: Source] = [:]
        for name in BuiltInThemes.files.keys { result[name] = .shipped }
        for entry in FileSystem.contentsOfDirectory(atPath: userFolder) ?? [] where entry.hasSuffix(".yaml") {
            result[String(entry.dropLast(5))] = .user
        }
        return result.keys.sorted { a, b in
            a == Self.defaultName ? true : b == Self.defaultName ? false : a < b
        }.map { ($0, result[$0]!) }
    }

    /// The text of the theme called `name` and where it is; a user file first unless
    /// `shippedOnly` (a user theme that inherits its own name extends the shipped one).
    func source(named name: String, shippedOnly: Bool = false) throws(ThemeError) -> (text: String, path: String, isUser: Bool) {
        let userPath = userFolder + "/" + name + ".yaml"
        if !shippedOnly, FileSystem.fileExists(atPath: userPath) {
            guard let bytes = FileSystem.contents(atPath: userPath), let text = utf8Text(bytes) else {
                throw ThemeError(path: userPath, line: nil, key: nil, problem: "cannot be read as UTF-8 text")
            }
            return (text, userPath, true)
        }
        if let text = BuiltInThemes.files[name] { return (text, "Themes/\(name).yaml", false) }
        let known = names().map(\.name).joined(separator: ", ")
        throw ThemeError(path: userPath, line: nil, key: nil, problem: "no theme named \"\(name)\" (themes: \(known))")
    }

    /// The file of the theme called `name`, parsed (with the palette it inherits).
    public func file(named name: String) throws(ThemeError) -> ThemeFile {
        try build(name, shippedOnly: false, seen: []).file
    }

    /// The theme called `name`, with everything it inherits applied.
    public func theme(named name: String) throws(ThemeError) -> Theme {
        let built = try build(name, shippedOnly: false, seen: [])
        return Theme(name: built.file.name, styles: built.styles, cursorRow: built.cursorRow)
    }

    private func build(_ name: String, shippedOnly: Bool, seen: [String]) throws(ThemeError)
        -> (file: ThemeFile, styles: [Role: Style], cursorRow: Style)
    {
        let (text, path, isUser) = try source(named: name, shippedOnly: shippedOnly)
        if seen.contains(path) || seen.count > 16 {
            throw ThemeError(path: path, line: nil, key: "inherits", problem: "inherits in a circle: " + (seen + [path]).joined(separator: " → "))
        }
        var styles: [Role: Style] = [:]
        var cursorRow = Style()
        var palette: [String: TermColor] = [:]
        if let parent = ThemeFile.inheritedName(text) {
            let base = try build(parent, shippedOnly: isUser && parent == name, seen: seen + [path])
            styles = base.styles
            cursorRow = base.cursorRow
            palette = base.file.palette
        }
        let file = try ThemeFile.parse(text, path: path, inheritedPalette: palette)
        for (key, partial) in file.roles {
            if let role = ThemeFile.roleKeys[key] ?? nil {
                styles[role] = partial.applied(to: styles[role] ?? Style())
            } else {
                cursorRow = partial.applied(to: cursorRow)
            }
        }
        return (file, styles, cursorRow)
    }

    /// The terminal's background: what it answered (`probed`, an OSC 11 query), else what
    /// `COLORFGBG` says, else nil (unknown: the dark themes are used).
    public static func background(probed: Background?, environment: [String: String]) -> Background? {
        probed ?? Background.fromColorFGBG(environment["COLORFGBG"])
    }

    /// What the user chose, in order: `--theme`, `BANANAS_THEME`, `theme:` in
    /// `$XDG_CONFIG_HOME/bananas/config.yaml`, else `default`. On a light `background` a theme
    /// with a light twin (`NAME-light`: default, colorblind) is used as that twin. Never fails:
    /// a problem is returned as a message (naming the file, line and key) with the default theme.
    public static func load(flag: String?, environment: [String: String] = Environment.current(),
                            background probed: Background? = nil) -> (theme: Theme, problem: String?) {
        let catalog = ThemeCatalog(environment: environment)
        var problem: String?
        var name = flag ?? environment["BANANAS_THEME"].flatMap { $0.isEmpty ? nil : $0 }
        if name == nil {
            do throws(ThemeError) {
                name = try Config.theme(in: Config.path(environment))
            } catch {
                problem = error.description
            }
        }
        var chosen = name ?? defaultName
        if background(probed: probed, environment: environment) == .light, !chosen.hasSuffix("-light"),
           catalog.names().contains(where: { $0.name == chosen + "-light" }) {
            chosen += "-light"
        }
        do {
            return (try catalog.theme(named: chosen), problem)
        } catch {
            let fallback = (try? catalog.theme(named: defaultName)) ?? .builtIn
            return (fallback, error.description + " — using the default theme")
        }
    }
}

/// `$XDG_CONFIG_HOME/bananas/config.yaml`.
public enum Config {
    /// The `theme:` setting, or nil when the file or the key is absent.
    public static func theme(in path: String) throws(ThemeError) -> String? {
        guard let (key, value) = try setting("theme", in: path) else { return nil }
        guard let name = value.string, !name.isEmpty else {
            throw ThemeError(path: path, line: key.line, key: "theme", problem: "must name a theme")
        }
        return name
    }

    /// The `mouse:` setting (`true` or `false`), or nil when the file or the key is absent.
    public static func mouse(in path: String) throws(ThemeError) -> Bool? { try flag("mouse", in: path) }

    /// The `space-moves-on:` setting: false keeps the cursor on an item Space checked.
    public static func spaceMovesOn(in path: String) throws(ThemeError) -> Bool? { try flag("space-moves-on", in: path) }

    /// A `true`/`false` setting, or nil when the file or the key is absent.
    static func flag(_ name: String, in path: String) throws(ThemeError) -> Bool? {
        guard let (key, value) = try setting(name, in: path) else { return nil }
        switch value.string?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw ThemeError(path: path, line: key.line, key: name, problem: "must be true or false")
        }
    }

    /// Where the config file is.
    public static func path(_ environment: [String: String] = Environment.current()) -> String {
        Locations.configDirectory(environment) + "/config.yaml"
    }

    /// The key and value of a top-level setting, or nil when the file or the key is absent.
    static func setting(_ name: String, in path: String) throws(ThemeError) -> (key: YAMLNode, value: YAMLNode)? {
        guard let bytes = FileSystem.contents(atPath: path) else { return nil }
        guard let text = utf8Text(bytes) else {
            throw ThemeError(path: path, line: nil, key: nil, problem: "cannot be read as UTF-8 text")
        }
        let root: YAMLNode?
        do throws(YAMLError) {
            root = try YAMLNode.compose(text)
        } catch {
            throw ThemeError(path: path, line: error.line, key: nil, problem: "not valid YAML: \(error.problem)")
        }
        guard let mapping = root?.mapping else { return nil }
        return mapping.first { $0.key.string == name }.map { ($0.key, $0.value) }
    }
}

/// The bytes as text, or nil when they are not valid UTF-8.
func utf8Text(_ bytes: [UInt8]) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
}
