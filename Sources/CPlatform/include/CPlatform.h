#ifndef BANANAS_CPLATFORM_H
#define BANANAS_CPLATFORM_H

/// Small C helpers for what Swift's Glibc module does not import.

/// 1 when `path` is on a file system that may not deliver change events for writes made by
/// other machines (NFS, SMB/CIFS, FUSE, 9p, Ceph, AFS...), 0 when it is local, -1 on error.
int bananas_is_remote_filesystem(const char *path);

/// Runs `argv[0]` (a path) with stdin and stderr on /dev/null, stdout into `stdout_path`,
/// and every other descriptor closed, then waits for it. Returns its exit status, or -1.
/// For starting programs that leave a daemon behind (tmux): the daemon must not inherit
/// the caller's pipes, and the caller must reap the child itself.
int bananas_run_closing_descriptors(char *const argv[], const char *stdout_path);

#endif
