/// The values a row's fields held before their current ones, by the stamp each had: what tells
/// a stampless save's stale copy from its writer's edit (rule 5, `ShoppingList.judging`). Kept
/// in the row under `was` (docs/file-format.md), only for the stamps the field's history still
/// holds, and never for the order (the Get Bananas app does not write it).
extension Item {
    static let priorsKey = "was"

    /// Per field, the value each superseded stamp carried.
    public var priors: [ItemField: [Stamp: FieldValue]] {
        guard case .object(let fields)? = extra[Self.priorsKey] else { return [:] }
        var result: [ItemField: [Stamp: FieldValue]] = [:]
        for (name, value) in fields {
            guard let field = ItemField(rawValue: name), field != .sortOrder, case .object(let byStamp) = value else { continue }
            for (text, held) in byStamp {
                guard let stamp = Stamp(compactUTF8: Array(text.utf8)) ?? Stamp(encoded: text) else { continue }
                switch (field, held) {
                case (.name, .string(let s)), (.amount, .string(let s)), (.section, .string(let s)): result[field, default: [:]][stamp] = .text(s)
                case (.checked, .bool(let b)), (.optional, .bool(let b)): result[field, default: [:]][stamp] = .flag(b)
                default: continue
                }
            }
        }
        return result
    }

    /// The value `field` held under `stamp`: its current one, or a prior one; nil when unknown.
    public func value(_ field: ItemField, stampedAt stamp: Stamp) -> FieldValue? {
        stamps[field] == stamp ? self[field] : priors[field]?[stamp]
    }

    /// Remembers that `field` held `value` under `stamp` before its current value.
    mutating func remember(_ field: ItemField, held value: FieldValue, at stamp: Stamp) {
        guard field != .sortOrder, !stamp.isZero else { return }
        var all = priors
        all[field, default: [:]][stamp] = value
        setPriors(all)
    }

    /// Keeps `all`, each field's only for the stamps its history holds.
    mutating func setPriors(_ all: [ItemField: [Stamp: FieldValue]]) {
        var fields: [String: JSONValue] = [:]
        for (field, byStamp) in all where field != .sortOrder {
            let kept = Set(stamps.seen(field))
            var object: [String: JSONValue] = [:]
            for (stamp, value) in byStamp where kept.contains(stamp) {
                let key = stamp.compact ?? stamp.encoded
                switch value {
                case .text(let s): object[key] = .string(s)
                case .flag(let b): object[key] = .bool(b)
                case .order: continue
                }
            }
            if !object.isEmpty { fields[field.rawValue] = .object(object) }
        }
        if fields.isEmpty {
            if extra[Self.priorsKey] != nil { extra[Self.priorsKey] = nil }
        } else {
            extra[Self.priorsKey] = .object(fields)
        }
    }

    /// Both copies' priors, as a merge of the two keeps them (a stamp names one value).
    static func mergedPriors(_ a: Item, _ b: Item) -> [ItemField: [Stamp: FieldValue]] {
        var all = a.priors
        for (field, byStamp) in b.priors { all[field, default: [:]].merge(byStamp) { x, _ in x } }
        return all
    }
}
