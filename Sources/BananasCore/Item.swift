/// The fields of an item that are merged one by one, each with its own stamp.
public enum ItemField: String, CaseIterable, Sendable, Hashable, Comparable {
    case name, amount, section, checked, optional, sortOrder

    public static func < (lhs: ItemField, rhs: ItemField) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One stamp per merged field. A zero stamp means "never stamped" (written by a writer that
/// keeps no stamps, or read from a version-1 file).
public struct ItemStamps: Hashable, Sendable {
    private var values: [Stamp]

    public init(all stamp: Stamp = .zero) {
        values = Array(repeating: stamp, count: ItemField.allCases.count)
    }

    public subscript(field: ItemField) -> Stamp {
        get { values[Self.index(field)] }
        set { values[Self.index(field)] = newValue }
    }

    /// The newest stamp of any field.
    public var newest: Stamp { values.max() ?? .zero }

    private static func index(_ field: ItemField) -> Int {
        switch field {
        case .name: 0
        case .amount: 1
        case .section: 2
        case .checked: 3
        case .optional: 4
        case .sortOrder: 5
        }
    }
}

/// The value of one field, for edits that name a field.
public enum FieldValue: Hashable, Sendable, CustomStringConvertible {
    case text(String)
    case flag(Bool)
    case order(Double)

    public var description: String {
        switch self {
        case .text(let s): s
        case .flag(let b): b ? "true" : "false"
        case .order(let d): String(d)
        }
    }
}

/// One row of the shopping list.
public struct Item: Hashable, Sendable, Identifiable {
    /// A UUID in upper case (Get Bananas writes them that way); never changes.
    public var id: String
    public var name: String
    public var amount: String
    public var section: String
    public var checked: Bool
    public var optional: Bool
    /// Position among the items of the list; ties sort by id.
    public var sortOrder: Double
    /// When the row last changed, as the ISO 8601 text written in the file.
    public var lastModified: String?
    public var stamps: ItemStamps
    /// Keys of this row we do not understand, kept so a rewrite never drops them.
    public var extra: [String: JSONValue]

    public init(
        id: String, name: String, amount: String = "", section: String = "",
        checked: Bool = false, optional: Bool = false, sortOrder: Double = 0,
        lastModified: String? = nil, stamps: ItemStamps = ItemStamps(), extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.amount = amount
        self.section = section
        self.checked = checked
        self.optional = optional
        self.sortOrder = sortOrder
        self.lastModified = lastModified
        self.stamps = stamps
        self.extra = extra
    }

    public subscript(field: ItemField) -> FieldValue {
        get {
            switch field {
            case .name: .text(name)
            case .amount: .text(amount)
            case .section: .text(section)
            case .checked: .flag(checked)
            case .optional: .flag(optional)
            case .sortOrder: .order(sortOrder)
            }
        }
        set {
            switch (field, newValue) {
            case (.name, .text(let s)): name = s
            case (.amount, .text(let s)): amount = s
            case (.section, .text(let s)): section = s
            case (.checked, .flag(let b)): checked = b
            case (.optional, .flag(let b)): optional = b
            case (.sortOrder, .order(let d)): sortOrder = d
            default: preconditionFailure("value \(newValue) does not fit field \(field)")
            }
        }
    }

    /// The order items are listed in: by sortOrder, ties by id.
    public static func listOrder(_ a: Item, _ b: Item) -> Bool {
        a.sortOrder != b.sortOrder ? a.sortOrder < b.sortOrder : a.id < b.id
    }
}
