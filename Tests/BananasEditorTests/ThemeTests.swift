import BananasCore
import BananasEditor
import BananasSync
import BananasThemes
import Foundation
import Testing

@Suite("Themes")
struct ThemeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shipped = ["default", "default-light", "dark", "light", "high-contrast", "colorblind", "colorblind-light", "monochrome"]
    let catalog = ThemeCatalog(userFolder: "/nonexistent")

    @Test("every shipped theme parses and covers every role and the cursor row", arguments: shipped)
    func shippedThemes(name: String) throws {
        let theme = try catalog.theme(named: name)
        #expect(theme.name == name)
        for role in Role.allCases { #expect(theme.styles[role] != nil, "\(name): \(role)") }
        // The cursor row is always visible: some attribute or a background.
        #expect(theme.cursorRow.reverse || theme.cursorRow.background != nil || theme.cursorRow.bold)
    }

    @Test("the compiled-in themes are exactly Themes/*.yaml (run scripts/generate-themes after editing one)")
    func compiledInMatchesFolder() throws {
        let folder = Self.root.appendingPathComponent("Themes")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(BuiltInThemes.files.keys))
        #expect(Set(Self.shipped).isSubset(of: Set(BuiltInThemes.files.keys)))
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(BuiltInThemes.files[String(file.dropLast(5))] == text.trimmingCharacters(in: .newlines), "\(file)")
        }
    }

    @Test("Themes/default.yaml is the editor's built-in fallback theme")
    func defaultMatchesBuiltIn() throws {
        let theme = try catalog.theme(named: "default")
        #expect(theme.styles == Theme.builtIn.styles)
        #expect(theme.cursorRow == Theme.builtIn.cursorRow)
    }

    @Test("monochrome uses no colour; colorblind's sync states differ by more than colour")
    func specialThemes() throws {
        let mono = try catalog.theme(named: "monochrome")
        for (role, style) in mono.styles {
            #expect(style.foreground == nil && style.background == nil, "\(role)")
        }
        #expect(mono.cursorRow.foreground == nil && mono.cursorRow.background == nil)
        let safe = try catalog.theme(named: "colorblind")
        let states: [Role] = [.synced, .pending, .conflict, .paused]
        func attributes(_ s: Style) -> [Bool] { [s.bold, s.dim, s.italic, s.underline, s.reverse] }
        for (i, a) in states.enumerated() {
            for b in states[(i + 1)...] {
                #expect(attributes(safe.styles[a]!) != attributes(safe.styles[b]!), "\(a) vs \(b)")
            }
        }
    }

    @Test("a variant is a few lines: inherits, a palette, one role")
    func inheritance() throws {
        let folder = NSTemporaryDirectory() + "bananas-themes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            name: sunny
            inherits: dark
            palette: { sun: "#ffaf00" }
            roles:
              section_header: { fg: sun }
            """.write(toFile: folder + "/sunny.yaml", atomically: true, encoding: .utf8)
        let user = ThemeCatalog(userFolder: folder)
        let theme = try user.theme(named: "sunny")
        let dark = try user.theme(named: "dark")
        #expect(theme.styles[.sectionHeader] == Style(foreground: .rgb(0xff, 0xaf, 0), background: .rgb(0x1c, 0x1c, 0x1c), bold: true))
        #expect(theme.styles[.amount] == dark.styles[.amount])
        #expect(user.names().contains { $0.name == "sunny" && $0.source == .user })
    }

    @Test("a variant uses its parent's palette, names in any case; a user theme may extend the shipped one of its name")
    func paletteAndSelfExtension() throws {
        let folder = NSTemporaryDirectory() + "bananas-themes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            name: softlight
            inherits: light
            palette: { deepBlue: "#00005f" }
            roles:
              checked_item: { fg: slate }
              prompt: { fg: DeepBlue, bg: Default }
            """.write(toFile: folder + "/softlight.yaml", atomically: true, encoding: .utf8)
        try "name: dark\ninherits: dark\nroles:\n  amount: { fg: banana }\n".write(toFile: folder + "/dark.yaml", atomically: true, encoding: .utf8)
        let user = ThemeCatalog(userFolder: folder)
        let soft = try user.theme(named: "softlight")
        #expect(soft.styles[.checkedItem]?.foreground == .rgb(0x6c, 0x6c, 0x6c))
        #expect(soft.styles[.prompt]?.foreground == .rgb(0, 0, 0x5f) && soft.styles[.prompt]?.background == nil)
        let dark = try user.theme(named: "dark")
        #expect(dark.styles[.amount]?.foreground == .rgb(0xff, 0xd7, 0x5f))
        #expect(dark.styles[.sectionHeader] == (try catalog.theme(named: "dark")).styles[.sectionHeader])
    }

    @Test("an unquoted #colour (a YAML comment) gets a hint")
    func unquotedHash() {
        do {
            _ = try ThemeFile.parse("name: x\nroles:\n  item: { fg: #ff0000 }\n", path: "/t/x.yaml")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("in quotes"), "\(error)")
        }
    }

    @Test("YAML as libyaml reads it: anchors and aliases, yes/off, quoted numbers, nulls, a second document, control characters")
    func yamlDetails() throws {
        let file = try ThemeFile.parse("""
            # a comment
            name: "x"
            palette:
              warm: &w "#ff8800"
            roles:
              amount: { fg: *w, bold: yes, italic: Off }
              item: { fg: 12 }
            """, path: "/t/x.yaml")
        #expect(file.name == "x")
        let amount = try #require(file.roles["amount"])
        #expect(amount.foreground == .some(.rgb(0xFF, 0x88, 0x00)) && amount.bold == true && amount.italic == false)
        #expect(file.roles["item"]?.foreground == .some(.ansi(12)))
        #expect(throws: ThemeError.self) { try ThemeFile.parse("name: x\nroles:\n  item: { bg: '200' }\n", path: "/t/x.yaml") }

        func problem(_ text: String) -> ThemeError? {
            do { _ = try ThemeFile.parse(text, path: "/t/x.yaml"); return nil } catch { return error }
        }
        #expect(problem("name: x\nroles:\n  item: { fg: ~ }\n")?.description == "/t/x.yaml:3: roles.item.fg: no colour given (write \"#rrggbb\" in quotes: an unquoted # starts a comment)")
        #expect(problem("name: x\nroles:\n  item: { fg: null }\n")?.line == 3)
        #expect(problem("name: x\n---\nname: y\n")?.description == "/t/x.yaml:2: not valid YAML: but found another document")
        #expect(problem("name: x\nroles:\n  item: { fg: *nope }\n")?.description == "/t/x.yaml:3: not valid YAML: found undefined alias")
        #expect(problem("name: x\n\ndescription: a\u{01}b\n")?.description == "/t/x.yaml:3: not valid YAML: control characters are not allowed")
        #expect(problem("# nothing but a comment\n")?.description == "/t/x.yaml: the file is empty")
        #expect(problem("- a\n- b\n")?.description == "/t/x.yaml:1: a theme is a mapping of keys (name, inherits, palette, roles)")
    }

    @Test("problems name the file, the line and the key", arguments: [
        ("name: x\nroles:\n  section_header: { fg: purpleish }\n", 3, "roles.section_header.fg"),
        ("name: x\nroles:\n  sectoin_header: { bold: true }\n", 3, "roles.sectoin_header"),
        ("name: x\nroles:\n  item: { bold: maybe }\n", 3, "roles.item.bold"),
        ("name: x\ncolours: {}\n", 2, "colours"),
        ("name: x\nroles:\n  item: { fg: 300 }\n", 3, "roles.item.fg"),
        ("name: x\nroles: [\n", 3, nil),
    ] as [(String, Int, String?)])
    func problems(text: String, line: Int, key: String?) {
        #expect(throws: ThemeError.self) { try ThemeFile.parse(text, path: "/t/x.yaml") }
        do {
            _ = try ThemeFile.parse(text, path: "/t/x.yaml")
        } catch {
            #expect(error.path == "/t/x.yaml")
            #expect(error.line == line, "\(error)")
            #expect(error.key == key, "\(error)")
            #expect(error.description.hasPrefix("/t/x.yaml:\(line)"))
        }
    }

    @Test("a missing or broken theme falls back to the default with a message; never a crash")
    func fallback() throws {
        let config = NSTemporaryDirectory() + "bananas-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: config + "/bananas/themes", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let env = ["XDG_CONFIG_HOME": config, "HOME": "/nonexistent"]
        var (theme, problem) = ThemeCatalog.load(flag: "nope", environment: env)
        #expect(theme.name == "default")
        #expect(problem?.contains("no theme named \"nope\"") == true)

        try "name: broken\nroles:\n  item: { fg: 999 }\n".write(toFile: config + "/bananas/themes/broken.yaml", atomically: true, encoding: .utf8)
        (theme, problem) = ThemeCatalog.load(flag: "broken", environment: env)
        #expect(theme.name == "default")
        #expect(problem?.hasPrefix(config + "/bananas/themes/broken.yaml:3: roles.item.fg") == true, "\(problem ?? "")")

        try "name: a\ninherits: b\n".write(toFile: config + "/bananas/themes/a.yaml", atomically: true, encoding: .utf8)
        try "name: b\ninherits: a\n".write(toFile: config + "/bananas/themes/b.yaml", atomically: true, encoding: .utf8)
        (theme, problem) = ThemeCatalog.load(flag: "a", environment: env)
        #expect(theme.name == "default" && problem?.contains("circle") == true)
    }

    @Test("the choice: --theme, then BANANAS_THEME, then config.yaml, then default")
    func choice() throws {
        let config = NSTemporaryDirectory() + "bananas-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: config + "/bananas", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: config) }
        var env = ["XDG_CONFIG_HOME": config]
        #expect(ThemeCatalog.load(flag: nil, environment: env).theme.name == "default")
        // A light background, as the terminal says it, and no theme chosen: the light default.
        #expect(ThemeCatalog.load(flag: nil, environment: env.merging(["COLORFGBG": "0;15"]) { $1 }).theme.name == "default-light")
        #expect(ThemeCatalog.load(flag: nil, environment: env.merging(["COLORFGBG": "15;default;0"]) { $1 }).theme.name == "default")
        #expect(ThemeCatalog.load(flag: nil, environment: env.merging(["COLORFGBG": "default"]) { $1 }).theme.name == "default")
        // What the terminal answered (OSC 11) comes before COLORFGBG; a theme with a light twin
        // is used as it on a light background.
        #expect(ThemeCatalog.load(flag: nil, environment: env, background: .light).theme.name == "default-light")
        #expect(ThemeCatalog.load(flag: nil, environment: env.merging(["COLORFGBG": "0;15"]) { $1 }, background: .dark).theme.name == "default")
        #expect(ThemeCatalog.load(flag: "colorblind", environment: env, background: .light).theme.name == "colorblind-light")
        #expect(ThemeCatalog.load(flag: "colorblind", environment: env, background: .dark).theme.name == "colorblind")
        #expect(ThemeCatalog.load(flag: "dark", environment: env, background: .light).theme.name == "dark")
        try "theme: light\n".write(toFile: config + "/bananas/config.yaml", atomically: true, encoding: .utf8)
        #expect(ThemeCatalog.load(flag: nil, environment: env.merging(["COLORFGBG": "0;15"]) { $1 }).theme.name == "light")
        #expect(ThemeCatalog.load(flag: nil, environment: env).theme.name == "light")
        env["BANANAS_THEME"] = "dark"
        #expect(ThemeCatalog.load(flag: nil, environment: env).theme.name == "dark")
        #expect(ThemeCatalog.load(flag: "monochrome", environment: env).theme.name == "monochrome")
        try "theme: [oops\n".write(toFile: config + "/bananas/config.yaml", atomically: true, encoding: .utf8)
        env["BANANAS_THEME"] = nil
        let (theme, problem) = ThemeCatalog.load(flag: nil, environment: env)
        #expect(theme.name == "default" && problem?.hasPrefix(config + "/bananas/config.yaml:") == true)
    }

    @Test("colour depth: NO_COLOR, COLORTERM and the terminal's colour count")
    func detection() {
        #expect(ColorLevel.detect(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"], terminalColors: 256) == .none)
        #expect(ColorLevel.detect(environment: ["NO_COLOR": ""], terminalColors: 256) == .indexed256)
        #expect(ColorLevel.detect(environment: ["COLORTERM": "truecolor"], terminalColors: 256) == .truecolor)
        #expect(ColorLevel.detect(environment: ["COLORTERM": "24bit"], terminalColors: 8) == .ansi8)
        #expect(ColorLevel.detect(environment: [:], terminalColors: 16) == .ansi16)
        #expect(ColorLevel.detect(environment: [:], terminalColors: 8) == .ansi8)
        #expect(ColorLevel.detect(environment: ["COLORTERM": "truecolor"], terminalColors: 0) == .none)
    }

    @Test("a rich theme degrades on the cell grid: truecolor → 256 → 8 → attributes only")
    func degradation() throws {
        let dark = try catalog.theme(named: "dark")
        let grid = render(width: 44, height: 12)
        func colors(_ level: ColorLevel) -> [TermColor] {
            grid.styles(dark.degraded(to: level)).flatMap { $0 }.flatMap { [$0.foreground, $0.background].compactMap { $0 } }
        }
        #expect(colors(.truecolor).contains { if case .rgb = $0 { true } else { false } })
        #expect(colors(.indexed256).allSatisfy { if case .rgb = $0 { false } else { true } })
        #expect(colors(.indexed256).contains { if case .indexed = $0 { true } else { false } })
        #expect(colors(.ansi8).allSatisfy { if case .ansi(let n) = $0 { n < 8 } else { false } })
        #expect(colors(.ansi16).allSatisfy { if case .ansi(let n) = $0 { n < 16 } else { false } })
        #expect(colors(.none).isEmpty)
        // The banana yellow of the section headers lands on a yellow at every depth.
        let header = (0..<grid.width).first { grid[$0, 1].role == .sectionHeader }!
        #expect(grid.styles(dark.degraded(to: .truecolor))[1][header].foreground == .rgb(0xff, 0xd7, 0x5f))
        #expect(grid.styles(dark.degraded(to: .indexed256))[1][header].foreground == .indexed(221))
        #expect(grid.styles(dark.degraded(to: .ansi8))[1][header].foreground == .ansi(3))
        // Without colour the cursor row and the status bar still stand out, by attributes.
        let mono = dark.degraded(to: .none)
        let cursorRow = (0..<grid.height).first { grid[0, $0].highlighted }!
        let styles = grid.styles(mono)
        #expect(styles[cursorRow][0] != styles[cursorRow + 1][0])
        #expect(styles[grid.height - 1].allSatisfy { $0.reverse || $0.bold })
        #expect(styles.flatMap { $0 }.allSatisfy { $0.foreground == nil && $0.background == nil })
    }
}

