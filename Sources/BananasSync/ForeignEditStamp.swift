import BananasCore
import BananasFile

extension ListFile.Snapshot {
    /// The stamp of a change a writer without stamps made in these bytes: the file's time, or
    /// just past `after`.
    func foreignEditStamp(after: Stamp, now: Int64) -> Stamp {
        // A file time far ahead of this clock (a file server's or a synced device's clock
        // running fast) is not used: the stamp is then just past what the edit replaced, the
        // same in every instance (where "now" would not be).
        let written = modifiedNanos.flatMap { $0 / 1_000_000 <= now + StampClock.maxForwardJump ? $0 : nil }
        return Stamp.foreignEdit(writtenAtNanos: written, after: after, content: contentHash)
    }
}
