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