/// Every shipped theme must read on a dark and on a light terminal. Where a theme leaves a
/// colour to the terminal (no background, or no foreground), the colour it does set must
/// contrast with both black and white; where it sets both, with each other. The 16 terminal
/// colours follow the user's palette and are left to it.
@Suite("Themes on dark and light terminals")
struct ThemeContrastTests {
    @Test("brought down to 16, 8 or no colours, no text vanishes into its background and the cursor row still shows",
          arguments: ThemeTests.shipped)
    func degradedStaysReadable(name: String) throws {
        let theme = try ThemeCatalog(userFolder: "/nonexistent").theme(named: name)
        let bodyRoles: [Role] = [.text, .sectionHeader, .item, .checkedItem, .optionalMarker, .amount, .filterMatch, .dim]
        for level in [ColorLevel.ansi16, .ansi8, .none] {
            let shown = theme.degraded(to: level)
            for role in Role.allCases {
                for highlighted in [false, true] {
                    let style = shown.style(for: role, highlighted: highlighted)
                    if let fg = style.foreground, let bg = style.background {
                        #expect(fg != bg, "\(name) at \(level): \(role) is \(fg) on \(bg)")
                    }
                }
            }
            for role in bodyRoles {
                #expect(shown.style(for: role, highlighted: true) != shown.style(for: role, highlighted: false),
                        "\(name) at \(level): the cursor row does not show on \(role)")
            }
            if level != .none && name != "monochrome" {
                let states = [Role.synced, .pending, .conflict, .paused].map { shown.styles[$0] }
                #expect(Set(states.map { "\(String(describing: $0))" }).count == 4, "\(name) at \(level): sync states look alike")
            }
        }
    }

    static func luminance(_ color: TermColor) -> Double? {
        let (r, g, b): (Int, Int, Int)
        switch color {
        case .ansi: return nil
        case .indexed(let n): (r, g, b) = ColorDepth.rgb(indexed: n)
        case .rgb(let R, let G, let B): (r, g, b) = (Int(R), Int(G), Int(B))
        }
        func linear(_ c: Int) -> Double {
            let v = Double(c) / 255
            return v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    static func contrast(_ a: Double, _ b: Double) -> Double { (max(a, b) + 0.05) / (min(a, b) + 0.05) }

    @Test("every role of a theme meant for any background is readable on either",
          arguments: ThemeTests.shipped.filter { IntendedBackgroundContrastTests.intended[$0]?.count == 2 })
    func readable(name: String) throws {
        let theme = try ThemeCatalog(userFolder: "/nonexistent").theme(named: name)
        // Roles drawn on list rows, where the cursor row lies over them.
        let bodyRoles: Set<Role> = [.text, .sectionHeader, .item, .checkedItem, .optionalMarker, .amount, .filterMatch, .dim]
        for role in Role.allCases {
            for highlighted in bodyRoles.contains(role) ? [false, true] : [false] {
                var style = theme.style(for: role, highlighted: highlighted)
                if style.reverse { (style.foreground, style.background) = (style.background, style.foreground) }
                let fg = style.foreground.flatMap(Self.luminance)
                let bg = style.background.flatMap(Self.luminance)
                let what = "\(name) \(role)\(highlighted ? " (cursor row)" : "")"
                switch (fg, bg) {
                case (let f?, let b?):
                    #expect(Self.contrast(f, b) >= 3, "\(what): foreground on background \(Self.contrast(f, b))")
                case (let one?, nil) where style.background == nil, (nil, let one?) where style.foreground == nil:
                    // The other colour is the terminal's: black or white, or near them.
                    #expect(Self.contrast(one, 0) >= 3 && Self.contrast(one, 1) >= 3,
                            "\(what): needs a background of its own, or a mid-tone colour (\(Self.contrast(one, 0)), \(Self.contrast(one, 1)))")
                default:
                    break
                }
            }
        }
    }
}

