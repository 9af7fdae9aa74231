import BananasCore
import BananasFile

extension ListFile.Snapshot {
    /// The stamp of a change a writer without stamps made in these bytes: the file's time, or
    /// just past `after`; its replica names the bytes and `judgedAgainst`, the newest state
    /// published here. Every instance of a device judges a save alike and stamps it alike; two
    /// devices that judged the same bytes against different histories (a synced file keeps
    /// its time) may make different values of it, which must not share a stamp.
    func foreignEditStamp(after: Stamp, now: Int64, judgedAgainst: UInt64) -> Stamp {
        // A file time far ahead of this clock (a file server's or a synced device's clock
        // running fast) is not used: the stamp is then just past what the edit replaced, the
        // same in every instance (where "now" would not be).
        let written = modifiedNanos.flatMap { $0 / 1_000_000 <= now + StampClock.maxForwardJump ? $0 : nil }
        return Stamp.foreignEdit(writtenAtNanos: written, after: after, content: contentHash ^ judgedAgainst)
    }
}
