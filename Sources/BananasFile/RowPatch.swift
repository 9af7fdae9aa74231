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
    /// Takes `bytes` (the scan is spent once it returns bytes).
    public mutating func applying(
        _ edit: ListEdit, modifiedAt: String?, expiringBefore cutoff: Int64, stamp: (ShoppingList) -> Stamp
    ) throws -> (bytes: [UInt8], changed: Bool) {
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
        let before = list
        try list.apply(edit, stamp: stamp(list), modifiedAt: modifiedAt)
        list.expireTombstones(before: cutoff)
        if list == before {
            var out: [UInt8] = []
            swap(&out, &bytes)
            return (out, false)
        }

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

        // Spliced into the file's own array, from its end backwards (so earlier offsets
        // hold): no second copy of a file of megabytes, whose fresh pages cost more than
        // moving the bytes after the splice.
        var touched: [(row: Range<Int>, encoded: Range<Int>)] = []
        for i in indices {
            guard let range = encoded[String(id(i))] else { throw Unavailable() }
            touched.append((rows[i].range, range))
        }
        var out: [UInt8] = []
        swap(&out, &bytes)
        if !Bytes.equal(out[itemsClose...], Array(small[layout.itemsEnd...])) {
            out.replaceSubrange(itemsClose..., with: small[layout.itemsEnd...])
        }
        if rows.isEmpty {
            out.replaceSubrange(itemsOpen..<itemsClose, with: small[layout.itemsStart..<layout.itemsEnd])
        } else {
            var appended: [UInt8] = []
            for id in layout.ids where !updated.contains(id) {
                appended.append(UInt8(ascii: ","))
                appended.append(contentsOf: RowScan.rowIndent)
                appended.append(contentsOf: small[encoded[id]!])
            }
            let end = rows[rows.count - 1].range.upperBound
            out.insert(contentsOf: appended, at: end)
            for (row, range) in touched.reversed() {
                out.replaceSubrange(row, with: small[range])
            }
        }
        if !Bytes.equal(out[..<itemsOpen], Array(small[..<layout.itemsStart])) {
            out.replaceSubrange(..<itemsOpen, with: small[..<layout.itemsStart])
        }
        return (out, true)
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
        // A missing file or folder, and what cannot be read, are worded by the usual path.
        guard let base, let state, Sys.linkStatus(path) != nil else { return nil }
        // Copies and journals are merged by the usual path; a copy that appears after this
        // look is merged by the next command or instance, as one that appears after a write.
        guard ConflictCopy.find(beside: path).isEmpty,
              Journal.orphans(in: state.journalsPath).isEmpty else { return nil }
        if createsFolder { try makeFolder() }
        let lock = try FileLock.acquire(path: lockPath, timeoutMillis: lockTimeoutMillis)
        defer { lock.release() }
        let written = base.glance().writtenHashes
        // Room to splice into the bytes as read, held by the scan alone (RowScan.applying).
        guard var scan = try readFile(spare: 64 * 1024).bytes.flatMap({ bytes in
            written.contains(Hash.content(bytes)) ? RowScan(bytes) : nil
        }) else { return nil }
        let edit: ListEdit?, report: Report
        do {
            (edit, report) = try plan(scan)
        } catch is RowScan.Unavailable {
            return nil
        }
        guard let edit, !edit.isEmpty else { return report }
        let now = Clock.nowMillis()
        var clock = StampClock(replica: ReplicaID.random())
        let out: [UInt8], changed: Bool
        do {
            (out, changed) = try scan.applying(
                edit, modifiedAt: Timestamp.iso8601(millis: now),
                expiringBefore: now - ShoppingList.tombstoneLifetimeMillis
            ) { list in
                clock.observe(list.newestStamp, now: now)
                return clock.next(now: now)
            }
        } catch is RowScan.Unavailable {
            return nil
        }
        guard changed else { return report }
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
