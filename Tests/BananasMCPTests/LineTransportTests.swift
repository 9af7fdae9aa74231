@testable import BananasMCP
import Dispatch
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `LineTransport` over real pipes, as `bananas mcp` runs on stdin and stdout.
@Suite("The stdio transport: one message per line, blocking reads and writes")
struct LineTransportTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func pipePair() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    @Test("lines split across reads, CRLF and blank lines: each message once, whole; a last line without its newline too")
    func readsLines() async throws {
        let toServer = Self.pipePair()
        let transport = LineTransport(input: toServer.read, output: STDERR_FILENO, logger: Self.logger)
        try await transport.connect()
        let big = String(repeating: "x", count: 200_000)
        let writer = toServer.write
        Thread.detachNewThread {
            for piece in [#"{"a":1}"# + "\n" + #"{"b":"#, #"2}"# + "\r\n\n", big + "\n", #"{"c":3}"#] {
                _ = LineTransport.writeAll(writer, Array(piece.utf8))
                usleep(20_000)
            }
            close(writer)  // the last line has no newline: a message all the same
        }
        var received: [String] = []
        for try await message in await transport.receive() {
            received.append(String(decoding: message, as: UTF8.self))
        }
        #expect(received == [#"{"a":1}"#, #"{"b":2}"#, big, #"{"c":3}"#])
        close(toServer.read)
    }

    @Test("a 1 MB message goes through a 64 KiB pipe whole, even on a descriptor left non-blocking")
    func writesLargeMessages() async throws {
        let fromServer = Self.pipePair()
        // Non-blocking, as the SDK's transport would have left it: still written whole.
        _ = fcntl(fromServer.write, F_SETFL, fcntl(fromServer.write, F_GETFL) | O_NONBLOCK)
        let unused = Self.pipePair()
        let transport = LineTransport(input: unused.read, output: fromServer.write, logger: Self.logger)
        try await transport.connect()
        let message = Data(repeating: UInt8(ascii: "b"), count: 1_000_000)
        let reader = fromServer.read
        let got = Task.detached { () -> [UInt8] in
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while all.last != UInt8(ascii: "\n") {
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                all += chunk[0..<count]
            }
            return all
        }
        try await transport.send(message)
        let bytes = await got.value
        #expect(bytes.count == message.count + 1)
        #expect(bytes.dropLast().allSatisfy { $0 == UInt8(ascii: "b") } && bytes.last == UInt8(ascii: "\n"))
        await transport.disconnect()
        for fd in [fromServer.read, fromServer.write, unused.write, unused.read] { close(fd) }
    }
}
