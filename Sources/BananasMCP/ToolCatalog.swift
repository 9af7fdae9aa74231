import BananasCore
import MCP

/// Every tool the server offers: names, titles, descriptions written for a model, input
/// schemas with limits (enforced by `SchemaCheck`), output schemas (what `structuredContent`
/// holds) and honest annotations.
enum ToolCatalog {
    static let maxBatch = 500

    static var all: [Tool] {
        [getShoppingList, suggestItems, addItems, updateItems, removeItems, clearChecked, addSections, updateSections, removeSections, undo,
         addItem, removeItem, updateItem, updateShoppingList]
    }

    static var names: [String] { all.map(\.name) }

    /// The refusal of a tool this server does not have (a JSON-RPC `invalidParams` error, as
    /// the spec has it), or nil for one of its tools.
    static func refusal(forUnknown name: String, arguments: [String: Value] = [:]) -> String? {
        guard !names.contains(name) else { return nil }
        return "There is no tool named \(TextRules.escaped(name)). The tools are: \(names.joined(separator: ", ")). Nothing was changed."
    }

    // MARK: Schema pieces

    static func object(_ properties: [String: Value], required: [String] = []) -> Value {
        var schema: [String: Value] = [
            "type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false),
        ]
        if !required.isEmpty { schema["required"] = .array(required.map(Value.string)) }
        return .object(schema)
    }

    static func string(_ max: Int, _ description: String) -> Value {
        .object(["type": .string("string"), "maxLength": .int(max), "description": .string(description)])
    }

    static func flag(_ description: String) -> Value {
        .object(["type": .string("boolean"), "description": .string(description)])
    }

    static func position(_ description: String) -> Value {
        .object(["type": .string("integer"), "minimum": .int(1), "description": .string(description)])
    }

    static let expectedRevision: Value = .object([
        "type": .string("string"), "maxLength": .int(16), "pattern": .string("^[0-9a-f]{1,16}$"),
        "description": .string("revision you read: if the list changed since, nothing is done"),
    ])

    /// `{key: [entry, ...], expected_revision?, extra...}`: the shape of every batch tool.
    static func batch(_ key: String, _ entry: [String: Value], required: [String], extra: [String: Value] = [:]) -> Value {
        var properties = extra
        properties[key] = .object([
            "type": .string("array"), "minItems": .int(1), "maxItems": .int(maxBatch),
            "items": object(entry, required: required),
        ])
        properties["expected_revision"] = expectedRevision
        return object(properties, required: [key])
    }

    static let itemRef = string(500, "id, id start (4+ characters) or exact name")
    static let sectionRef = string(TextRules.maxSection, "The section's name (any case).")

    /// What every mutating tool answers besides its per-entry results. The meaning of each
    /// field is in the instructions, once, not in every tool's schema: `tools/list` is sent
    /// in every session and stays under 16 KB.
    static let writeState: [String: Value] = [
        "revision": .object(["type": .string("string")]),
        "written": .object(["type": .string("boolean")]),
    ]

    static func resultsSchema(_ entry: [String: Value], required: [String]) -> Value {
        var properties = writeState
        properties["results"] = .object([
            "type": .string("array"),
            "items": .object([
                "type": .string("object"), "properties": .object(entry),
                "required": .array(required.map(Value.string)),
            ]),
        ])
        return .object([
            "type": .string("object"), "properties": .object(properties),
            "required": .array(["results", "revision", "written"].map(Value.string)),
        ])
    }


    static let itemResults = resultsSchema([
        "entry": .object(["type": .string("integer")]),
        "item": .object(["type": .string("string")]),
        "status": .object(["type": .string("string"), "enum": .array(["added", "already_on_list", "unchecked", "updated", "removed", "error"].map(Value.string))]),
        "id": .object(["type": .string("string")]),
    ], required: ["entry", "item", "status"])

