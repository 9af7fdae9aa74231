#if defined(__linux__)
#define _GNU_SOURCE  /* sync_file_range */
#endif
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

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int bananas_reserve_heap(size_t bytes) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    /* Big blocks (the file's bytes, the bytes written) from the heap too, not from mmaps of
       their own; nothing handed back before exit; the heap grown once, by `bytes`. */
    if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, INT32_MAX) ||
        !mallopt(M_TOP_PAD, bytes > INT32_MAX ? INT32_MAX : (int)bytes)) return 0;
    uintptr_t before = (uintptr_t)sbrk(0);
    /* More than the heap has free: it grows by this and the pad. (Volatile: a compiler may
       drop a malloc whose block is only freed.) */
    void *volatile grow = malloc(4 << 20);
    if (grow == NULL) return 0;
    free(grow);
    uintptr_t after = (uintptr_t)sbrk(0);
    uintptr_t start = (before + huge - 1) & ~(huge - 1), end = after & ~(huge - 1);
    if (before == (uintptr_t)-1 || end <= start) return 0;
    /* One fault and one clear per 2 MiB instead of per 4 KiB (transparent huge pages, where
       the system allows them for regions that ask). */
    return madvise((void *)start, end - start, MADV_HUGEPAGE) == 0;
}
#else
int bananas_reserve_heap(size_t bytes) {
    (void)bytes;
    return 0;
}
#endif

#if defined(__linux__)
#include <fcntl.h>

void bananas_start_writeback(int fd) {
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}
#else
void bananas_start_writeback(int fd) {
    (void)fd;
}
#endif
