import BananasCore
import BananasEditor
import BananasFile
import BananasSync
import Foundation
import Testing

/// Clicks and the wheel on the editor's state (the terminal's part, SGR reports, is tested
/// here for decoding and end to end in TmuxMouseTests).
@Suite("Mouse")
struct MouseTests {
    /// A click at a cell on a 44x12 screen, as `Session` renders it.
    func click(_ s: inout Session, x: Int, y: Int, conflicts: [Conflict] = []) {
        let action = s.state.handle(MouseEvent(.press, x: x, y: y), list: s.list, conflicts: conflicts, width: 44)
        s.actions.append(action)
        if case .edit(let edit, _, let select, let message) = action {
            s.clock += 1
            try! s.list.apply(edit, stamp: Stamp(millis: Int64(s.clock), counter: 0, replica: "test"))
            if let select { s.state.selection = select }
            s.state.message = .init(message)
            s.state.pinSelection(s.state.rows(for: s.list))
        }
    }

    @Test("SGR reports decode to presses and the wheel; releases, drags and other buttons are dropped")
    func decoding() {
        #expect(MouseEvent.sgr(parameters: "0;5;3", final: "M") == MouseEvent(.press, x: 4, y: 2))
        #expect(MouseEvent.sgr(parameters: "64;1;1", final: "M") == MouseEvent(.wheelUp, x: 0, y: 0))
        #expect(MouseEvent.sgr(parameters: "65;10;7", final: "M") == MouseEvent(.wheelDown, x: 9, y: 6))
        #expect(MouseEvent.sgr(parameters: "16;5;3", final: "M") == MouseEvent(.press, x: 4, y: 2))  // with Ctrl
        #expect(MouseEvent.sgr(parameters: "0;5;3", final: "m") == nil)
        #expect(MouseEvent.sgr(parameters: "32;5;3", final: "M") == nil)
        #expect(MouseEvent.sgr(parameters: "2;5;3", final: "M") == nil)
        #expect(MouseEvent.sgr(parameters: "0;5", final: "M") == nil)
        #expect(MouseEvent.sgr(parameters: "0;0;3", final: "M") == nil)
    }

    @Test("a click on a row selects it; on its box checks it; on a section header collapses it")
    func clicks() {
        var s = Session()
        // Row 3 of the screen is Apples (title, Produce, Bananas, Apples).
        click(&s, x: 12, y: 3)
        #expect(s.state.selection == .item("A2"))
        #expect(s.named("Apples")?.checked == true)
        click(&s, x: 3, y: 2)  // Bananas's box
        #expect(s.named("Bananas")?.checked == true)
        #expect(s.state.message?.text == "Checked Bananas")
        click(&s, x: 5, y: 5)  // the Dairy header
        #expect(s.state.collapsed == ["Dairy"])
        #expect(s.screen().contains("▸ Dairy"))
        click(&s, x: 5, y: 5)
        #expect(s.state.collapsed.isEmpty)
        // Below the last row: nothing.
        let before = s.list
        click(&s, x: 3, y: 10)
        #expect(s.list == before)
    }

    @Test("the wheel moves through the list")
    func wheel() {
        var s = Session()
        _ = s.state.handle(MouseEvent(.wheelDown, x: 5, y: 5), list: s.list, width: 44)
        #expect(s.state.selection == .item("A3"))
        _ = s.state.handle(MouseEvent(.wheelDown, x: 5, y: 5), list: s.list, width: 44)
        _ = s.state.handle(MouseEvent(.wheelDown, x: 5, y: 5), list: s.list, width: 44)
        #expect(s.state.selection == .item("C1"))
        _ = s.state.handle(MouseEvent(.wheelUp, x: 5, y: 5), list: s.list, width: 44)
        #expect(s.state.selection == .item("B1"))
    }

    @Test("a click on the status bar opens the conflict review when there are conflicts; on ? help, the help")
    func statusBar() {
        var s = Session()
        click(&s, x: 3, y: 11, conflicts: ConflictOverlayTests.entries)
        #expect(s.state.mode == .conflicts)
        var t = Session()
        click(&t, x: 3, y: 11)
        #expect(t.state.mode == .normal)
        click(&t, x: 40, y: 11)
        #expect(t.state.mode == .help)
    }

    @Test("read-only: a click on a box says so and changes nothing; too small: clicks do nothing")
    func readOnlyAndTooSmall() {
        var s = Session(readOnly: true)
        click(&s, x: 3, y: 2)
        #expect(s.named("Bananas")?.checked == false)
        #expect(s.state.message?.kind == .readOnly)
        var t = Session()
        t.state.tooSmall = true
        click(&t, x: 3, y: 2)
        #expect(t.named("Bananas")?.checked == false && t.state.selection == .section("Produce"))
    }
}
