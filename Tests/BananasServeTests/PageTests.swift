@testable import BananasServe
import Foundation
import Testing

/// What docs/serve.md claims of the page that a test can read off its files.
@Suite struct PageTests {
    /// `--name: #rrggbb` pairs of the style sheet's light block and its dark block.
    static func colours(_ block: Substring) -> [String: (Double, Double, Double)] {
        var found: [String: (Double, Double, Double)] = [:]
        for match in block.matches(of: /--([a-z-]+): #([0-9a-f]{6})/) {
            let hex = Array(match.2)
            func channel(_ i: Int) -> Double { Double(Int(String(hex[i...i + 1]), radix: 16)!) / 255 }
            found[String(match.1)] = (channel(0), channel(2), channel(4))
        }
        return found
    }

    static func luminance(_ c: (Double, Double, Double)) -> Double {
        func linear(_ v: Double) -> Double { v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
    }

    static func contrast(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func textContrastIsAtLeastWCAGAAInLightAndDark() throws {
        let css = Page.styleCSS
        let dark = try #require(css.range(of: "@media (prefers-color-scheme: dark)"))
        for block in [css[..<dark.lowerBound], css[dark.upperBound...].prefix { $0 != "}" }] {
            let c = Self.colours(block)
            // Text colours on the page's background and on panels; button text on buttons.
            for text in ["fg", "muted", "accent", "checked", "danger"] {
                for background in ["bg", "panel"] {
                    let ratio = Self.contrast(try #require(c[text]), try #require(c[background]))
                    #expect(ratio >= 4.5, "\(text) on \(background): \(ratio)")
                }
            }
            #expect(Self.contrast(try #require(c["button-fg"]), try #require(c["button"])) >= 4.5)
        }
    }

    @Test func everyControlIsAtLeast44PixelsHigh() {
        #expect(Page.styleCSS.contains("button { font: inherit; min-height: 44px; min-width: 44px;"))
        #expect(Page.styleCSS.contains("min-height: 44px; padding: 0 0.6rem; }"))  // inputs and menus
    }
}

