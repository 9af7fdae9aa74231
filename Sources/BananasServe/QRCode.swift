import CQRencode

/// The pairing URL as a QR code, by libqrencode, drawn in a terminal with half blocks: each
/// character cell holds two modules, one above the other, so the code stays square.
public struct QRCode: Sendable, Equatable {
    /// Modules, row by row: true is dark.
    public let modules: [[Bool]]

    public init?(_ text: String) {
        // 8-bit mode (a URL's case matters), error correction L: the smallest code, read
        // off a screen, which is never damaged.
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_L) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        var rows: [[Bool]] = []
        for y in 0..<width {
            rows.append((0..<width).map { x in code.pointee.data[y * width + x] & 1 == 1 })
        }
        modules = rows
    }

    /// Lines for a terminal, with a quiet zone of 2 modules. With colour, dark modules are
    /// black on white whatever the terminal's theme; without (NO_COLOR, not a terminal) the
    /// light modules are drawn as blocks, which reads right on the usual dark background.
    public func lines(color: Bool) -> [String] {
        let quiet = 2
        let size = modules.count + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard my >= 0, my < modules.count, mx >= 0, mx < modules.count else { return false }
            return modules[my][mx]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            var line = color ? "\u{1B}[30;107m" : ""
            for x in 0..<size {
                let top = dark(x, y), bottom = y + 1 < size ? dark(x, y + 1) : false
                if color {
                    line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
                } else {
                    // Blocks are the light modules here.
                    line += !top && !bottom ? "█" : !top ? "▀" : !bottom ? "▄" : " "
                }
            }
            lines.append(line + (color ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
