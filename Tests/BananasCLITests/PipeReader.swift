import Foundation

/// Reads a child's pipe on a thread of its own until end of file, handing each chunk to
/// `onData` as it arrives.
///
/// Not `FileHandle.readabilityHandler`: on Linux it is a dispatch read source, and Foundation
/// closes the descriptor when the handle goes away whether or not dispatch has finished
/// with it. With dozens of child processes a reused descriptor number then meets a stale
/// registration, and the test process crashed in libdispatch's `_dispatch_event_loop_drain`
/// (a fresh-clone CI run, 2026-11-22). A blocking read on a thread touches no dispatch state.
final class PipeReader: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameter handle: the read end; kept open until end of file.
    init(_ handle: FileHandle, onData: @escaping @Sendable (Data) -> Void) {
        let thread = Thread { [finished] in
            withExtendedLifetime(handle) {
                let fd = handle.fileDescriptor
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    onData(Data(buffer[0..<count]))
                }
            }
            finished.signal()
        }
        thread.name = "pipe reader"
        thread.start()
    }

    /// Waits until every writer has closed the pipe (at most `timeout` seconds): true if so.
    @discardableResult
    func waitForEnd(timeout: Double) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }
}
