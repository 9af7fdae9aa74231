#ifndef BANANAS_CPLATFORM_H
#define BANANAS_CPLATFORM_H

#include <stddef.h>

/// Small C helpers for what Swift's Glibc module does not import.

/// 1 when `path` is on a file system that may not deliver change events for writes made by
/// other machines (NFS, SMB/CIFS, FUSE, 9p, Ceph, AFS...), 0 when it is local, -1 on error.
int bananas_is_remote_filesystem(const char *path);

/// For a short process about to read a large file: grows the heap once by about `bytes`, keeps
/// large blocks in it, and asks for huge pages there. 1 when huge pages were asked for.
int bananas_reserve_heap(size_t bytes);

/// Starts writing a file's dirty pages to the disk without waiting for them (Linux's
/// sync_file_range with SYNC_FILE_RANGE_WRITE); elsewhere nothing. A later fsync still waits
/// for everything: this only lets the disk begin sooner.
void bananas_start_writeback(int fd);

#endif
