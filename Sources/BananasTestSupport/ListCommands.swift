import Foundation

/// A way to run `bananas` commands on one list, for the end-to-end tests: the CLI tests'
/// `CLI` (which starts processes through swift-subprocess, a dependency of that target only)
/// conforms. The helpers the editor's tmux suites share are written once, here.
public protocol ListCommands {
    /// A fresh list in a folder of its own.
    init()
    /// Runs `bananas ARGUMENTS` on the list.
    func runCommand(_ arguments: [String]) async
    /// The list's items as `bananas list --json` gives them.
    func items() async throws -> [[String: Any]]
}

extension ListCommands {
    /// A list with two sections, made through the CLI: Bananas (6) in Produce; Oat milk (2 L)
    /// and Butter in Dairy.
    public static func seeded() async -> Self {
        let list = Self()
        await list.runCommand(["add", "Bananas", "--section", "Produce", "--amount", "6"])
        await list.runCommand(["add", "Oat milk", "--section", "Dairy", "--amount", "2 L"])
        await list.runCommand(["add", "Butter", "--section", "Dairy"])
        return list
    }

    /// The item named `name` as the file has it now (nil: not on the list, or the list could
    /// not be read).
    public func item(_ name: String) async -> [String: Any]? {
        (try? await items())?.first { $0["name"] as? String == name }
    }

    /// Waits (up to 5 s) until the file, read through the CLI, satisfies `condition` for the
    /// item named `name` (nil when it is not on the list): a change on screen reaches the
    /// file a few milliseconds later.
    public func fileHas(_ name: String, _ condition: ([String: Any]?) -> Bool) async -> Bool {
        await waitUntil { condition(await item(name)) }
    }
}

/// Checks `condition` every 50 ms until it holds; false after `timeout` seconds.
public func waitUntil(timeout: Double = 5, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if await condition() { return true }
        try? await Task.sleep(for: .seconds(0.05))
    } while Date() < deadline
    return false
}
