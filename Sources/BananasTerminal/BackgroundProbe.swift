import BananasEditor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks the terminal for its background colour before curses starts: OSC 11, then a device
/// attributes query (DA1) that every terminal answers, so one that ignores OSC 11 costs a
/// round trip, not the whole timeout. Nil when the terminal does not say (or is not one).
public enum BackgroundProbe {
    public static func query(timeoutMillis: Int = 150) -> Background? {
        let input = STDIN_FILENO, output = STDOUT_FILENO
        guard isatty(input) == 1, isatty(output) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        // No echo, no line buffering: the reply is read as it comes and never shown.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return nil }
        defer { _ = tcsetattr(input, TCSANOW, &saved) }
        let query = Array("\u{1B}]11;?\u{1B}\\\u{1B}[c".utf8)
        guard query.withUnsafeBufferPointer({ write(output, $0.baseAddress, $0.count) }) == query.count else { return nil }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int(clock.tv_sec) * 1000 + Int(clock.tv_nsec) / 1_000_000 + timeoutMillis
        while reply.count < 4096 {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let left = deadline - (Int(clock.tv_sec) * 1000 + Int(clock.tv_nsec) / 1_000_000)
            guard left > 0 else { break }
            var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left)) > 0 else { break }
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[0..<count]
            let parsed = Background.parse(reply: reply)
            if parsed.answered { return parsed.background }
        }
        return Background.parse(reply: reply).background
    }
}
