// scan-floor: the least a scan of a library has to ask of the kernel, for the scan benchmark's
// floor (see README.md, "Results (scan)").
//
// Reads lines "PATH<TAB>PICTURE_BYTES" from standard input (the scan's own catalog gives them:
// every file and the byte count of its pictures) and, for each, does what any reader of it has
// to do at the least: open it, fstat it, read its first 4 KiB and its last 4 KiB (where an MP4
// movie box or an ID3v1 tag lies), read PICTURE_BYTES bytes (a content hash needs every byte of
// every picture), and close it. No parsing, no hashing, no catalog: only the system calls and the
// copies from the page cache, through one reused buffer. Prints the bytes read.
//
// Build: gcc -O2 -o scan-floor scan-floor.c

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
    size_t capacity = 1 << 20;
    char *buffer = malloc(capacity);
    char line[8192];
    unsigned long long total = 0;
    if (!buffer) return 1;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t');
        long long pictures = 0;
        if (tab) {
            *tab = 0;
            pictures = atoll(tab + 1);
        }
        int descriptor = open(line, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (descriptor < 0) continue;
        struct stat info;
        if (fstat(descriptor, &info) == 0) {
            ssize_t got = pread(descriptor, buffer, 4096, 0);
            if (got > 0) total += got;
            if (info.st_size > 8192) {
                got = pread(descriptor, buffer, 4096, info.st_size - 4096);
                if (got > 0) total += got;
            }
            if (pictures > 0 && pictures <= info.st_size) {
                if ((size_t)pictures > capacity) {
                    free(buffer);
                    capacity = (size_t)pictures;
                    buffer = malloc(capacity);
                    if (!buffer) return 1;
                }
                got = pread(descriptor, buffer, (size_t)pictures, 0);
                if (got > 0) total += got;
            }
        }
        close(descriptor);
    }
    printf("%llu\n", total);
    free(buffer);
    return 0;
}
