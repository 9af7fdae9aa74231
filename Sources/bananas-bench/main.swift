// bananas-bench: in-memory editor timings (key press to frame) at several list sizes.
// The start of issue 9's benchmark; run with `swift run -c release bananas-bench`.
import BananasCore
import BananasEditor
import BananasSync
import Foundation

func makeList(_ count: Int) -> ShoppingList {
    let sections = (0..<max(1, count / 50)).map { "Section \($0)" }
    var rows: [Item] = []
    rows.reserveCapacity(count)
    for n in 0..<count {
        rows.append(Item(id: String(format: "%08X-0000-4000-8000-%012X", n, n), name: "Item \(n)", amount: n % 3 == 0 ? "\(n % 7) kg" : "",
                         section: sections[n % sections.count], checked: n % 5 == 0, sortOrder: Double(n) * 1024))
    }
    return ShoppingList(sections: sections, rows: rows)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

for size in [100, 1_000, 10_000, 100_000] {
    let list = makeList(size)
    var state = EditorState()
    state.viewportHeight = Screen.viewportHeight(forHeight: 40)
    state.settle(state.rows(for: list))
    let status = SyncStatus()
    var samples: [Double] = []
    let presses = size >= 100_000 ? 10 : 50
    for k in 0..<presses + 5 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = state.handle(k % 2 == 0 ? .char("j") : .down, list: list)
        let grid = Screen.render(Frame(state: state, list: list, status: status, fileLabel: "bench", now: 0), width: 100, height: 40)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        if k >= 5 { samples.append(ms) }  // warm-up
        precondition(grid.width == 100)
    }
    print(String(format: "%7d items: key press to frame median %.3f ms, max %.3f ms", size, median(samples), samples.max()!))
}

// Where the time goes, at 10,000 items.
do {
    let list = makeList(10_000)
    func time(_ label: String, _ body: () -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<5 { body() }
        print(label, String(format: "%.3f ms", Double(DispatchTime.now().uptimeNanoseconds - start) / 5e6))
    }
    time("items") { _ = list.items.count }
    time("displaySections") { _ = list.displaySections.count }
    time("grouped") { _ = list.grouped().count }
    var state = EditorState()
    time("rows") { _ = state.rows(for: list).count }
    let rows = state.rows(for: list)
    time("settle") { state.settle(rows) }
    time("visibleCount") { _ = list.visibleCount }
}
do {
    let list = makeList(10_000)
    let copy = list
    let start = DispatchTime.now().uptimeNanoseconds
    var same = 0
    for _ in 0..<100 { if list == copy { same += 1 } }
    print("list == copy x100:", same, String(format: "%.3f ms each", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e8))
}
