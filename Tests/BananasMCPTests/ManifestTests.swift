@testable import BananasMCP
import Foundation
import Testing

@Suite("MCPB manifest")
struct ManifestTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/mcpb/manifest.json").path

    @Test("docs/mcpb/manifest.json parses, runs `bananas mcp`, and lists exactly the server's tools and prompts")
    func manifest() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.path), "\(Self.path)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(manifest["manifest_version"] as? String == "0.3")
        for key in ["name", "version", "description", "author"] { #expect(manifest[key] != nil, "\(key)") }
        let server = try #require(manifest["server"] as? [String: Any])
        #expect(server["type"] as? String == "binary")
        let entry = try #require(server["entry_point"] as? String)
        let config = try #require(server["mcp_config"] as? [String: Any])
        #expect((config["command"] as? String)?.hasSuffix(entry) == true, "the command runs the entry point")
        #expect(config["args"] as? [String] == ["mcp"])
        let tools = try #require(manifest["tools"] as? [[String: Any]])
        #expect(tools.compactMap { $0["name"] as? String } == BananasMCPServer.toolNames)
        #expect(tools.allSatisfy { ($0["description"] as? String)?.isEmpty == false })
        let prompts = try #require(manifest["prompts"] as? [[String: Any]])
        #expect(prompts.compactMap { $0["name"] as? String } == BananasMCPServer.promptNames)
        #expect(manifest["icon"] as? String == "icon.png" && manifest["license"] is String)
        // The list is picked in the host's settings and reaches the server as BANANAS_FILE.
        let picker = (manifest["user_config"] as? [String: Any])?["list_file"] as? [String: Any]
        #expect(picker?["type"] as? String == "file" && picker?["required"] as? Bool == false)
        #expect((config["env"] as? [String: String])?["BANANAS_FILE"] == "${user_config.list_file}")
    }

    @Test("the manifest's prompts are the server's own: description, arguments and text, `${arguments.…}` where the server puts each argument")
    func manifestPromptsAreTheServers() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.path))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let prompts = try #require(manifest["prompts"] as? [[String: Any]])
        #expect(prompts.count == Guidance.all.count)
        for (listed, spec) in zip(prompts, Guidance.all) {
            let names = (spec.prompt.arguments ?? []).map(\.name)
            #expect(listed["description"] as? String == spec.prompt.description, "\(spec.prompt.name)")
            #expect((listed["arguments"] as? [String] ?? []) == names, "\(spec.prompt.name)")
            // What a host shows with the arguments filled in is what prompts/get answers.
            let placeholders = Dictionary(uniqueKeysWithValues: names.map { ($0, "${arguments.\($0)}") })
            #expect(listed["text"] as? String == spec.text(placeholders), "\(spec.prompt.name)")
            let filled = Dictionary(uniqueKeysWithValues: names.map { ($0, "value of \($0)") })
            var hostText = listed["text"] as? String ?? ""
            for (name, value) in filled { hostText = hostText.replacingOccurrences(of: "${arguments.\(name)}", with: value) }
            #expect(hostText == (try Guidance.get(spec.prompt.name, filled)).messages.first.map { message -> String in
                if case .text(let text) = message.content { return text }
                return ""
            }, "\(spec.prompt.name)")
        }
    }
}
