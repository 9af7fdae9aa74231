import MCP

/// Checks tool arguments against the tool's own input schema (the subset of JSON Schema our
/// schemas use: type, properties, required, additionalProperties, min/maxItems, maxLength,
/// enum, minimum, maximum), so what a tool advertises is what it enforces. swift-sdk validates nothing.
enum SchemaCheck {
    /// The first violation, as `items[2].name: must be a string`, or nil.
    static func violation(_ value: Value, _ schema: Value, at path: String = "arguments") -> String? {
        guard case .object(let rules) = schema else { return nil }
        switch rules["type"]?.stringValue {
        case "object":
            guard case .object(let object) = value else { return "\(path): must be an object" }
            let properties = rules["properties"]?.objectValue ?? [:]
            for case .string(let key) in rules["required"]?.arrayValue ?? [] where object[key] == nil {
                return "\(path): \(key) is required"
            }
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                guard let rule = properties[key] else {
                    if rules["additionalProperties"]?.boolValue == false {
                        return "\(path): unknown key \(key) (known: \(properties.keys.sorted().joined(separator: ", ")))"
                    }
                    continue
                }
                if let problem = violation(member, rule, at: path == "arguments" ? key : "\(path).\(key)") { return problem }
            }
        case "array":
            guard case .array(let elements) = value else { return "\(path): must be an array" }
            if let min = rules["minItems"]?.intValue, elements.count < min { return "\(path): needs at least \(min) entries" }
            if let max = rules["maxItems"]?.intValue, elements.count > max { return "\(path): at most \(max) entries per call" }
            if let rule = rules["items"] {
                for (index, element) in elements.enumerated() {
                    if let problem = violation(element, rule, at: "\(path)[\(index)]") { return problem }
                }
            }
        case "string":
            guard case .string(let text) = value else { return "\(path): must be a string" }
            if let max = rules["maxLength"]?.intValue, text.unicodeScalars.count > max {
                return "\(path): at most \(max) characters (got \(text.unicodeScalars.count))"
            }
            if let allowed = rules["enum"]?.arrayValue?.compactMap(\.stringValue), !allowed.contains(text) {
                return "\(path): must be one of \(allowed.joined(separator: ", "))"
            }
        case "boolean":
            guard case .bool = value else { return "\(path): must be true or false" }
        case "integer":
            guard case .int(let number) = value else { return "\(path): must be a whole number" }
            if let min = rules["minimum"]?.intValue, number < min { return "\(path): must be at least \(min)" }
            if let max = rules["maximum"]?.intValue, number > max { return "\(path): must be at most \(max)" }
        default:
            break
        }
        return nil
    }
}