/// Each shipped theme on the background it is meant for (docs/themes.md says which), with the
/// xterm palette for the 16 terminal colours: every role, inherited attributes included (a
/// `dim` is drawn at half intensity, `reverse` swaps the colours), at least 4.5:1 for text and
/// 3:1 for dim text (checked items, the dim role), on list rows and under the cursor row.
@Suite("Themes on their intended background")
struct IntendedBackgroundContrastTests {
    enum Background: String, CaseIterable { case dark, light }

    /// Where each shipped theme is meant to be used. Themes with their own canvas are checked
    /// on both (a role that sets no background shows the terminal's).
    static let intended: [String: [Background]] = [
        "default": [.dark], "default-light": [.light],
        "colorblind": [.dark], "colorblind-light": [.light],
        "dark": [.dark, .light], "light": [.dark, .light], "high-contrast": [.dark, .light],
        "monochrome": [.dark, .light],
    ]

    static let dimRoles: Set<Role> = [.checkedItem, .dim]
    static let bodyRoles: Set<Role> = [.text, .sectionHeader, .item, .checkedItem, .optionalMarker, .amount, .filterMatch, .dim]

    static func rgb(_ color: TermColor) -> (Double, Double, Double) {
        let (r, g, b): (Int, Int, Int) = switch color {
        case .ansi(let n): ColorDepth.rgb(indexed: n)
        case .indexed(let n): ColorDepth.rgb(indexed: n)
        case .rgb(let R, let G, let B): (Int(R), Int(G), Int(B))
        }
        return (Double(r), Double(g), Double(b))
    }

