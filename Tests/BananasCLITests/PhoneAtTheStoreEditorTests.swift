import Foundation
import Testing

/// Issue 38's failures 1 and 3 with the editor in tmux as the laptop's running instance: what
/// its screen shows is what the user checks, then `bananas list`, `deleted` and `conflicts`.
@Suite("The phone at the store, the editor open on the laptop (issue 38)", .serialized,
       .enabled(if: Tmux.isAvailable, "tmux is not installed"))
struct PhoneAtTheStoreEditorTests {
    typealias Laptop = PhoneAtTheStoreTests.Laptop
    typealias Phone = PhoneAtTheStoreTests.Phone

    func editor(_ laptop: Laptop) throws -> Tmux {
        try Tmux(laptop.cli, width: 70, height: 16, environment: laptop.environment)
    }

    @Test("1: check, then clear checked, on the phone: the editor shows Milk checked, then gone; it is in bananas deleted")
    func checkThenClearUnderTheEditor() async throws {
        let laptop = Laptop()
        defer { laptop.cleanUp() }
        await laptop("add", "Milk", "Eggs", "Bread", "--section", "Shop")
        let tmux = try editor(laptop)
        #expect(tmux.waitFor("Bread"))

        var phone = Phone()
        try phone.read(laptop.listPath)
        try phone.set("Milk", "checked", true)
        try phone.save(to: laptop.listPath)
        #expect(tmux.waitFor("[x] Milk"), "the editor shows the check: \(tmux.screen())")

        phone.clearChecked()
        try phone.save(to: laptop.listPath)
        #expect(tmux.waitForScreen { !$0.contains("Milk") } != nil, "Milk stays gone on screen:\n\(tmux.screen())")

        // The user adds Tea in the editor: a write every device gets.
        tmux.keys("a")
        tmux.type("Tea")
        tmux.keys("Enter", "Enter", "Enter")
        #expect(tmux.waitFor("Tea"))
        let expected: Set<String> = ["Eggs", "Bread", "Tea"]
        var view = try await laptop.view()
        for _ in 0..<100 where view.names != expected {
            try await Task.sleep(for: .milliseconds(50))
            view = try await laptop.view()
        }
        #expect(view.names == expected, "\(view.text)")
        #expect(view.deleted.contains("Milk"), "bananas deleted lists Milk: \(view.text)")
        #expect(view.conflictLines == [], "\(view.text)")
        #expect(!tmux.screen().contains("Milk"), "and the editor never brings it back: \(tmux.screen())")
        tmux.keys("q")
    }

    @Test("3: Yeast, then Walnuts added in the editor; the phone reads, deletes Yeast: Yeast goes from the screen, Walnuts stays")
    func theFirstSaveDeletesUnderTheEditor() async throws {
        let laptop = Laptop()
        defer { laptop.cleanUp() }
        await laptop("add", "Milk", "Bread", "--section", "Shop")
        let tmux = try editor(laptop)
        #expect(tmux.waitFor("Bread"))
        for name in ["Yeast", "Walnuts"] {
            tmux.keys("G", "a")
            tmux.type(name)
            tmux.keys("Enter", "Enter", "Enter")
            #expect(tmux.waitFor(name))
            #expect(PhoneAtTheStoreTests().eventually { (try? String(contentsOfFile: laptop.listPath, encoding: .utf8))?.contains(name) == true })
        }
        var phone = Phone()
        try phone.read(laptop.listPath)
        try phone.remove("Yeast")
        try phone.save(to: laptop.listPath)
        #expect(tmux.waitForScreen { !$0.contains("Yeast") && $0.contains("Walnuts") } != nil, "\(tmux.screen())")

        let view = try await laptop.view()
        #expect(view.names == ["Milk", "Bread", "Walnuts"], "\(view.text)")
        #expect(view.deleted == ["Yeast"], "\(view.text)")
        #expect(view.conflictLines == [], "\(view.text)")
        tmux.keys("q")
    }
}
