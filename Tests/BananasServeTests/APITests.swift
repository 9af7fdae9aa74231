import BananasCore
import BananasFile
@testable import BananasServe
import BananasSync
import BananasTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Every endpoint of `bananas serve` and its errors (docs/serve.md, "The API").
@MainActor @Suite struct APITests {
    @Test func everyRequestNeedsAPairedDevice() async throws {
        let harness = Harness()
        defer { harness.close() }
        try await harness.app.test(.router) { @MainActor client in
            for path in ["/", "/api/list", "/api/events", "/api/device", "/api/suggestions?q=mi"] {
                do { let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .unauthorized, "\(path)")
                    #expect(!text(response).contains("Milk"))
                }
            }
            do { let response = try await client.execute(uri: "/api/edits", method: .post, body: edit(["op": "add", "name": "Milk"]))
                #expect(response.status == .unauthorized)
                #expect(json(response)["error"] == .string("not_paired"))
            }
            do { let response = try await client.execute(uri: "/api/list", method: .get, headers: .device(String(repeating: "0", count: 64)))
                #expect(response.status == .unauthorized)
            }
        }
        #expect(harness.store.list.items.isEmpty)
    }

    @Test func theStaticFilesAndThePairingPageArePublicAndHoldNoData() async throws {
        let harness = Harness()
        defer { harness.close() }
        _ = try harness.add("Secret cheese")
        try await harness.app.test(.router) { @MainActor client in
            for path in ["/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"] {
                do { let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .ok, "\(path)")
                    #expect(!text(response).contains("Secret cheese"))
                    #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                }
            }
        }
    }

    @Test func thePageIsServedWithAStrictPolicyAndNoInlineScript() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        try await harness.app.test(.router) { @MainActor client in
            do { let response = try await client.execute(uri: "/", method: .get, headers: .device(token))
                #expect(response.status == .ok)
                let policy = response.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("default-src 'none'"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(!policy.contains("unsafe-eval"))
                #expect(policy.contains("frame-ancestors 'none'"))
                let page = text(response)
                // Every script is a file of this server's; no inline script, no handler attribute.
                #expect(page.components(separatedBy: "<script").count == 2)
                #expect(page.contains("<script src=\"/app.js\" defer></script>"))
                #expect(page.range(of: #" on[a-z]+="#, options: .regularExpression) == nil)
            }
        }
        #expect(!Page.appJS.contains("innerHTML"))
        #expect(!Page.appJS.contains("insertAdjacentHTML"))
        #expect(!Page.appJS.contains("eval("))
    }

    @Test func theListComesWithTheStampsItShowsAndTextEscaped() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        let milk = try harness.add("Milk", section: "Dairy")
        _ = try harness.add("Evil\u{202E}txt.exe\u{1B}[31m", section: "Dairy")
        try await harness.app.test(.router) { @MainActor client in
            do { let response = try await client.execute(uri: "/api/list", method: .get, headers: .device(token))
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                let list = json(response)
                #expect(list["sections"] == .array([.string("Dairy")]))
                let items = list["items"]?.arrayValue?.compactMap(\.objectValue) ?? []
                #expect(items.count == 2)
                let shown = items.first { $0["id"]?.stringValue == milk.id }
                // Added and not edited since: one stamp for every field.
                #expect(shown?["seen"]?.stringValue == milk.stamps[.checked].encoded)
                let evil = items.first { $0["id"]?.stringValue != milk.id }?["name"]?.stringValue ?? ""
                #expect(!evil.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{1B}" })
                #expect(evil.contains("\\u{202E}"))
                #expect(list["state"]?.objectValue?["state"] != nil)
            }
            do { let response = try await client.execute(uri: "/api/device", method: .get, headers: .device(token))
                #expect(json(response)["name"] == .string("phone"))
            }
        }
    }

    @Test func addChecksAmountMoveDeleteRestoreAndClear() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        try await harness.app.test(.router) { @MainActor client in
            func send(_ fields: [String: JSONValue]) async throws -> (HTTPResponse.Status, [String: JSONValue]) {
                apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: edit(fields)), { ($0.status, json($0)) })
            }
            let id = "0F0E0D0C-0B0A-4908-8706-050403020100"
            var (status, answer) = try await send(["op": "add", "id": .string(id), "name": "Oat milk", "section": "Dairy", "amount": "2 L"])
            #expect(status == .ok)
            #expect(answer["outcome"] == .string("added"))
            let added = try #require(harness.store.list.item(id))
            #expect(added.amount == "2 L" && added.section == "Dairy")
            // A section is one of the list's whatever its case and spaces.
            (status, answer) = try await send(["op": "add", "name": "Cheese", "section": "  dairy "])
            #expect(status == .ok && harness.store.list.items.first { $0.name == "Cheese" }?.section == "Dairy")

            (status, answer) = try await send(["op": "check", "id": .string(id), "checked": true, "seen": WebList.stampsValue(added.stamps)])
            #expect(status == .ok && harness.store.list.item(id)?.checked == true)
            // Edited since: a stamp per field.
            let checked = try #require(harness.store.list.item(id))
            #expect(WebList.stampsValue(checked.stamps).objectValue?["checked"] == .string(checked.stamps[.checked].encoded))
            #expect(WebList.stampsValue(checked.stamps).objectValue?["name"] == .string(checked.stamps[.name].encoded))

            (status, _) = try await send(["op": "amount", "id": .string(id), "amount": "1 L"])
            #expect(status == .ok && harness.store.list.item(id)?.amount == "1 L")

            (status, _) = try await send(["op": "move", "id": .string(id), "section": "Drinks"])
            #expect(status == .ok && harness.store.list.item(id)?.section == "Drinks")
            #expect(harness.store.list.sections.contains("Drinks"))

            let current = try #require(harness.store.list.item(id))
            (status, answer) = try await send(["op": "clear_checked", "items": .array([.object(["id": .string(id), "seen": WebList.stampsValue(current.stamps)])])])
            #expect(status == .ok && answer["cleared"] == .number("1"))
            #expect(harness.store.list.item(id) == nil)

            (status, _) = try await send(["op": "restore", "id": .string(id)])
            #expect(status == .ok && harness.store.list.item(id) != nil)

            let back = try #require(harness.store.list.item(id))
            (status, answer) = try await send(["op": "delete", "id": .string(id), "seen": WebList.stampsValue(back.stamps)])
            #expect(status == .ok && answer["outcome"] == .string("deleted"))
            #expect(harness.store.list.item(id) == nil)
            #expect(harness.store.list.recentlyDeleted.contains { $0.item.id == id })
            // Deleting it again is harmless.
            (status, answer) = try await send(["op": "delete", "id": .string(id), "seen": WebList.stampsValue(back.stamps)])
            #expect(status == .ok && answer["outcome"] == .string("already_deleted"))
        }
        #expect(await harness.store.waitUntilFlushed())
        #expect(try harness.sandbox.decoded().recentlyDeleted.contains { $0.item.name == "Oat milk" })
    }

    /// Up and down within a section, as the editor's J/K: the order the list (and so every
    /// surface) shows changes, the other sections do not, and it is in the file.
    @Test func placeMovesAnItemWithinItsSection() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        for name in ["Milk", "Butter", "Cheese", "Yogurt"] { _ = try harness.add(name, section: "Dairy") }
        _ = try harness.add("Bread", section: "Bakery")
        func dairy() -> [String] { harness.store.list.items(in: "Dairy").map(\.name) }
        func id(_ name: String) -> JSONValue { .string(harness.store.list.items.first { $0.name == name }!.id) }
        try await harness.app.test(.router) { @MainActor client in
            func send(_ fields: [String: JSONValue]) async throws -> (HTTPResponse.Status, [String: JSONValue]) {
                apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: edit(fields)), { ($0.status, json($0)) })
            }
            // Cheese up one: after Milk.
            var (status, answer) = try await send(["op": "place", "id": id("Cheese"), "after": id("Milk")])
            #expect(status == .ok && answer["outcome"] == .string("placed"))
            #expect(dairy() == ["Milk", "Cheese", "Butter", "Yogurt"])
            // Cheese up again: first.
            (status, _) = try await send(["op": "place", "id": id("Cheese"), "after": .null])
            #expect(status == .ok)
            #expect(dairy() == ["Cheese", "Milk", "Butter", "Yogurt"])
            // Milk down one: after Butter; then to the end.
            (status, _) = try await send(["op": "place", "id": id("Milk"), "after": id("Butter")])
            (status, _) = try await send(["op": "place", "id": id("Milk"), "after": id("Yogurt")])
            #expect(status == .ok)
            #expect(dairy() == ["Cheese", "Butter", "Yogurt", "Milk"])
            // Where it is already: nothing changes.
            let revision = harness.store.revision
            (status, answer) = try await send(["op": "place", "id": id("Cheese"), "after": .null])
            #expect(status == .ok && harness.store.revision == revision)
            // An item of another section, or one deleted since: refused, nothing moved.
            (status, answer) = try await send(["op": "place", "id": id("Milk"), "after": id("Bread")])
            #expect(status == .conflict && answer["error"] == .string("changed"))
            (status, answer) = try await send(["op": "place", "id": id("Milk"), "after": id("Milk")])
            #expect(status == .badRequest)
            (status, answer) = try await send(["op": "place", "id": id("Milk"), "after": 3])
            #expect(status == .badRequest)
            (status, answer) = try await send(["op": "place", "id": "00000000-0000-4000-8000-000000000000", "after": .null])
            #expect(status == .notFound)
            #expect(dairy() == ["Cheese", "Butter", "Yogurt", "Milk"])
            #expect(harness.store.list.items(in: "Bakery").map(\.name) == ["Bread"])
            // The list the page reads is in that order too.
            let listed = apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { json($0) })
            let names = listed["items"]?.arrayValue?.compactMap { $0.objectValue?["section"] == .string("Dairy") ? $0.objectValue?["name"]?.stringValue : nil }
            #expect(names == ["Cheese", "Butter", "Yogurt", "Milk"])
        }
        #expect(await harness.store.waitUntilFlushed())
        #expect(try harness.sandbox.decoded().items(in: "Dairy").map(\.name) == ["Cheese", "Butter", "Yogurt", "Milk"])
    }

    @Test func aRepeatedRequestChangesNothingTwice() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        try await harness.app.test(.router) { @MainActor client in
            let request = edit(["key": "same-key-123", "op": "add", "name": "Bread"])
            let first = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: request), { json($0) })
            let again = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: request), { json($0) })
            #expect(first["outcome"] == .string("added"))
            #expect(again["outcome"] == .string("added"))
            #expect(again["replayed"] == .bool(true))
        }
        #expect(harness.store.list.items.filter { $0.name == "Bread" }.count == 1)
        // A server that forgot its answers (restarted) still adds the page's item once: the
        // page names it.
        let fresh = WebList(store: harness.store)
        let id = "11111111-2222-4333-8444-555555555555"
        for key in ["first-key-1", "retry-key-2"] {
            _ = fresh.edit(.object(["key": .string(key), "op": "add", "id": .string(id), "name": "Jam"]))
        }
        #expect(harness.store.list.items.filter { $0.name == "Jam" }.count == 1)
    }

    @Test func aValueChangedSinceThePageShowedItGoesToReview() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        let milk = try harness.add("Milk")
        let seenByPage = milk.stamps
        // Meanwhile, on the laptop.
        _ = try harness.store.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "edit")
        try await harness.app.test(.router) { @MainActor client in
            let status = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                  body: edit(["op": "amount", "id": .string(milk.id), "amount": "1 L",
                                                              "seen": .object(["amount": .string(seenByPage[.amount].encoded)])])), { $0.status })
            #expect(status == .ok)
            // The page's value wins (it is the newer edit); the laptop's is kept for review.
            #expect(harness.store.list.item(milk.id)?.amount == "1 L")
            let conflicts = harness.store.list.conflictList()
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.lost == .text("2 L"))
            let listed = apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { json($0) })
            #expect(listed["conflicts"]?.arrayValue?.count == 1)
            #expect(listed["state"]?.objectValue?["state"] == .string("conflict"))

            // A delete of the version the page saw is refused: the item changed since.
            let refused = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                   body: edit(["op": "delete", "id": .string(milk.id), "seen": WebList.stampsValue(seenByPage)])), { ($0.status, json($0)) })
            #expect(refused.0 == .conflict)
            #expect(refused.1["error"] == .string("changed"))
            #expect(harness.store.list.item(milk.id) != nil)

            // Review: restore the lost value, from the page.
            let id = try #require(conflicts.first?.id)
            let restored = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                    body: edit(["op": "conflict", "id": .string(id), "action": "restore"])), { $0.status })
            #expect(restored == .ok)
            #expect(harness.store.list.item(milk.id)?.amount == "2 L")
            #expect(harness.store.list.conflictList().isEmpty)
        }
    }

    @Test func dismissingAConflictKeepsTheCurrentValue() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        let milk = try harness.add("Milk")
        _ = try harness.store.perform(.update(id: milk.id, changes: [.amount: .text("2 L")]), label: "edit")
        _ = try harness.store.perform(.update(id: milk.id, changes: [.amount: .text("3 L")], seen: [.amount: milk.stamps[.amount]]), label: "edit")
        let id = try #require(harness.store.list.conflictList().first?.id)
        try await harness.app.test(.router) { @MainActor client in
            let status = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                  body: edit(["op": "conflict", "id": .string(id), "action": "dismiss"])), { $0.status })
            #expect(status == .ok)
        }
        #expect(harness.store.list.conflictList().isEmpty)
        #expect(harness.store.list.item(milk.id)?.amount == "3 L")
    }

    @Test func badEditsAreRefusedWithAReasonAndChangeNothing() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        let milk = try harness.add("Milk")
        let before = harness.store.list
        let cases: [(ByteBuffer, HTTPResponse.Status, String)] = [
            (body("not json"), .badRequest, "bad_request"),
            (body("[1, 2]"), .badRequest, "bad_request"),
            (body(.object(["op": "add", "name": "Tea"])), .badRequest, "bad_request"),  // no key
            (body(.object(["key": "short", "op": "add", "name": "Tea"])), .badRequest, "bad_request"),
            (edit(["op": "fly"]), .badRequest, "bad_request"),
            (edit(["op": "add"]), .badRequest, "bad_request"),
            (edit(["op": "add", "name": 42]), .badRequest, "bad_request"),
            (edit(["op": "add", "name": .string(String(repeating: "x", count: 1_000_000))]), .badRequest, "invalid_text"),
            (edit(["op": "add", "name": "   "]), .badRequest, "invalid_text"),
            (edit(["op": "add", "name": "Tea", "id": "not-a-uuid"]), .badRequest, "bad_request"),
            (edit(["op": "amount", "id": .string(milk.id), "amount": .string(String(repeating: "9", count: 101))]), .badRequest, "invalid_text"),
            (edit(["op": "check", "id": "nope", "checked": true]), .notFound, "not_found"),
            (edit(["op": "check", "id": .string(milk.id)]), .badRequest, "bad_request"),
            (edit(["op": "check", "id": .string(milk.id), "checked": true, "seen": .object(["checked": "garbage"])]), .badRequest, "bad_request"),
            (edit(["op": "delete", "id": "nope"]), .notFound, "not_found"),
            (edit(["op": "restore", "id": "nope"]), .notFound, "not_found"),
            (edit(["op": "conflict", "id": "nope", "action": "restore"]), .notFound, "not_found"),
            (edit(["op": "clear_checked"]), .badRequest, "bad_request"),
            (edit(["op": "move", "id": .string(milk.id)]), .badRequest, "bad_request"),
        ]
        try await harness.app.test(.router) { @MainActor client in
            for (request, status, code) in cases {
                let (got, answer) = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: request), { ($0.status, json($0)) })
                #expect(got == status, "\(String(buffer: request).prefix(120))")
                #expect(answer["error"] == .string(code), "\(String(buffer: request).prefix(120))")
                #expect(answer["ok"] == .bool(false))
                #expect((answer["message"]?.stringValue ?? "").isEmpty == false)
            }
            do { let response = try await client.execute(uri: "/api/nothing-here", method: .get, headers: .device(token))
                #expect(response.status == .notFound)
                #expect(response.headers[.contentSecurityPolicy] != nil)
            }
        }
        #expect(harness.store.list.items == before.items)
    }

    @Test func suggestionsComeFromTheRememberedItems() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        let milk = try harness.add("Milk", section: "Dairy")
        _ = try harness.store.perform(.delete(id: milk.id), label: "remove")
        try await harness.app.test(.router) { @MainActor client in
            let response = try await client.execute(uri: "/api/suggestions?q=mil", method: .get, headers: .device(token))
            let found = JSONText.compact((try? JSONText.parse(Array(response.body.readableBytesView))) ?? .null)
            #expect(found.contains("\"name\":\"Milk\""))
            #expect(found.contains("\"section\":\"Dairy\""))
            let none = apply(try await client.execute(uri: "/api/suggestions", method: .get, headers: .device(token)), { text($0) })
            #expect(none == "[]")
        }
    }

    /// Where an item will go before it is added (issue 57): the core's placement rule, as the
    /// add itself places it and says it.
    @Test func placementSaysWhereANameWillGoAndWhy() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        _ = try harness.add("Milk", section: "Fridge")
        try await harness.app.test(.router) { @MainActor client in
            func placement(_ name: String) async throws -> [String: JSONValue] {
                let response = try await client.execute(uri: "/api/placement?name=\(name)", method: .get, headers: .device(token))
                #expect(response.status == .ok)
                return (try? JSONText.parse(Array(response.body.readableBytesView)))?.objectValue ?? [:]
            }
            let tortillas = try await placement("tortillas")
            #expect(tortillas["section"] == .string("Bakery") && tortillas["text"] == .string("under Bakery (usual for tortillas)"))
            #expect(try await placement("sour%20cream")["text"] == .string("under Fridge (usual for sour cream)"), "the list's own name for Dairy")
            #expect(try await placement("Zorblax")["text"] == .string("under Other (not in the catalogue)"))
            #expect(try await placement("%20") == [:])
            let added = try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                 body: edit(["op": "add", "name": "tortillas"]))
            #expect(json(added)["message"] == .string("Added tortillas under Bakery (usual for tortillas)."), "\(json(added))")
        }
    }

    @Test func pairingExchangesACodeForACookieOnce() async throws {
        let harness = Harness()
        defer { harness.close() }
        let code = try harness.registry.newCode()
        try await harness.app.test(.router) { @MainActor client in
            let wrong = apply(try await client.execute(uri: "/api/pair", method: .post, body: body(.object(["code": "WRONGCOD", "name": "x"]))), { ($0.status, json($0)) })
            #expect(wrong.0 == .forbidden && wrong.1["error"] == .string("bad_code"))
            let bad = try await client.execute(uri: "/api/pair", method: .post, body: body("{}")).status
            #expect(bad == .badRequest)
            let spaced = code.code.prefix(4).lowercased() + "-" + code.code.dropFirst(4).lowercased()
            let paired = try await client.execute(uri: "/api/pair", method: .post, body: body(.object(["code": .string(spaced), "name": "Ana's phone"])))
            let (status, cookie) = (paired.status, paired.headers[.setCookie] ?? "")
            #expect(status == .ok)
            #expect(cookie.hasPrefix(Gate.cookieName + "="))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(!cookie.contains("Secure"))  // plain HTTP: a Secure cookie would never come back
            let again = apply(try await client.execute(uri: "/api/pair", method: .post, body: body(.object(["code": .string(code.code)]))), { $0.status })
            #expect(again == .forbidden)
            // The cookie opens the list.
            let token = String(cookie.dropFirst(Gate.cookieName.count + 1).prefix { $0 != ";" })
            let listed = apply(try await client.execute(uri: "/api/list", method: .get, headers: [.cookie: Gate.cookieName + "=" + token]), { $0.status })
            #expect(listed == .ok)
        }
        #expect(try harness.registry.devices().map(\.name) == ["Ana's phone"])
    }

    @Test func overHTTPSTheCookieIsSecure() async throws {
        let harness = Harness(settings: Gate.Settings(tls: true))
        defer { harness.close() }
        let code = try harness.registry.newCode()
        try await harness.app.test(.router) { @MainActor client in
            let cookie = apply(try await client.execute(uri: "/api/pair", method: .post, headers: [.origin: "https://localhost"],
                                                  body: body(.object(["code": .string(code.code)]))), { $0.headers[.setCookie] ?? "" })
            #expect(cookie.contains("Secure"))
        }
    }

    @Test func writesAndPairingAreRateLimited() async throws {
        let harness = Harness(writeLimit: RateLimiter(capacity: 3, perSecond: 0.001), pairingLimit: RateLimiter(capacity: 2, perSecond: 0.001))
        defer { harness.close() }
        let token = try harness.pair()
        try await harness.app.test(.router) { @MainActor client in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<5 {
                statuses.append(apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                         body: edit(["op": "add", "name": .string("Item \(index)")])), { $0.status }))
            }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests])
            // Reading is not limited.
            #expect(apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { $0.status }) == .ok)
            var pairing: [HTTPResponse.Status] = []
            for _ in 0..<3 {
                pairing.append(apply(try await client.execute(uri: "/api/pair", method: .post, body: body(.object(["code": "AAAAAAAA"]))), { $0.status }))
            }
            #expect(pairing == [.forbidden, .forbidden, .tooManyRequests])
        }
        #expect(harness.store.list.items.count == 3)
    }

    @Test func aRevokedDeviceIsRefusedAtOnce() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair("kitchen")
        try await harness.app.test(.router) { @MainActor client in
            #expect(apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { $0.status }) == .ok)
            // Revoked by another process (`bananas devices revoke`): a registry of its own.
            try DeviceRegistry(stateDirectory: harness.sandbox.stateDirectory).revoke(name: "kitchen")
            #expect(apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { $0.status }) == .unauthorized)
            #expect(apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token), body: edit(["op": "add", "name": "Tea"])), { $0.status }) == .unauthorized)
        }
        #expect(harness.store.list.items.isEmpty)
    }

    @Test func theEventStreamSendsEveryChangeAndEndsForARevokedDevice() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair("kitchen")
        let (id, stream) = harness.events.listen(token: token)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next() ?? ""
        #expect(first.contains("event: list"))
        _ = try harness.add("Coffee")
        let next = await iterator.next() ?? ""
        #expect(next.hasPrefix("event: list\ndata: {"))
        #expect(next.contains("Coffee"))
        #expect(next.hasSuffix("\n\n"))
        try harness.registry.revoke(name: "kitchen")
        _ = try harness.add("Tea")
        // The change is not sent; the stream ends.
        #expect(await iterator.next() == nil)
        harness.events.stop(id)
        #expect(harness.events.count == 0)
    }

    @Test func aListThatCannotBeWrittenRefusesEditsAndSaysWhy() async throws {
        let harness = Harness()
        defer { harness.close() }
        let token = try harness.pair()
        // A file from a newer bananas: readable, never written.
        harness.sandbox.write(#"{"schemaVersion": 99, "sections": ["Dairy"], "items": [{"id": "A1B2C3D4-0000-4000-8000-000000000001", "name": "Milk", "amount": "", "section": "Dairy", "checked": false, "optional": false}]}"#)
        #expect(await eventually(timeout: 30) { harness.store.status.pausedBy != nil })
        try await harness.app.test(.router) { @MainActor client in
            let (status, answer) = apply(try await client.execute(uri: "/api/edits", method: .post, headers: .device(token),
                                                                  body: edit(["op": "add", "name": "Tea"])), { ($0.status, json($0)) })
            #expect(status == .conflict)
            #expect(answer["error"] == .string("paused"))
            let listed = apply(try await client.execute(uri: "/api/list", method: .get, headers: .device(token)), { json($0) })
            #expect(listed["state"]?.objectValue?["state"] == .string("paused"))
            #expect((listed["state"]?.objectValue?["paused"]?.stringValue ?? "").isEmpty == false)
        }
        #expect(!harness.store.list.items.contains { $0.name == "Tea" })
    }
}
