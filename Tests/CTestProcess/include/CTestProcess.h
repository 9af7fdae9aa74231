#ifndef BANANAS_CTESTPROCESS_H
#define BANANAS_CTESTPROCESS_H

/// For the tests only.

/// Runs `argv[0]` (a path) with stdin and stderr on /dev/null, stdout into `stdout_path`,
/// and every other descriptor closed, then waits for it. Returns its exit status, or -1.
/// For starting programs that leave a daemon behind (tmux): the daemon must not inherit
/// the caller's pipes, and the caller must reap the child itself.
int bananas_run_closing_descriptors(char *const argv[], const char *stdout_path);

#endif
