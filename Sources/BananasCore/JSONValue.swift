/// A JSON value, kept exactly enough to write back what we did not understand: numbers keep
/// their literal text, so a value we pass through is written byte-for-byte as it was read.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared in the file (already validated as JSON).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let n) = self { return Double(n) }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A short name of the value's type for error messages ("a string", "an array", ...).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A number value for a Double, written without a fraction when it is whole.
    public static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 1e15 {
            return .number(String(Int64(value)))
        }
        return .number(String(value))
    }
}