    static func luminance(_ c: (Double, Double, Double)) -> Double {
        func linear(_ v: Double) -> Double {
            let v = v / 255
            return v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
    }

    /// The contrast of a style as a terminal with `background` draws it.
    static func contrast(_ style: Style, on background: Background) -> Double {
        let terminalForeground: (Double, Double, Double) = background == .dark ? (229, 229, 229) : (0, 0, 0)
        let terminalBackground: (Double, Double, Double) = background == .dark ? (0, 0, 0) : (255, 255, 255)
        var fg = style.foreground.map(rgb) ?? terminalForeground
        var bg = style.background.map(rgb) ?? terminalBackground
        if style.reverse { (fg, bg) = (bg, fg) }
        if style.dim { fg = ((fg.0 + bg.0) / 2, (fg.1 + bg.1) / 2, (fg.2 + bg.2) / 2) }
        let (a, b) = (luminance(fg), luminance(bg))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    @Test("every role meets 4.5:1 (dim text 3:1) on the theme's intended background", arguments: ThemeTests.shipped)
    func intendedContrast(name: String) throws {
        let theme = try ThemeCatalog(userFolder: "/nonexistent").theme(named: name)
        let backgrounds = try #require(Self.intended[name], "say which background \(name) is for")
        for background in backgrounds {
            for role in Role.allCases {
                for highlighted in Self.bodyRoles.contains(role) ? [false, true] : [false] {
                    let ratio = Self.contrast(theme.style(for: role, highlighted: highlighted), on: background)
                    let needed = Self.dimRoles.contains(role) ? 3.0 : 4.5
                    #expect(ratio >= needed, "\(name) on \(background): \(role)\(highlighted ? " (cursor row)" : "") is \((ratio * 10).rounded() / 10):1")
                }
            }
        }
    }

    @Test("bananas themes and docs/themes.md say the same of every shipped theme")
    func docsTellTheSameTruth() throws {
        let docs = try String(contentsOf: ThemeTests.root.appendingPathComponent("docs/themes.md"), encoding: .utf8)
        let catalog = ThemeCatalog(userFolder: "/nonexistent")
        for name in ThemeTests.shipped {
            let description = try #require(try catalog.file(named: name).description)
            #expect(docs.contains("| `\(name)` | \(description) |"), "docs/themes.md's row for \(name) should read: \(description)")
        }
    }
}


@Suite("The terminal's background")
struct BackgroundProbeTests {
    @Test("an OSC 11 reply, ended by BEL or ESC \\, with 2 or 4 hex digits; device attributes alone say nothing")
    func parse() {
        func parsed(_ text: String) -> (Bool, Background?) {
            let result = Background.parse(reply: Array(text.utf8))
            return (result.answered, result.background)
        }
        #expect(parsed("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;22c") == (true, .light))
        #expect(parsed("\u{1B}]11;rgb:c0c0/c0c0/c0c0\u{07}\u{1B}[?1;2c") == (true, .light))
        #expect(parsed("\u{1B}]11;rgb:1c/1c/1c\u{07}\u{1B}[?6c") == (true, .dark))
        #expect(parsed("\u{1B}]11;rgb:7777/7777/7777\u{1B}\\\u{1B}[?6c") == (true, .dark))
        #expect(parsed("\u{1B}[?62;22c") == (true, nil), "a terminal that ignores OSC 11")
        #expect(parsed("\u{1B}]11;rgb:ffff/ff") == (false, nil), "still coming")
        #expect(parsed("\u{1B}]11;rgb:zz/00/00\u{07}\u{1B}[?6c") == (true, nil))
        #expect(Background.fromColorFGBG("0;15") == .light && Background.fromColorFGBG("15;0") == .dark)
        #expect(Background.fromColorFGBG(nil) == nil && Background.fromColorFGBG("default") == nil)
    }
}
