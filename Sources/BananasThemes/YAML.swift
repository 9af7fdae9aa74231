import CYAML

/// A YAML document as theme and config files need it: libyaml's events composed into a tree
/// of scalars, mappings and sequences, each with the line it starts on. Tags are kept only to
/// tell a null from a string; aliases are resolved. libyaml is called directly, not through
/// Yams, whose Foundation dependency would slow every `bananas` command's start; the same
/// files parse and the same problems are reported (docs/decisions.md, "Themes").
struct YAMLNode {
    enum Content {
        case scalar(String, tag: String?, plain: Bool)
        case mapping([(key: YAMLNode, value: YAMLNode)])
        case sequence([YAMLNode])
    }

    var content: Content
    /// The line the node starts on, from 1.
    var line: Int

    /// The text of a scalar.
    var string: String? {
        if case .scalar(let text, _, _) = content { return text }
        return nil
    }

    /// The pairs of a mapping, in file order.
    var mapping: [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// A scalar that means true or false (`true`, `yes`, `on`, `false`, `no`, `off`, in any case).
    var bool: Bool? {
        switch string?.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// A scalar written without quotes or block indicators.
    var isPlainScalar: Bool {
        if case .scalar(_, _, let plain) = content { return plain }
        return false
    }

    /// A null: tagged `!!null`, or an untagged, unquoted empty, `~` or `null`.
    var isNull: Bool {
        guard case .scalar(let text, let tag, _) = content else { return false }
        if let tag { return tag == Self.nullTag }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    static let nullTag = "tag:yaml.org,2002:null"
    static let stringTag = "tag:yaml.org,2002:str"

    /// The single document in `text`, or nil when there is none (an empty file, comments only).
    static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        let composer = YAMLComposer(text)
        return try composer.singleDocument()
    }
}

/// A problem libyaml (or the composer) found, with the line it is on when known.
struct YAMLError: Error, CustomStringConvertible {
    var problem: String
    var line: Int?
    var description: String { line.map { "line \($0): \(problem)" } ?? problem }
}

/// Turns libyaml's events into `YAMLNode`s (the way Yams's composer did).
private final class YAMLComposer {
    private var parser = yaml_parser_t()
    /// The text as UTF-8 with a terminating NUL, alive as long as the parser reads it.
    private let bytes: ContiguousArray<CChar>
    private var anchors: [String: YAMLNode] = [:]

    init(_ text: String) {
        bytes = text.utf8CString
        yaml_parser_initialize(&parser)
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: buffer.count) { start in
                yaml_parser_set_input_string(&parser, start, buffer.count - 1)
            }
        }
    }

    deinit { yaml_parser_delete(&parser) }

    /// One event, copied out of libyaml's structure (which is freed at once).
    struct Event {
        var type: yaml_event_type_t
        var line: Int
        var anchor: String?
        var tag: String?
        var value = ""
        var plain = false
    }

    func next() throws(YAMLError) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else { throw error() }
        defer { yaml_event_delete(&event) }
        var result = Event(type: event.type, line: Int(event.start_mark.line) + 1)
        switch event.type {
        case YAML_ALIAS_EVENT:
            result.anchor = Self.string(event.data.alias.anchor)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            result.anchor = Self.string(scalar.anchor)
            result.tag = scalar.quoted_implicit == 1 ? YAMLNode.stringTag : Self.string(scalar.tag)
            var bytes = UnsafeBufferPointer(start: scalar.value, count: scalar.length)[...]
            // A byte-order mark libyaml left in a value is dropped, as Yams (through
            // Foundation's decoding) did.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            result.value = String(decoding: bytes, as: UTF8.self)
            result.plain = scalar.style == YAML_PLAIN_SCALAR_STYLE
        case YAML_SEQUENCE_START_EVENT:
            result.anchor = Self.string(event.data.sequence_start.anchor)
        case YAML_MAPPING_START_EVENT:
            result.anchor = Self.string(event.data.mapping_start.anchor)
        default:
            break
        }
        return result
    }

    func singleDocument() throws(YAMLError) -> YAMLNode? {
        _ = try next()  // stream start
        let start = try next()
        guard start.type != YAML_STREAM_END_EVENT else { return nil }
        let root = try node(from: try next())
        _ = try next()  // document end
        let after = try next()
        if after.type != YAML_STREAM_END_EVENT {
            throw YAMLError(problem: "but found another document", line: after.line)
        }
        return root
    }

    private func node(from event: Event) throws(YAMLError) -> YAMLNode {
        let node: YAMLNode
        switch event.type {
        case YAML_ALIAS_EVENT:
            guard let anchor = event.anchor, let target = anchors[anchor] else {
                throw YAMLError(problem: "found undefined alias", line: event.line)
            }
            return target
        case YAML_SCALAR_EVENT:
            node = YAMLNode(content: .scalar(event.value, tag: event.tag, plain: event.plain), line: event.line)
        case YAML_SEQUENCE_START_EVENT:
            var items: [YAMLNode] = []
            var next = try self.next()
            while next.type != YAML_SEQUENCE_END_EVENT {
                items.append(try self.node(from: next))
                next = try self.next()
            }
            node = YAMLNode(content: .sequence(items), line: event.line)
        case YAML_MAPPING_START_EVENT:
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var next = try self.next()
            while next.type != YAML_MAPPING_END_EVENT {
                let key = try self.node(from: next)
                let value = try self.node(from: try self.next())
                pairs.append((key, value))
                next = try self.next()
            }
            node = YAMLNode(content: .mapping(pairs), line: event.line)
        default:
            throw YAMLError(problem: "unexpected event \(event.type.rawValue)", line: event.line)
        }
        if let anchor = event.anchor { anchors[anchor] = node }
        return node
    }

    /// libyaml's error, with the line for scanner and parser errors (as Yams reported them).
    private func error() -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        switch parser.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(problem: "Memory error", line: nil)
        case YAML_READER_ERROR:
            // problem_offset counts bytes of the UTF-8 input.
            let offset = min(Int(parser.problem_offset), bytes.count - 1)
            let line = bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            return YAMLError(problem: problem, line: line)
        default:
            return YAMLError(problem: problem, line: Int(parser.problem_mark.line) + 1)
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
