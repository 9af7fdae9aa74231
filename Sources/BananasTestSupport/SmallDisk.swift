#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// For tests only: a small tmpfs mounted at a fresh folder, to fill up (a real full disk for
/// the state folder) or to make read-only. Nil where this process may not mount (not root, no CAP_SYS_ADMIN).
public final class SmallDisk: @unchecked Sendable {
    public let path: String
    private var filler: Int32 = -1

    public init?(bytes: Int = 512 * 1024) {
        path = NSTemporaryDirectory() + "bananas-disk-" + UUID().uuidString
        guard mkdir(path, 0o700) == 0 else { return nil }
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            rmdir(path)
            return nil
        }
    }

    /// Takes every free byte (a file that grows until the disk refuses).
    public func fill() {
        if filler < 0 { filler = open(path + "/filler", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        let block = [UInt8](repeating: 0x41, count: 4_096)
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        // What a page's tail leaves.
        while write(filler, block, 1) > 0 {}
    }

    /// Gives the space back.
    public func free() {
        if filler >= 0 { close(filler); filler = -1 }
        unlink(path + "/filler")
    }

    /// Remounts the disk read-only (true) or writable again (false): a read-only state folder.
    @discardableResult
    public func setReadOnly(_ readOnly: Bool) -> Bool {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        // EBUSY while a file on it is open for writing: another test's child, between its fork
        // and its exec, briefly holds a copy of every descriptor of this process (the filler's).
        for _ in 0..<100 {
            if Glibc.mount("tmpfs", path, "tmpfs", flags, nil) == 0 { return true }
            guard errno == EBUSY else { return false }
            usleep(20_000)
        }
        return false
    }

    deinit {
        setReadOnly(false)
        free()
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }
}