    static let sectionResults = resultsSchema([
        "entry": .object(["type": .string("integer")]),
        "section": .object(["type": .string("string")]),
        "status": .object(["type": .string("string"), "enum": .array(["added", "already_exists", "updated", "removed", "error"].map(Value.string))]),
    ], required: ["entry", "section", "status"])

    static func annotations(_ title: String, readOnly: Bool = false, destructive: Bool, idempotent: Bool) -> Tool.Annotations {
        // The title is the tool's own `title`: not repeated here (tools/list goes to every session).
        .init(title: nil, readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: false)
    }

    // MARK: Tools

    static let getShoppingList = Tool(
        name: "get_shopping_list",
        title: "Read the shopping list",
        description: """
            The shopping list a page at a time: items in order (id, name, amount, section, \
            checked, optional) and their sections, total_items, matching_items, has_more. While \
            has_more, call again with cursor: next_cursor (same filters and mode). mode: "full" \
            (default), "compact" (name, amount when set, section, checked: most items a page) or "summary" (every \
            section with counts: start here on a long list). Filters: section (any case), \
            unchecked_only, text (part of a name or amount). limit: items a page (default \
            \(ListPage.defaultLimit)). Pass `revision` as expected_revision to edit only if \
            nobody changed the list since. `sync` says whether the file is up to date.
            """,
        inputSchema: object([
            "section": string(TextRules.maxSection, "Only items in this section."),
            "unchecked_only": flag("Only items still to buy."),
            "text": string(TextRules.maxName, "part of a name or amount"),
            "mode": .object([
                "type": .string("string"), "enum": .array(ListPage.Mode.allCases.map { .string($0.rawValue) }),
                "description": .string("full, compact or summary"),
            ]),
            "limit": .object([
                "type": .string("integer"), "minimum": .int(1), "maximum": .int(ListPage.maxLimit),
                "description": .string("items a page"),
            ]),
            "cursor": string(200, "next_cursor of the page before"),
        ]),
        annotations: annotations("Read the shopping list", readOnly: true, destructive: false, idempotent: true),
        outputSchema: .object([
            "type": .string("object"),
            "properties": .object([
                "revision": .object(["type": .string("string")]),
                "sections": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
                "items": .object(["type": .string("array"), "items": pageItemSchema]),
                "mode": .object(["type": .string("string")]),
                "total_items": .object(["type": .string("integer")]),
                "unchecked_items": .object(["type": .string("integer")]),
                "matching_items": .object(["type": .string("integer")]),
                "has_more": .object(["type": .string("boolean")]),
                "next_cursor": .object(["type": .string("string")]),
                "section_counts": .object([
                    "type": .string("array"),
                    "items": .object([
                        "type": .string("object"),
                        "properties": .object([
                            "section": .object(["type": .string("string")]),
                            "items": .object(["type": .string("integer")]),
                            "unchecked": .object(["type": .string("integer")]),
                        ]),
                        "required": .array(["section", "items", "unchecked"].map(Value.string)),
                    ]),
                ]),
                "sync": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "state": .object(["type": .string("string"), "enum": .array(["synced", "pending", "conflict", "paused"].map(Value.string))]),
                        "paused": .object(["type": .string("string")]),
                        "detail": .object(["type": .string("string")]),
                        "pending": .object(["type": .string("integer")]),
                        "clock_skew_seconds": .object(["type": .string("integer")]),
                        "clock_skew_replica": .object(["type": .string("string")]),
                        "recently_deleted": .object(["type": .string("array"), "items": .object(["type": .string("object")])]),
                    ]),
                    "required": .array([.string("state")]),
                ]),
            ]),
            "required": .array(["revision", "sections", "items", "total_items", "matching_items", "has_more", "sync"].map(Value.string)),
        ]))

    /// An item in a page: every field in full mode, name, section and checked in compact mode.
    static let pageItemSchema: Value = .object([
        "type": .string("object"),
        "properties": .object([
            "id": .object(["type": .string("string")]),
            "name": .object(["type": .string("string")]),
            "amount": .object(["type": .string("string")]),
            "section": .object(["type": .string("string")]),
            "checked": .object(["type": .string("boolean")]),
            "optional": .object(["type": .string("boolean")]),
        ]),
        "required": .array(["name", "section", "checked"].map(Value.string)),
    ])

    static let addItems = Tool(
        name: "add_items", title: "Add items",
        description: """
            Adds items in one call ("add bananas, milk and bread" is one call). Each entry: name, \
            and optionally amount ("2 L"), section (matched in any case, created if new), optional \
            (nice-to-have). Without section, an item bought before goes where it was last time \
            (with its usual amount), any other to its usual section (tortillas: Bakery) or \
            "Other"; each note says where and why. A name already on \
            the list unchecked is not added twice: already_on_list with its id (allow_duplicates \
            insists); a checked one is unchecked instead.
            """,
        inputSchema: batch("items", [
            "name": string(TextRules.maxName, "What to buy."),
            "amount": string(TextRules.maxAmount, "How much, free text."),
            "section": string(TextRules.maxSection, "Where it is in the shop, e.g. Dairy."),
            "optional": flag("Nice to have, not needed."),
        ], required: ["name"], extra: [
            "allow_duplicates": flag("add even if on the list"),
        ]),
        annotations: annotations("Add items", destructive: false, idempotent: false),
        outputSchema: itemResults)

    static let suggestItems = Tool(
        name: "suggest_items", title: "Suggest usual items",
        description: """
            The items the user usually buys that are not on the list, most useful first, with \
            their last section and amount, times bought and when last. With text: remembered \
            names matching it, typos allowed ("mlik" finds Milk). "Add what I usually buy": call \
            this, then add_items with the names alone (each goes where it was last).
            """,
        inputSchema: object([
            "text": string(TextRules.maxName, "Only names matching this (typos allowed)."),
            "limit": .object([
                "type": .string("integer"), "minimum": .int(1), "maximum": .int(200),
                "description": .string("Most suggestions (default 30)."),
            ]),
        ]),
        annotations: annotations("Suggest usual items", readOnly: true, destructive: false, idempotent: true),
        outputSchema: .object([
            "type": .string("object"),
            "properties": .object([
                "suggestions": .object(["type": .string("array"), "items": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "name": .object(["type": .string("string")]),
                        "section": .object(["type": .string("string")]),
                        "amount": .object(["type": .string("string")]),
                        "optional": .object(["type": .string("boolean")]),
                        "times_bought": .object(["type": .string("integer")]),
                        "last_bought": .object(["type": .string("string"), "description": .string("ISO 8601 date of the last purchase.")]),
                    ]),
                    "required": .array(["name", "section", "times_bought"].map(Value.string)),
                ])]),
            ]),
            "required": .array([.string("suggestions")]),
        ]))

    static let updateItems = Tool(
        name: "update_items", title: "Change items",
        description: """
            Changes items: each entry names an item ("item": id, id prefix or exact name) and the \
            fields to change: name, amount, section (moves it; created if new), checked, optional, \
            position (1-based place in its section). Checking off is {"item": "Milk", "checked": \
            true}. A name matching several items fails with candidates and ids: retry with an id. \
            A rename to another item's name answers already_on_list (allow_duplicates insists). \
            `previous` holds the values replaced; undo sets them back.
            """,
        inputSchema: batch("items", [
            "item": itemRef,
            "name": string(TextRules.maxName, "New name."),
            "amount": string(TextRules.maxAmount, "New amount (empty to clear)."),
            "section": string(TextRules.maxSection, "Move to this section."),
            "checked": flag("Bought (true) or still to buy (false)."),
            "optional": flag("Nice to have (true) or needed (false)."),
            "position": position("1-based place within the item's section."),
        ], required: ["item"], extra: [
            "allow_duplicates": flag("Rename even when another item already has the new name."),
        ]),
        annotations: annotations("Change items", destructive: true, idempotent: true),
        outputSchema: itemResults)

    static let removeItems = Tool(
        name: "remove_items", title: "Remove items",
        description: """
            Removes items (destructive). Each entry: {"item": id, id prefix or exact name}. Each \
            result's `previous` holds the removed item's fields. To restore: undo (your last \
            edits), or add_items with those name, amount and section.
            """,
        inputSchema: batch("items", ["item": itemRef], required: ["item"]),
        annotations: annotations("Remove items", destructive: true, idempotent: true),
        outputSchema: itemResults)

    static let undo = Tool(
        name: "undo", title: "Undo your last edits",
        description: """
            Undoes the last edits made through this connection (yours, newest first; steps: how \
            many calls, default 1), removed items included. A value someone else changed since \
            is never overwritten: that edit is left as it is, and `refused` says why.
            """,
        inputSchema: object(["steps": .object(["type": .string("integer"), "minimum": .int(1), "maximum": .int(20)])]),
        annotations: annotations("Undo your last edits", destructive: true, idempotent: false),
        outputSchema: .object([
            "type": .string("object"),
            "properties": .object([
                "undone": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
                "refused": .object(["type": .string("string")]),
                "changed": .object(["type": .string("object")]),
            ].merging(writeState) { first, _ in first }),
            "required": .array(["undone", "revision", "written"].map(Value.string)),
        ]))

    static let clearChecked = Tool(
        name: "clear_checked", title: "Clear checked items",
        description: "Removes every checked item (destructive). One result per item, with its fields in `previous`; undo restores them.",
        inputSchema: object(["expected_revision": expectedRevision]),
        annotations: annotations("Clear checked items", destructive: true, idempotent: true),
        outputSchema: itemResults)

    static let addSections = Tool(
        name: "add_sections", title: "Add sections",
        description: """
            Adds empty sections (aisles or shops, e.g. "Produce") to the list. Each entry: name, \
            and optionally position (1-based place in the section order; default at the end). A \
            section that exists already (any case) answers already_exists. Items get a section \
            through add_items or update_items, which create missing sections themselves.
            """,
        inputSchema: batch("sections", [
            "name": string(TextRules.maxSection, "The new section's name."),
            "position": position("1-based place in the section order."),
        ], required: ["name"]),
        annotations: annotations("Add sections", destructive: false, idempotent: true),
        outputSchema: sectionResults)

    static let updateSections = Tool(
        name: "update_sections", title: "Rename or reorder sections",
        description: """
            Renames sections (their items follow) and moves them in the section order. Each entry: \
            section (its name, any case), and name (the new name) and/or position (1-based place \
            in the section order). To move items to another section use update_items.
            """,
        inputSchema: batch("sections", [
            "section": sectionRef,
            "name": string(TextRules.maxSection, "New name."),
            "position": position("1-based place in the section order."),
        ], required: ["section"]),
        annotations: annotations("Rename or reorder sections", destructive: true, idempotent: true),
        outputSchema: sectionResults)

    static let removeSections = Tool(
        name: "remove_sections", title: "Remove sections",
        description: """
            Removes sections (destructive). Each entry: section, and for a section that still \
            holds items either move_items_to (a section; created if new) or delete_items: true. \
            A section with items and neither is refused.
            """,
        inputSchema: batch("sections", [
            "section": sectionRef,
            "move_items_to": string(TextRules.maxSection, "Move the section's items here."),
            "delete_items": flag("Remove the section's items too."),
        ], required: ["section"]),
        annotations: annotations("Remove sections", destructive: true, idempotent: true),
        outputSchema: sectionResults)

    // MARK: Get Bananas's tools (GetBananasTools)

    /// One item's answer: the entry, and `item` as it is now (the list file's item shape).
    static let oneItemResult: Value = {
        guard case .object(var schema) = itemResults, case .object(var properties)? = schema["properties"] else { return itemResults }
        properties["item"] = .object(["type": .string("object"), "properties": pageItemSchema.objectValue?["properties"] ?? .object([:])])
        schema["properties"] = .object(properties)
        return .object(schema)
    }()

    static let addItem = Tool(
        name: "add_item", title: "Add an item",
        description: """
            Get Bananas's add: one item (name; amount, section, optional). As add_items: without \
            section it goes where it was last time, else to its usual section (the note says \
            where and why). For several items prefer add_items, one call.
            """,
        inputSchema: object([
            "name": string(TextRules.maxName, "What to buy."),
            "amount": string(TextRules.maxAmount, "How much."),
            "section": string(TextRules.maxSection, "Section, e.g. Dairy."),
            "optional": flag("Nice to have."),
            "expected_revision": expectedRevision,
        ], required: ["name"]),
        annotations: annotations("Add an item", destructive: false, idempotent: false),
        outputSchema: oneItemResult)

    static let removeItem = Tool(
        name: "remove_item", title: "Remove an item",
        description: "Get Bananas's remove: one item, by id or exact name. `previous` holds its fields; undo restores it.",
        inputSchema: object([
            "id": string(200, "The item's id (or a unique start of it)."),
            "name": string(TextRules.maxName, "The item's exact name (any case), without id."),
            "expected_revision": expectedRevision,
        ]),
        annotations: annotations("Remove an item", destructive: true, idempotent: true),
        outputSchema: oneItemResult)

    static let updateItem = Tool(
        name: "update_item", title: "Change an item",
        description: """
            Get Bananas's update: one item, by id (then name is its new name) or by exact name \
            (then new_name renames it); only the fields given change: amount, section, checked \
            (bought), optional.
            """,
        inputSchema: object([
            "id": string(200, "The item's id."),
            "name": string(TextRules.maxName, "With id: the new name. Without: the item's name."),
            "new_name": string(TextRules.maxName, "New name."),
            "amount": string(TextRules.maxAmount, "New amount (empty clears)."),
            "section": string(TextRules.maxSection, "Move to this section."),
            "checked": flag("Bought (true) or to buy (false)."),
            "optional": flag("Nice to have."),
            "expected_revision": expectedRevision,
        ]),
        annotations: annotations("Change an item", destructive: true, idempotent: true),
        outputSchema: oneItemResult)

    static let updateShoppingList = Tool(
        name: "update_shopping_list", title: "Replace the whole list",
        description: """
            Get Bananas's whole-list save: items (each name; id, amount, section, checked, \
            optional) and optionally sections. Taken in as a Get Bananas save, never a blind \
            overwrite: what others added or changed meanwhile stays; items you leave out are \
            removed (restorable) when you read them first. An item without id is the list's \
            item of that name. Prefer the item tools for small changes.
            """,
        inputSchema: object([
            "items": .object([
                "type": .string("array"), "maxItems": .int(maxWholeList),
                "items": object([
                    "id": string(200, "The item's id."),
                    "name": string(TextRules.maxName, "Name."),
                    "amount": string(TextRules.maxAmount, "Amount."),
                    "section": string(TextRules.maxSection, "Section."),
                    "checked": flag("Bought."),
                    "optional": flag("Nice to have."),
                ], required: ["name"]),
            ]),
            "sections": .object([
                "type": .string("array"), "maxItems": .int(maxWholeList),
                "items": .object(["type": .string("string"), "maxLength": .int(TextRules.maxSection)]),
            ]),
            "expected_revision": expectedRevision,
        ], required: ["items"]),
        annotations: annotations("Replace the whole list", destructive: true, idempotent: true),
        outputSchema: .object([
            "type": .string("object"),
            "properties": .object([
                "changed": .object(["type": .string("object")]),
                "review": .object(["type": .string("integer")]),
            ].merging(writeState) { first, _ in first }),
            "required": .array(["changed", "revision", "written"].map(Value.string)),
        ]))

    /// The most items and sections a whole-list save takes.
    static let maxWholeList = 5_000
}
