#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BananasCore

extension RowScan {
    /// The file's bytes with `edit` applied, as `ListCodec.encode` would write the whole list
    /// after `apply(edit, stamp:modifiedAt:)` and `expireTombstones(before:)`, made from the
    /// frame and the rows the edit touches only: those are decoded, edited and encoded by the
    /// real code, and spliced in among the other rows' bytes (SpliceTests-style
    /// `RowPatchTests` compare the two). `stamp` gets the list's frame and touched rows, to
    /// observe their stamps. Throws `Unavailable` for an edit this cannot splice: a delete,
    /// a move, a row that is not visible, a new row that does not sort after every row.
    public func applying(
        _ edit: ListEdit, modifiedAt: String?, expiringBefore cutoff: Int64, stamp: (ShoppingList) -> Stamp
    ) throws -> [UInt8] {
        var updated: [String] = [], inserted: [Item] = []
        func collect(_ edit: ListEdit) throws(Unavailable) {
            switch edit {
            case .batch(let steps): for step in steps { try collect(step) }
            case .update(let id, _): if !updated.contains(id) { updated.append(id) }
            case .insert(let item): inserted.append(item)
            case .setSections: break
            case .delete: throw Unavailable()
            }
        }
        try collect(edit)
        var indices: [Int] = []
        for id in updated {
            guard let i = index(ofID: id) else { throw Unavailable() }
            indices.append(i)
        }
        indices.sort()
        var list = try decode(rows: indices)
        try list.apply(edit, stamp: stamp(list), modifiedAt: modifiedAt)
        list.expireTombstones(before: cutoff)

        // Rows stay where they are; new rows go after the last one.
        for i in indices {
            let id = String(self.id(i))
            guard let row = list.rows[id], list.isVisible(id), row.sortOrder == rows[i].sortOrder else { throw Unavailable() }
        }
        if let last = rows.last {
            let lastID = String(id(rows.count - 1))
            for item in inserted {
                guard let row = list.rows[item.id], list.isVisible(item.id),
                      row.sortOrder > last.sortOrder || (row.sortOrder == last.sortOrder && row.id > lastID)
                else { throw Unavailable() }
            }
        }
        guard list.unreadableRows.isEmpty else { throw Unavailable() }

        // The frame and the touched rows, encoded whole (a small list).
        var layout = LayoutRecorder()
        let small = ListCodec.encode(list, layout: &layout)
        guard layout.itemsStart >= 0, layout.ids.count == indices.count + inserted.count else { throw Unavailable() }
        var encoded: [String: Range<Int>] = [:]
        for (id, range) in zip(layout.ids, layout.ranges) { encoded[id] = range }

        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + (small.count - (layout.itemsEnd - layout.itemsStart)))
        out.append(contentsOf: small[..<layout.itemsStart])
        if rows.isEmpty {
            out.append(contentsOf: small[layout.itemsStart..<layout.itemsEnd])
        } else {
            var copied = itemsOpen
            for i in indices {
                guard let range = encoded[String(id(i))] else { throw Unavailable() }
                out.append(contentsOf: bytes[copied..<rows[i].range.lowerBound])
                out.append(contentsOf: small[range])
                copied = rows[i].range.upperBound
            }
            let end = rows[rows.count - 1].range.upperBound
            out.append(contentsOf: bytes[copied..<end])
            for id in layout.ids where !updated.contains(id) {
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: RowScan.rowIndent)
                out.append(contentsOf: small[encoded[id]!])
            }
            out.append(contentsOf: bytes[end..<itemsClose])
        }
        out.append(contentsOf: small[layout.itemsEnd...])
        return out
    }
}

extension ListFile {
    /// A one-row command (`add`, `check`, `uncheck`) done on the file's bytes, without
    /// decoding every row (see `RowScan`): under the lock, when the file is one bananas wrote
    /// (its hash is in the base's written hashes: no stampless writer's change to absorb, and
    /// bytes in the encoder's shape), no sync engine's conflict copy lies beside it and no
    /// dead instance left a journal. `plan` decides the edit from the scan, as the command
    /// would from the decoded list.
    ///
    /// Returns nil, having written nothing, when any of that does not hold or `plan` throws
    /// `RowScan.Unavailable`: the caller then runs the command the usual way. Otherwise the
    /// file is written as `update` writes it (temp file, fsync, read back, rename, fsync of
    /// the folder; then the base), and `plan`'s report is returned.
    public func patch<Report>(
        lockTimeoutMillis: Int64,
        _ plan: (RowScan) throws -> (edit: ListEdit?, report: Report)
    ) throws -> Report? {
        guard let base, let state else { return nil }
        // Copies and journals are merged by the usual path; a copy that appears after this
        // look is merged by the next command or instance, as one that appears after a write.
        guard ConflictCopy.find(beside: path).isEmpty,
              Journal.orphans(in: state.journalsPath).isEmpty else { return nil }
        if createsFolder { try makeFolder() }
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: lockTimeoutMillis)
        defer { lock.release() }
        let written = base.glance().writtenHashes
        guard let bytes = try readFile().bytes, written.contains(Hash.content(bytes)),
              let scan = RowScan(bytes) else { return nil }
        let edit: ListEdit?, report: Report
        do {
            (edit, report) = try plan(scan)
        } catch is RowScan.Unavailable {
            return nil
        }
        guard let edit, !edit.isEmpty else { return report }
        let now = Clock.nowMillis()
        var clock = StampClock(replica: ReplicaID.random())
        let out: [UInt8]
        do {
            out = try scan.applying(
                edit, modifiedAt: Timestamp.iso8601(millis: now),
                expiringBefore: now - ShoppingList.tombstoneLifetimeMillis
            ) { list in
                clock.observe(list.newestStamp, now: now)
                return clock.next(now: now)
            }
        } catch is RowScan.Unavailable {
            return nil
        }
        if Bytes.equal(bytes, out) { return report }
        AtomicWrite.removeAbandonedTemps(beside: path, now: now)
        let hash = Hash.content(out)
        base.announce(hash)
        try AtomicWrite.replace(path, with: out) { written in
            assert((try? ListCodec.decode(written)) != nil, "a patch wrote bytes the decoder refuses")
            return true
        }
        base.save(nil, written: out, hash: hash)
        return report
    }
}
