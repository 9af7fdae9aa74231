/// Help texts that both binaries print: `bananas help mcp` (ArgumentParser in `bananas`) and
/// `bananas-mcp --help` (the server, which `bananas mcp` execs) describe the same command.
public enum MCPCommandText {
    public static let abstract = "Serve the list to AI agents (Model Context Protocol over stdio)."
    public static let discussion = """
        Add it to an MCP client as the command `bananas` with the argument `mcp` (docs/mcp.md). \
        Logs go to stderr; set BANANAS_LOG_LEVEL to trace, debug, info (default), notice, \
        warning, error or critical. The server is the binary `bananas-mcp`, installed next \
        to `bananas`.
        """
}
