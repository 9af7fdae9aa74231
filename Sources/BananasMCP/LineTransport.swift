import Dispatch
import Foundation
import Logging
import MCP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MCP's stdio transport: one JSON-RPC message per line on stdin and stdout.
///
/// In place of the swift-sdk's `StdioTransport`, which sets both descriptors non-blocking and
/// sleeps whenever a read or write would block: requests waited, an idle server kept waking,
/// and a large result crawled through the pipe (docs/mcp.md). Here a thread of its own blocks
/// in `read`, and writes block (on a serial queue, off the cooperative pool) until the client
/// has taken the bytes.
public actor LineTransport: Transport {
    public nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let writes = DispatchQueue(label: "bananas.mcp.stdout")
    private let stream: AsyncThrowingStream<Data, Swift.Error>
    private let continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation
    private var connected = false
    private let endSignals: [Int32]
    private var signalSources: [any DispatchSourceSignal] = []

    /// `endingOn`: signals taken as the end of input (`bananas mcp` passes SIGTERM): the calls
    /// running are answered, the list is written, and the server exits 0, as when the client
    /// closes stdin.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, endingOn endSignals: [Int32] = [], logger: Logger) {
        self.input = input
        self.output = output
        self.endSignals = endSignals
        self.logger = logger
        (stream, continuation) = AsyncThrowingStream<Data, Swift.Error>.makeStream()
    }

    public func connect() async throws {
        guard !connected else { return }
        connected = true
        // Blocking reads and writes, whatever the descriptors were handed over as.
        for fd in [input, output] {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        }
        let (input, continuation, logger) = (input, continuation, logger)
        for number in endSignals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.info("signal \(number): finishing as at the end of input")
                continuation.finish()
            }
            source.resume()
            signalSources.append(source)
        }
        Thread.detachNewThread {
            LineTransport.readLines(from: input, into: continuation, logger: logger)
        }
    }

    public func disconnect() async {
        connected = false
        continuation.finish()
    }

    public func send(_ data: Data) async throws {
        var line = [UInt8](data)
        line.append(UInt8(ascii: "\n"))
        let (output, bytes) = (output, line)
        // A serial queue: messages go out whole and in the order sent, and a client slow to
        // read blocks that queue, not a thread of the cooperative pool.
        let failure: Int32? = await withCheckedContinuation { done in
            writes.async { done.resume(returning: LineTransport.writeAll(output, bytes)) }
        }
        if let failure { throw MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)) }
    }

    public func receive() -> AsyncThrowingStream<Data, Swift.Error> { stream }

    /// Reads until end of file, yielding each non-empty line.
    static func readLines(from fd: Int32, into continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation, logger: Logger) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = retrying(fd, waitingFor: POLLIN) { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if count < 0 {
                logger.error("could not read stdin: \(String(cString: strerror(errno)))")
                break
            }
            if count == 0 { break }
            // Lines end in the new bytes only: look for them there.
            var lineStart = 0
            let old = pending.count
            pending.append(contentsOf: chunk[0..<count])
            var index = old
            while index < pending.count {
                if pending[index] == UInt8(ascii: "\n") {
                    var line = pending[lineStart..<index]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    if !line.isEmpty { continuation.yield(Data(line)) }
                    lineStart = index + 1
                }
                index += 1
            }
            pending.removeFirst(lineStart)
        }
        // A last line without its newline is a message all the same.
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        if !pending.isEmpty { continuation.yield(Data(pending)) }
        continuation.finish()
    }

    /// `call` (a read or write on `fd`) again after an interruption, and after waiting for
    /// `events` when the descriptor was made non-blocking by someone else (EAGAIN) instead of
    /// spinning; its result, or -1 with errno set.
    static func retrying(_ fd: Int32, waitingFor events: Int32, _ call: () -> Int) -> Int {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno == EINTR { continue }
            guard errno == EAGAIN else { return -1 }
            var wait = pollfd(fd: fd, events: Int16(events), revents: 0)
            _ = poll(&wait, 1, -1)
        }
    }

    /// Writes every byte (blocking); the errno of a failure, nil when all were written.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = retrying(fd, waitingFor: POLLOUT) { bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) } }
            if written < 0 { return errno }
            offset += written
        }
        return nil
    }
}
