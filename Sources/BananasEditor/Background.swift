/// Whether the terminal draws on a dark or a light background: the theme is chosen for it.
public enum Background: String, Sendable, Equatable {
    case dark, light

    /// From the terminal's answers to an OSC 11 query (its background colour) sent with a
    /// device-attributes query behind it: `answered` once the device attributes came (every
    /// terminal sends them, after any OSC 11 reply), `background` when the colour came too.
    /// The colour is `rgb:R/G/B` with 1–4 hex digits a component, ended by BEL or ESC \.
    public static func parse(reply bytes: [UInt8]) -> (answered: Bool, background: Background?) {
        let text = String(decoding: bytes, as: UTF8.self)
        // Device attributes: ESC [ ? … c
        let answered = text.firstRange(of: "\u{1B}[?").map { text[$0.upperBound...].contains("c") } ?? false
        guard let start = text.firstRange(of: "\u{1B}]11;rgb:") else { return (answered, nil) }
        let rest = text[start.upperBound...]
        let end = rest.firstIndex { $0 == "\u{07}" || $0 == "\u{1B}" } ?? rest.endIndex
        let parts = rest[..<end].split(separator: "/")
        guard parts.count == 3 else { return (answered, nil) }
        var channels: [Double] = []
        for part in parts {
            guard (1...4).contains(part.count), let value = Int(part, radix: 16) else { return (answered, nil) }
            channels.append(Double(value) / Double((1 << (4 * part.count)) - 1))
        }
        return (answered, of(red: channels[0], green: channels[1], blue: channels[2]))
    }

    /// A colour (components 0–1) as a background: light when its brightness (Rec. 601 luma)
    /// is past half (#777777 is dark, #c0c0c0 light).
    public static func of(red: Double, green: Double, blue: Double) -> Background {
        0.299 * red + 0.587 * green + 0.114 * blue > 0.5 ? .light : .dark
    }

    /// From `COLORFGBG` (`fg;bg` or `fg;default;bg`, set by rxvt, Konsole and others): 7 and
    /// 9–15 are light; nil when it does not say.
    public static func fromColorFGBG(_ value: String?) -> Background? {
        guard let value, let last = value.split(separator: ";").last, let background = Int(last) else { return nil }
        return background == 7 || (9...15).contains(background) ? .light : .dark
    }
}
