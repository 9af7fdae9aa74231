#include "CTestProcess.h"

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
