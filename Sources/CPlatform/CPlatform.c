#include "CPlatform.h"

#if defined(__linux__)
#include <sys/vfs.h>

int bananas_is_remote_filesystem(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    switch ((unsigned long)info.f_type) {
    case 0x6969UL:      /* NFS */
    case 0x517BUL:      /* SMB */
    case 0xFF534D42UL:  /* CIFS */
    case 0xFE534D42UL:  /* SMB2 */
    case 0x65735546UL:  /* FUSE (sshfs, rclone, many sync clients) */
    case 0x01021997UL:  /* 9p (WSL, VMs) */
    case 0x00C36400UL:  /* Ceph */
    case 0x5346414FUL:  /* AFS */
    case 0x73757245UL:  /* Coda */
    case 0x564C0000UL:  /* vboxsf */
        return 1;
    default:
        return 0;
    }
}
#else
int bananas_is_remote_filesystem(const char *path) {
    (void)path;
    return 0;
}
#endif

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int bananas_run_closing_descriptors(char *const argv[], const char *stdout_path) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int out = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null < 0 || out < 0) _exit(126);
        dup2(null, 0);
        dup2(out, 1);
        dup2(null, 2);
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++) close((int)fd);
        // Ignored signals and the signal mask survive exec: a test runner that ignores
        // SIGCHLD would leave tmux unable to learn how its panes exited.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
