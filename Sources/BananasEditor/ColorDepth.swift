/// Turning colours a terminal lacks into the nearest ones it has.
public enum ColorDepth {
    /// RGB of the xterm 256-colour palette entry `n`.
    public static func rgb(indexed n: Int) -> (Int, Int, Int) {
        switch n {
        case 0..<16: return ansiRGB[n]
        case 16..<232:
            let v = n - 16
            let levels = [0, 95, 135, 175, 215, 255]
            return (levels[v / 36], levels[(v / 6) % 6], levels[v % 6])
        default:
            let gray = 8 + (n - 232) * 10
            return (gray, gray, gray)
        }
    }

    /// The xterm defaults for the 16 terminal colours.
    static let ansiRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }

    /// The nearest of the 240 fixed palette entries (16–255) to an RGB colour.
    public static func nearestIndexed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        let target = (Int(r), Int(g), Int(b))
        return (16..<256).min { distance(rgb(indexed: $0), target) < distance(rgb(indexed: $1), target) }!
    }

    /// The nearest of the 16 terminal colours to a palette entry.
    public static func nearestANSI(indexed n: Int) -> Int {
        if n < 16 { return n }
        let target = rgb(indexed: n)
        return (0..<16).min { distance(ansiRGB[$0], target) < distance(ansiRGB[$1], target) }!
    }
}
